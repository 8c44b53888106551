// The read-only boundary between the GraphQL layer and a storage backend (DESIGN.md, Boundaries).
// Resolvers only ever see this interface; each backend translates the filter tree itself
// (SQL with bind parameters for PostgreSQL, query DSL for OpenSearch).
import type { WorkPrices } from './filter-work.js';
import type { TextOperator } from './text-operators.js';
import type { ErrorCountRecord, StatsBucketRecord, StatsQuery, TaskFailureCountRecord, TopErrorsQuery, TopFailingTasksQuery } from './stats.js';

/** ISO-8601 UTC timestamp with exactly six fractional digits, e.g. `2026-05-12T09:14:03.512337Z`. */
export type Timestamp = string;

export interface ErrorRecord {
  readonly type: string | null;
  readonly title: string | null;
  readonly detail: string | null;
  readonly status: number | null;
  readonly instance: string | null;
}

export type WorkflowInstanceStatus = 'RUNNING' | 'COMPLETED' | 'FAULTED' | 'CANCELLED' | 'SUSPENDED';

export interface WorkflowInstanceRecord {
  readonly id: string;
  readonly name: string;
  readonly namespace: string | null;
  readonly version: string | null;
  readonly status: WorkflowInstanceStatus;
  readonly startDate: Timestamp | null;
  readonly endDate: Timestamp | null;
  readonly lastUpdate: Timestamp | null;
  /** JSON text of the payload; null when absent or JSON null. Omitted (undefined) when not selected. */
  readonly inputData?: string | null;
  readonly outputData?: string | null;
  /** null when no error field is set. */
  readonly error: ErrorRecord | null;
  /**
   * Its task executions (chronological, as tasksOfInstances), when `getInstance` was asked for them with
   * `options.tasks` and the backend read them with the instance; absent otherwise (then they are loaded in a batch).
   */
  readonly tasks?: readonly TaskExecutionRecord[];
}

export interface TaskExecutionRecord {
  readonly id: string;
  readonly workflowInstanceId: string;
  readonly taskName: string;
  readonly taskPosition: string;
  /** RUNNING | COMPLETED | FAULTED | CANCELLED (| SUSPENDED for a suspended task) */
  readonly status: string;
  readonly startDate: Timestamp | null;
  readonly endDate: Timestamp | null;
  readonly inputData?: string | null;
  readonly outputData?: string | null;
  readonly error: ErrorRecord | null;
}

/**
 * One event of a run's history (CONTRACT §9 `WorkflowInstance.events`): an accepted event from the backend's event
 * store, or a rejected raw event attributed to the run. Backends build it with `workflowEventRecord` (event-record.ts),
 * so both derive every served field and the order key from the stored text alike.
 */
export interface WorkflowEventRecord {
  readonly type: string;
  /** The event's own timestamp as the normalizer parses it; null when it cannot be read. */
  readonly time: Timestamp | null;
  readonly taskPosition: string | null;
  readonly taskName: string | null;
  readonly accepted: boolean;
  /** Why the normalizer rejected it; null when accepted. */
  readonly rejection: string | null;
  /** The event as stored, JSON text. Omitted (undefined) when payloads were not asked for; null when redacted or gone. */
  readonly data?: string | null;
  /** The order key's last part: a digest of the stored content and the rejection (event-order.ts). */
  readonly digest: string;
}

// ---------------------------------------------------------------------------------------------
// Filter tree. Built and validated by server/core from the GraphQL input; backends translate it.
// Semantics (CONTRACT.md "Rules both backends share"):
//  - two-valued logic: a leaf on a missing (null) value is false, except `isNull: true`;
//    `not` matches exactly the rows its operand does not match (nulls included).
//  - string comparison and order by Unicode code point, case-sensitive.
//  - `in` with an empty list matches nothing.
//  - `like` patterns are already parsed: see LikeSegment (no backend re-interprets `*`/`?`).
// ---------------------------------------------------------------------------------------------

export type InstanceStringField = 'id' | 'name' | 'namespace' | 'version' | 'status'
  | 'error.type' | 'error.title' | 'error.detail' | 'error.instance';
