// Statistics over runs and task executions (workflowStats, topErrors, topFailingTasks): the query and answer shapes a
// Reader works with, and the rules both backends share so they answer identically (docs/statistics.md):
//  - a run falls in the bucket of its startDate floored to the UTC minute / hour / day; `from` inclusive, `to` exclusive;
//  - buckets are sparse (only those holding a run), ordered by start, then the grouped fields by code point, nulls last;
//  - durations are endDate − startDate of finished runs (endDate set), whole microseconds, served in ms;
//  - percentiles are exact nearest-rank: the value at rank ceil(p·n) of the ascending durations, computed in integers.
import type { InstanceFilter, TaskFilter, Timestamp, WorkflowInstanceStatus } from './reader.js';

export type StatsInterval = 'MINUTE' | 'HOUR' | 'DAY';
export const STATS_INTERVALS: readonly StatsInterval[] = Object.freeze(['MINUTE', 'HOUR', 'DAY']);
/** The length of each interval in microseconds (UTC has no leap seconds in epoch time, so every day is 86,400 s). */
export const INTERVAL_MICROS: Readonly<Record<StatsInterval, bigint>> = Object.freeze({ MINUTE: 60_000_000n, HOUR: 3_600_000_000n, DAY: 86_400_000_000n });

export type StatsGroupField = 'name' | 'namespace' | 'version';
/** The fields `groupBy` accepts, in the order the key of a bucket lists them (and buckets sort by them). */
export const STATS_GROUP_FIELDS: readonly StatsGroupField[] = Object.freeze(['name', 'namespace', 'version']);

/** At most this many buckets (intervals × groups) per workflowStats answer. */
export const MAX_STATS_BUCKETS = 10_000;
/** topErrors / topFailingTasks: the limit when none is given, and the largest accepted. */
export const DEFAULT_TOP_LIMIT = 10;
export const MAX_TOP_LIMIT = 100;

/** Percentiles served, as whole percents (integers keep the rank exact: ceil(pct·n / 100)). */
export const STATS_PERCENTILES = Object.freeze({ p50: 50, p90: 90, p99: 99 });

export interface StatsQuery {
  readonly filter: InstanceFilter | null;
  readonly interval: StatsInterval;
  /** Inclusive lower bound of startDate. */
  readonly from: Timestamp;
  /** Exclusive upper bound of startDate. */
  readonly to: Timestamp;
  /** Distinct, in STATS_GROUP_FIELDS order. */
  readonly groupBy: readonly StatsGroupField[];
  /** The backend returns at most maxBuckets + 1 buckets (the first ones in order), so the caller can refuse the rest. */
  readonly maxBuckets: number;
}

/** Durations of the finished runs of a bucket, in microseconds (whole). */
export interface DurationSummaryRecord {
  readonly count: number;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p99: number | null;
  readonly max: number | null;
}

export interface StatsBucketRecord {
  /** The bucket's start, a Timestamp (six fractional digits). */
  readonly start: Timestamp;
  /** The grouped fields' values (null: the run has none); a field not grouped is absent. */
  readonly group: Readonly<Partial<Record<StatsGroupField, string | null>>>;
  /** Runs per status; every status a key, zeros included. */
  readonly statusCounts: Readonly<Record<WorkflowInstanceStatus, number>>;
  readonly durations: DurationSummaryRecord;
}

export interface TopQuery<F> {
  readonly filter: F | null;
  readonly limit: number;
}

export interface ErrorCountRecord {
  readonly type: string | null;
  readonly title: string | null;
  readonly status: number | null;
  readonly count: number;
  /** The newest endDate among the group's runs; the newest lastUpdate when none of them has an endDate. */
  readonly lastSeen: Timestamp;
}

export interface TaskFailureCountRecord {
  readonly taskPosition: string;
  readonly taskName: string | null;
  readonly workflowName: string | null;
  readonly count: number;
}

export type TopErrorsQuery = TopQuery<InstanceFilter>;
export type TopFailingTasksQuery = TopQuery<TaskFilter>;

/** The 1-based nearest rank of a whole percent among n values: ceil(pct·n / 100), exact in integers. */
export function nearestRank(pct: number, n: number): number {
  return Math.floor((pct * n + 99) / 100);
}

/** The summary of durations (µs) already sorted ascending. */
export function summarizeSortedDurations(sorted: readonly number[]): DurationSummaryRecord {
  const n = sorted.length;
  const at = (pct: number): number | null => (n === 0 ? null : (sorted[nearestRank(pct, n) - 1] ?? null));
  return { count: n, p50: at(STATS_PERCENTILES.p50), p90: at(STATS_PERCENTILES.p90), p99: at(STATS_PERCENTILES.p99), max: n === 0 ? null : (sorted[n - 1] ?? null) };
}

/** Code-point order of two strings, nulls last (the contract's string order). */
export function compareCodePoints(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const left = Array.from(a);
  const right = Array.from(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const l = left[i]!.codePointAt(0)!;
    const r = right[i]!.codePointAt(0)!;
    if (l !== r) return l < r ? -1 : 1;
  }
  return left.length - right.length;
}

const compareNumbers = (a: number | null, b: number | null): number => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a - b);

/** Bucket order: start, then the grouped fields (code point, nulls last). */
export function compareBuckets(a: StatsBucketRecord, b: StatsBucketRecord): number {
  if (a.start !== b.start) return a.start < b.start ? -1 : 1; // same fixed-width format: text order is time order
  for (const field of STATS_GROUP_FIELDS) {
    const order = compareCodePoints(a.group[field] ?? null, b.group[field] ?? null);
    if (order !== 0) return order;
  }
  return 0;
}

/** topErrors order: count descending, then type, title (code point) and status ascending, nulls last. */
export function compareErrorCounts(a: ErrorCountRecord, b: ErrorCountRecord): number {
  return b.count - a.count || compareCodePoints(a.type, b.type) || compareCodePoints(a.title, b.title) || compareNumbers(a.status, b.status);
}

/** topFailingTasks order: count descending, then workflowName, taskPosition, taskName (code point, nulls last). */
export function compareTaskFailureCounts(a: TaskFailureCountRecord, b: TaskFailureCountRecord): number {
  return (
    b.count - a.count ||
    compareCodePoints(a.workflowName, b.workflowName) ||
    compareCodePoints(a.taskPosition, b.taskPosition) ||
    compareCodePoints(a.taskName, b.taskName)
  );
}

/** A duration in whole microseconds as served: milliseconds with the microseconds as fraction. */
export const microsToMillis = (micros: number | null): number | null => (micros === null ? null : micros / 1000);
