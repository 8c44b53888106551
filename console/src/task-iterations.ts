// Which execution of its position a task execution is (loops and retries repeat a position), and which execution
// raised a run's error. Pure: tested without a browser.

export interface PositionedTask {
  readonly id: string;
  readonly taskPosition: string;
  readonly status: string;
  readonly startDate: string | null;
}

export interface Iteration {
  /** 1-based, in start order (as the timeline numbers its bars). */
  readonly number: number;
  readonly of: number;
  /** `iteration` inside a loop or another task, `attempt` under a try, `execution` at the top level. */
  readonly kind: 'iteration' | 'attempt' | 'execution';
}

/** A position as the API serves it or as an error's `instance` may write it (a JSON pointer with a leading `/`). */
export function samePosition(a: string, b: string): boolean {
  return a.replace(/^\//, '') === b.replace(/^\//, '');
}

function startOf(task: PositionedTask): number {
  const at = task.startDate === null ? Number.NaN : Date.parse(task.startDate);
  return Number.isNaN(at) ? Number.POSITIVE_INFINITY : at;
}

/** Executions at one position in start order (no start: last), ties by id, as the timeline lays them out. */
export function executionsAt<T extends PositionedTask>(tasks: readonly T[], position: string): T[] {
  return tasks.filter((t) => samePosition(t.taskPosition, position)).sort((a, b) => startOf(a) - startOf(b) || a.id.localeCompare(b.id));
}

export function iterationOf(tasks: readonly PositionedTask[], task: PositionedTask): Iteration {
  const siblings = executionsAt(tasks, task.taskPosition);
  const segments = task.taskPosition.replace(/^\//, '').split('/');
  // do/0/pickItems/do/0/pickItem: pickItem runs inside pickItems (a for loop); …/try/do/0/call: a retried call.
  const kind = segments.includes('try') ? 'attempt' : segments.length > 3 ? 'iteration' : 'execution';
  return { number: siblings.findIndex((t) => t.id === task.id) + 1, of: siblings.length, kind };
}

/** The execution a run's error names (`instance` is the position): the last faulted one there, else the last one. */
export function raisingTask<T extends PositionedTask>(tasks: readonly T[], instance: string | null): T | null {
  if (instance === null || instance.trim() === '') return null;
  const there = executionsAt(tasks, instance);
  const faulted = there.filter((t) => t.status === 'FAULTED');
  return faulted.at(-1) ?? there.at(-1) ?? null;
}