export type InstanceTimeField = 'startDate' | 'endDate' | 'lastUpdate';
export type TaskStringField = 'id' | 'workflowInstanceId' | 'taskName' | 'taskPosition' | 'status'
  | 'error.type' | 'error.title' | 'error.detail' | 'error.instance';
export type TaskTimeField = 'startDate' | 'endDate';
export type IntField = 'error.status';
export type JsonField = 'input' | 'output';

/** A `like` pattern: literal text, `*` (any run, possibly empty) and `?` (exactly one character). */
export type LikeSegment = { readonly kind: 'literal'; readonly text: string } | { readonly kind: 'any' } | { readonly kind: 'one' };

export type StringPredicate =
  | { readonly op: TextOperator; readonly value: string }
  | { readonly op: 'in'; readonly values: readonly string[] }
  | { readonly op: 'like'; readonly pattern: readonly LikeSegment[] }
  | { readonly op: 'isNull'; readonly value: boolean };

export type TimePredicate =
  | { readonly op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; readonly value: Timestamp }
  | { readonly op: 'between'; readonly from: Timestamp; readonly to: Timestamp } // inclusive
  | { readonly op: 'isNull'; readonly value: boolean };

export type IntPredicate =
  | { readonly op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; readonly value: number }
  | { readonly op: 'in'; readonly values: readonly number[] };

/**
 * A filter tree whose leaves are the field conditions plus `X`. `FilterNode`, what a Reader receives, adds every
 * ComplexLeaf; `SimpleFilterNode` has none (a backend may answer such a tree on a faster path of its own).
 */
export type FilterTree<S extends string, T extends string, X> =
  | { readonly kind: 'and'; readonly nodes: readonly FilterTree<S, T, X>[] } // empty: matches everything
  | { readonly kind: 'or'; readonly nodes: readonly FilterTree<S, T, X>[] } // empty: matches nothing
  | { readonly kind: 'not'; readonly node: FilterTree<S, T, X> }
  | X
  | { readonly kind: 'string'; readonly field: S; readonly predicate: StringPredicate }
  | { readonly kind: 'time'; readonly field: T; readonly predicate: TimePredicate }
  | { readonly kind: 'int'; readonly field: IntField; readonly predicate: IntPredicate }
  /**
   * JSON path equality: the value at `path` (object keys; a segment of digits also indexes arrays)
   * equals `value` as text (JSON string), or numerically when both parse as numbers, or as a
   * boolean (`"true"`/`"false"`). A missing path never matches.
   */
  | { readonly kind: 'json'; readonly field: JsonField; readonly path: readonly string[]; readonly value: string };

/** A filter of field conditions only: no JSON operator beyond equality, no duration, no relation. */
export type SimpleFilterNode<S extends string, T extends string> = FilterTree<S, T, never>;

export type SimpleInstanceFilter = SimpleFilterNode<InstanceStringField, InstanceTimeField>;
export type SimpleTaskFilter = SimpleFilterNode<TaskStringField, TaskTimeField>;

/**
 * Operators on a JSON path beyond equality. `ne`: the path exists and does not equal (as `json`);
 * `gt`…`lte`: numerically when `value` is a JSON number (only numbers match), otherwise as text by code point
 * against strings only; `in`: equals one of (as `json`; empty matches nothing); `contains`: a JSON string containing
 * `value` literally; `exists`: the path is present (any value, JSON null included) / absent.
 */
