// A run's task states: the distinct `<status>/<task name>` of its task executions, kept on the instance document so
// that the instance filters "runs with a task of this status (and name)" — `taskExecutions: {status, taskName}`, the
// failure questions — are one term query on the runs instead of two steps over the task executions (the distinct runs
// of the matching executions, then a terms query of their ids: at 1,000,000 runs about 10,000 ids per faulted task
// name, 70 req/s). The status is one of a fixed set without '/', so the first '/' ends it.
// Capped like the payload leaves: a run with more than MAX_TASK_STATES distinct states, or a state longer than the
// keyword limit, is marked incomplete (`task_states_complete: false`) and the reader resolves such filters in two
// steps while any served run is incomplete (reader/lookups/task-states-filter.ts).
import { KEYWORD_LIMIT } from './long-detail.js';
import type { TaskExecutionDocument } from './task-execution-document.js';

export const MAX_TASK_STATES = 1_000;

export function taskState(status: string, taskName: string): string {
  return `${status}/${taskName}`;
}

/** The instance document's `task_states` and `task_states_complete` from its execution documents. */
export function taskStates(executions: readonly Pick<TaskExecutionDocument, 'status' | 'task_name'>[]): { task_states: string[]; task_states_complete: boolean } {
  const states = new Set<string>();
  let complete = true;
  for (const e of executions) {
    const state = taskState(e.status, e.task_name);
    if (state.length > KEYWORD_LIMIT) complete = false;
    else states.add(state);
  }
  if (states.size > MAX_TASK_STATES) return { task_states: [], task_states_complete: false };
  return { task_states: [...states].sort(), task_states_complete: complete };
}
