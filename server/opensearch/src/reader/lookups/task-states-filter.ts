// The instance filter `taskExecutions` in one search when it asks only for a status (and a name) of the run's tasks:
// `{status: {eq|in}}`, optionally `and` `{taskName: {eq|in}}` — the failure questions ("runs where a task of this name
// faulted"). It is then a term query on the instance document's task states (task-states.ts) instead of the two steps
// of lookup-filter.ts (the distinct runs of the matching executions, then their ids). Both give the same runs when
// every run has its states: a run's states are computed from the same executions, in the same write, as its execution
// documents (a refused document marks its run incomplete, normalizer-recompute.ts). A run written before the states
// existed, or whose states were capped, has no complete states; while any run is such, the two steps answer
// (`everyRunHasTaskStates`, three counts of the runs, about 1 ms each).
import { type FilterNode, TASK_STATUSES, type TaskStringField, type TaskTimeField } from '@workflow-index/core';
import { taskState } from '../../task-states.js';
import { type Query, MATCH_ALL, MATCH_NONE, MAX_TERMS_COUNT, or, term, terms } from '../query-dsl.js';
import type { Searcher } from '../search-requests.js';

/** What a task document's status can be (filter-translation.ts maps FAILED to FAULTED before the reader). */
const STATUSES: ReadonlySet<string> = new Set(TASK_STATUSES);

export const TASK_STATES_FIELD = 'task_states';
export const TASK_STATES_COMPLETE_FIELD = 'task_states_complete';

type TaskNode = FilterNode<TaskStringField, TaskTimeField>;

interface Shape { statuses?: readonly string[]; names?: readonly string[] }

function valuesOf(node: TaskNode): { field: 'status' | 'taskName'; values: readonly string[] } | null {
  if (node.kind !== 'string' || (node.field !== 'status' && node.field !== 'taskName')) return null;
  const p = node.predicate;
  if (p.op === 'eq') return { field: node.field, values: [p.value] };
  if (p.op === 'in') return { field: node.field, values: p.values };
  return null;
}

function shapeOf(node: TaskNode): Shape | null {
  const nodes = node.kind === 'and' ? node.nodes : [node];
  const shape: Shape = {};
  for (const n of nodes) {
    const leaf = valuesOf(n);
    if (leaf === null) return null;
    const key = leaf.field === 'status' ? 'statuses' : 'names';
    if (shape[key] !== undefined) return null;
    shape[key] = leaf.values;
  }
  return shape;
}

/** The query on the instance documents' task states for a task filter of that shape, or null for any other filter. */
export function taskStatesQuery(node: TaskNode): Query | null {
  const shape = shapeOf(node);
  if (shape === null || shape.statuses === undefined) return null;
  const { statuses, names } = shape;
  // Only the statuses a task document holds (filter-translation.ts already refuses others; a '/' would shift the
  // split), and no more terms than a terms query takes (index.max_terms_count): otherwise the task index answers.
  if (!statuses.every((s) => STATUSES.has(s))) return null;
  if (statuses.length * (names?.length ?? 1) > MAX_TERMS_COUNT) return null;
  if (statuses.length === 0 || names?.length === 0) return MATCH_NONE;
  if (names !== undefined) return terms(TASK_STATES_FIELD, statuses.flatMap((s) => names.map((n) => taskState(s, n))));
  return or(statuses.map((s) => ({ prefix: { [TASK_STATES_FIELD]: { value: taskState(s, '') } } })));
}

/**
 * Whether every run has complete task states (then taskStatesQuery answers for the two steps): the number of runs
 * marked complete equals the number of runs, counted before and after it. Counts of one term, which Lucene answers from
 * the postings (about 1 ms each at 1,000,000 runs); asking for a served run without the mark instead walks every
 * served run (14-30 ms).
 * Placeholder runs are counted too: this release writes their states as well.
 */
export async function everyRunHasTaskStates(requests: Searcher, index: string): Promise<boolean> {
  const count = async (query: Query): Promise<number | undefined> =>
    (await requests.search(index, { query, size: 0, track_total_hits: true }, 'taskExecutions states check')).hits.total?.value;
  // Each search reads the index as of its own refresh: the runs counted before and after the complete ones, all
  // equal, so that runs written between the two reads cannot make an incomplete one look complete.
  const before = await count(MATCH_ALL);
  const complete = await count(term(TASK_STATES_COMPLETE_FIELD, true));
  const after = await count(MATCH_ALL);
  return before !== undefined && complete === before && after === before;
}