export type JsonPredicate =
  | { readonly op: 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains'; readonly value: string }
  | { readonly op: 'in'; readonly values: readonly string[] }
  | { readonly op: 'exists'; readonly value: boolean };

/** A duration (endDate − startDate) in milliseconds, fractions down to microseconds; missing while either time is. */
export type DurationPredicate =
  | { readonly op: 'gt' | 'gte' | 'lt' | 'lte'; readonly value: number }
  | { readonly op: 'isNull'; readonly value: boolean };

/**
 * The leaf kinds beyond field conditions:
 *  - `jsonOp`: a JsonPredicate on a payload path.
 *  - `duration`: a DurationPredicate on endDate − startDate.
 *  - `tasks` (instance filters only): at least one task execution of the instance matches `node`.
 *  - `instance` (task filters only): the task's workflow instance matches `node` (its name, namespace, version).
 */
export type ComplexLeaf =
  | { readonly kind: 'jsonOp'; readonly field: JsonField; readonly path: readonly string[]; readonly predicate: JsonPredicate }
  | { readonly kind: 'duration'; readonly predicate: DurationPredicate }
  | { readonly kind: 'tasks'; readonly node: TaskFilter }
  | { readonly kind: 'instance'; readonly node: InstanceFilter };

export type FilterNode<S extends string, T extends string> = FilterTree<S, T, ComplexLeaf>;
export type InstanceFilter = FilterNode<InstanceStringField, InstanceTimeField>;
export type TaskFilter = FilterNode<TaskStringField, TaskTimeField>;

export type Direction = 'ASC' | 'DESC';
export type SimpleInstanceSortField = 'id' | 'name' | 'namespace' | 'version' | 'status' | 'startDate' | 'endDate' | 'lastUpdate';
export type SimpleTaskSortField = 'id' | 'taskName' | 'taskPosition' | 'status' | 'startDate' | 'endDate';
/** `duration`: endDate − startDate, nulls last. */
export type InstanceSortField = SimpleInstanceSortField | 'duration';
export type TaskSortField = SimpleTaskSortField | 'duration';
export interface SortKey<F extends string> { readonly field: F; readonly direction: Direction }

/** The default order of both list queries when orderBy is empty (then `id ASC`). */
export const DEFAULT_LIST_ORDER: readonly SortKey<'startDate'>[] = Object.freeze([Object.freeze({ field: 'startDate', direction: 'DESC' })]);

/**
 * The order a list query really has: the client's keys (or the default when there are none), then `id ASC`
 * unless `id` is one of the keys. A keyset position has one value per key of it, in this order.
 */
export function effectiveSortKeys<S extends string>(orderBy: readonly SortKey<S>[], defaults: readonly SortKey<S>[]): SortKey<S>[] {
  const keys = orderBy.length > 0 ? [...orderBy] : [...defaults];
  if (!keys.some((k) => k.field === 'id')) keys.push({ field: 'id' as S, direction: 'ASC' });
  return keys;
}

/**
 * A keyset position (decoded `after` cursor): the sort values of the row to continue after, one per key of
 * `effectiveSortKeys(orderBy, DEFAULT_LIST_ORDER)`; timestamps as `Timestamp`, null for a missing value. The
 * backend returns the rows strictly after it in that order (nulls last, so after a null come only nulls).
 */
export interface KeysetPosition {
  readonly values: readonly (string | null)[];
}

export interface ListQuery<F, S extends string> {
  readonly filter: F | null;
  /** In the order the client wrote them. The backend appends `id ASC` as the final tie-breaker; nulls sort last. */
  readonly orderBy: readonly SortKey<S>[];
  /** Continue after this position; `offset` then counts from there. Absent/null: from the start. */
  readonly after?: KeysetPosition | null;
  readonly limit: number;
  readonly offset: number;
  /** false when the request selects neither inputData nor outputData: the backend may skip loading them. */
  readonly payloads: boolean;
}

export type { WorkPrices } from './filter-work.js';

export interface IngestionStats {
  /** Raw events received, per raw store (e.g. workflow / task). */
  readonly rawEvents: Readonly<Record<string, number>>;
  readonly ingestErrors: number;
  /** Newest event timestamp among normalized rows, or null when empty. */
  readonly newestEventTime: Timestamp | null;
  /** Instances with events stored but no workflow.started yet (not served). */
  readonly placeholderInstances: number;
  readonly instances: number;
  readonly taskExecutions: number;
  /** Replay lag of the streaming replica the backend reads from, in seconds; null or absent when not a replica. */
  readonly replicationLagSeconds?: number | null;
}

/** A number of matching rows: exact up to the limit asked for, the backend's estimate (`exact: false`) above it. */
export interface Count {
  readonly value: number;
  readonly exact: boolean;
}

export interface CountOptions {
  /** Count exactly while at most this many rows match (COUNT_EXACT_LIMIT); above it estimate, never below limit + 1. */
  readonly exactLimit: number;
}

/** The statuses in the order of the GraphQL enum (and of workflowInstanceStatusCounts). */
export const INSTANCE_STATUSES: readonly WorkflowInstanceStatus[] = Object.freeze(['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED']);

/** Pool gauges for metrics; a backend without a pool returns null. */
export interface PoolStats { readonly total: number; readonly idle: number; readonly waiting: number }

/** Thrown by a Reader when the backend cannot be reached or times out (served as SERVICE_UNAVAILABLE). */
export class BackendUnavailableError extends Error {
  override readonly name = 'BackendUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Thrown by a Reader when a query ran past its time on a backend that answers (served as QUERY_TIMEOUT: the same query
 * would time out again, so clients do not retry it). A backend that does not answer at all is BackendUnavailableError.
 */
export class QueryTimeoutError extends Error {
  override readonly name = 'QueryTimeoutError';
  constructor(
    message: string,
    /** The time the backend allows a query, and the setting that says so. */
    readonly limit: { readonly ms: number; readonly setting: string },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface Reader {
  /**
   * Unknown id, or a placeholder instance: null. With `tasks`, the backend may read the instance's task executions
   * in the same round trip (into `tasks` of the record, payloads as `tasks.payloads` says).
   */
  getInstance(id: string, options: { payloads: boolean; tasks?: { payloads: boolean } }): Promise<WorkflowInstanceRecord | null>;
  /** Default order when orderBy is empty: startDate DESC, id ASC. Placeholders never returned. */
  listInstances(query: ListQuery<InstanceFilter, InstanceSortField>): Promise<WorkflowInstanceRecord[]>;
  getTask(id: string, options: { payloads: boolean }): Promise<TaskExecutionRecord | null>;
  /** Default order when orderBy is empty: startDate DESC, id ASC. Tasks of placeholders never returned. */
  listTasks(query: ListQuery<TaskFilter, TaskSortField>): Promise<TaskExecutionRecord[]>;
  /** How many match: exact up to `exactLimit`, the backend's estimate above it. Placeholders never counted. */
  countInstances(filter: InstanceFilter | null, options: CountOptions): Promise<Count>;
  countTasks(filter: TaskFilter | null, options: CountOptions): Promise<Count>;
  /** Per status (every status a key, exactness per status), in one round trip where the backend can. */
  countInstancesByStatus(filter: InstanceFilter | null, options: CountOptions): Promise<Readonly<Record<WorkflowInstanceStatus, Count>>>;
  /**
   * Task executions of many instances in one round trip, each list chronological
   * (startDate ASC nulls last, then endDate, then id). Every requested id is a key of the result
   * (unknown or placeholder instances map to []).
   */
  tasksOfInstances(instanceIds: readonly string[], options: { payloads: boolean }): Promise<Map<string, TaskExecutionRecord[]>>;
  /** Runs bucketed by startDate (stats.ts states the rules); at most `maxBuckets + 1` buckets, in bucket order. */
  workflowStats(query: StatsQuery): Promise<StatsBucketRecord[]>;
  /** FAULTED runs grouped by error (type, title, status), in compareErrorCounts order, at most `limit`. */
  topErrors(query: TopErrorsQuery): Promise<ErrorCountRecord[]>;
  /** FAULTED task executions grouped by (taskPosition, taskName, workflowName), compareTaskFailureCounts order, at most `limit`. */
  topFailingTasks(query: TopFailingTasksQuery): Promise<TaskFailureCountRecord[]>;
  /**
   * Every event the backend holds for each run, in no particular order (the caller orders them, event-order.ts):
   * accepted ones once per event identity, and every rejected raw event recorded against the run (one per distinct
   * content and reason). Every requested id is a key of the result (unknown ids map to []). `payloads`: fill `data`.
   */
  eventsOfInstances(instanceIds: readonly string[], options: { payloads: boolean }): Promise<Map<string, WorkflowEventRecord[]>>;
  /** Rejects with BackendUnavailableError when the backend does not answer within timeoutMs. */
  ping(timeoutMs: number): Promise<void>;
  ingestionStats(): Promise<IngestionStats>;
  poolStats(): PoolStats | null;
  close(): Promise<void>;
  /** The backend's name as served in `indexStatus.backend` (e.g. `postgresql`). */
  readonly backendName: string;
  /** What the backend's work costs in the query cost (its calibration, docs/query-cost.md). */
  readonly workPrices: WorkPrices;
}
