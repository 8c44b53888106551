// The statistics as plain TypeScript over served records (the rules of @workflow-index/core stats.ts, written again
// without a database): what the conformance cases, the property tests and the RecordingReader compare backends with.
import {
  compareBuckets,
  compareErrorCounts,
  compareTaskFailureCounts,
  INSTANCE_STATUSES,
  INTERVAL_MICROS,
  formatMicros,
  parseDateTimeToMicros,
  summarizeSortedDurations,
} from '@workflow-index/core';
import type {
  ErrorCountRecord,
  StatsBucketRecord,
  StatsGroupField,
  StatsInterval,
  TaskExecutionRecord,
  TaskFailureCountRecord,
  WorkflowInstanceRecord,
  WorkflowInstanceStatus,
} from '@workflow-index/core';

export interface OracleStatsQuery {
  readonly interval: StatsInterval;
  readonly from: string;
  readonly to: string;
  readonly groupBy: readonly StatsGroupField[];
}

const micros = (t: string): bigint => parseDateTimeToMicros(t);

/** Buckets of `runs` (already filtered) as the backends must answer them, every bucket (no maxBuckets cut). */
export function oracleWorkflowStats(runs: readonly WorkflowInstanceRecord[], query: OracleStatsQuery): StatsBucketRecord[] {
  const from = micros(query.from);
  const to = micros(query.to);
  const width = INTERVAL_MICROS[query.interval];
  const groups = new Map<string, { start: bigint; group: Partial<Record<StatsGroupField, string | null>>; runs: WorkflowInstanceRecord[] }>();
  for (const run of runs) {
    if (run.startDate === null) continue;
    const start = micros(run.startDate);
    if (start < from || start >= to) continue;
    const floored = start - (((start % width) + width) % width);
    const group = Object.fromEntries(query.groupBy.map((f) => [f, run[f]])) as Partial<Record<StatsGroupField, string | null>>;
    const key = JSON.stringify([String(floored), group]);
    const entry = groups.get(key) ?? { start: floored, group, runs: [] };
    entry.runs.push(run);
    groups.set(key, entry);
  }
  return [...groups.values()]
    .map(({ start, group, runs: members }): StatsBucketRecord => {
      const statusCounts = Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, members.filter((r) => r.status === s).length])) as Record<WorkflowInstanceStatus, number>;
      const durations = members
        .filter((r) => r.endDate !== null && r.startDate !== null)
        .map((r) => Number(micros(r.endDate!) - micros(r.startDate!)))
        .sort((a, b) => a - b);
      return { start: formatMicros(start), group, statusCounts, durations: summarizeSortedDurations(durations) };
    })
    .sort(compareBuckets);
}

/** topErrors of `runs` (already filtered). */
export function oracleTopErrors(runs: readonly WorkflowInstanceRecord[], limit: number): ErrorCountRecord[] {
  const groups = new Map<string, { type: string | null; title: string | null; status: number | null; count: number; end: bigint | null; update: bigint | null }>();
  for (const run of runs) {
    if (run.status !== 'FAULTED') continue;
    const type = run.error?.type ?? null;
    const title = run.error?.title ?? null;
    const status = run.error?.status ?? null;
    const key = JSON.stringify([type, title, status]);
    const entry = groups.get(key) ?? { type, title, status, count: 0, end: null, update: null };
    entry.count++;
    const end = run.endDate === null ? null : micros(run.endDate);
    const update = run.lastUpdate === null ? null : micros(run.lastUpdate);
    if (end !== null && (entry.end === null || end > entry.end)) entry.end = end;
    if (update !== null && (entry.update === null || update > entry.update)) entry.update = update;
    groups.set(key, entry);
  }
  return [...groups.values()]
    .map(({ type, title, status, count, end, update }) => ({ type, title, status, count, lastSeen: formatMicros((end ?? update)!) }))
    .sort(compareErrorCounts)
    .slice(0, limit);
}

/** topFailingTasks of `tasks` (already filtered), each with its run's name. */
export function oracleTopFailingTasks(tasks: readonly (TaskExecutionRecord & { readonly workflowName: string | null })[], limit: number): TaskFailureCountRecord[] {
  const groups = new Map<string, TaskFailureCountRecord & { count: number }>();
  for (const task of tasks) {
    if (task.status !== 'FAULTED' && task.status !== 'FAILED') continue;
    const key = JSON.stringify([task.taskPosition, task.taskName, task.workflowName]);
    const entry = groups.get(key) ?? { taskPosition: task.taskPosition, taskName: task.taskName, workflowName: task.workflowName, count: 0 };
    entry.count++;
    groups.set(key, entry);
  }
  return [...groups.values()].sort(compareTaskFailureCounts).slice(0, limit);
}
