// The queries of the console: the runs list with its counts, a run with its task executions, the index's freshness.
import { baseFilter, withStatuses } from './filters.ts';
import { graphql } from './graphql.ts';
import { STATUSES } from './view-state.ts';
import type { ListView, Status } from './view-state.ts';

export interface Count {
  readonly value: number;
  /** false: more than COUNT_EXACT_LIMIT match (PostgreSQL then gives its estimate). */
  readonly exact: boolean;
}

export interface RunRow {
  readonly id: string;
  readonly name: string;
  readonly namespace: string | null;
  readonly version: string | null;
  readonly status: Status;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly lastUpdate: string | null;
  /** From the server when it has durationMs; otherwise computed here (durationOf). */
  readonly durationMs?: number | null;
}

export interface RunsPage {
  readonly rows: readonly RunRow[];
  readonly total: Count;
  readonly counts: Readonly<Record<Status, Count>>;
}

export interface ProblemDetails {
  readonly type: string | null;
  readonly title: string | null;
  readonly detail: string | null;
  readonly status: number | null;
  readonly instance: string | null;
}

export interface TaskRow {
  readonly id: string;
  readonly taskName: string;
  readonly taskPosition: string;
  readonly status: string;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly inputData: string | null;
  readonly outputData: string | null;
  readonly error: ProblemDetails | null;
}

export interface Run extends RunRow {
  readonly inputData: string | null;
  readonly outputData: string | null;
  readonly error: ProblemDetails | null;
  readonly taskExecutions: readonly TaskRow[];
}

export interface Freshness {
  /** Newest event time the index holds (ISO), or null when empty. */
  readonly newestEventTime: string | null;
  /** Seconds between that event and now, as the server measured it (null: computed here). */
  readonly lagSeconds: number | null;
}

const ROW_FIELDS = 'id name namespace version status startDate endDate lastUpdate';
const ERROR_FIELDS = 'error { type title detail status instance }';

function orderBy(list: ListView): Record<string, string> {
  return { [list.sort]: list.direction };
}

export async function listRuns(list: ListView, now: number, signal?: AbortSignal): Promise<RunsPage> {
  const base = baseFilter(list, now);
  const filter = withStatuses(base, list.statuses);
  const page = { limit: list.size, offset: (list.page - 1) * list.size, orderBy: orderBy(list) };
  const data = await graphql<{
    runs: RunRow[];
    total: Count;
    counts: { status: Status; count: Count }[];
  }>(
    `query ConsoleRuns($filter: WorkflowInstanceFilterInput, $base: WorkflowInstanceFilterInput, $limit: Int, $offset: Int, $orderBy: WorkflowInstanceOrderByInput) {
  runs: getWorkflowInstances(filter: $filter, limit: $limit, offset: $offset, orderBy: $orderBy) { ${ROW_FIELDS} durationMs }
  total: countWorkflowInstances(filter: $filter) { value exact }
  counts: workflowInstanceStatusCounts(filter: $base) { status count { value exact } }
}`,
    { filter, base, ...page },
    signal,
  );
  const counts = Object.fromEntries(STATUSES.map((s) => [s, data.counts.find((c) => c.status === s)?.count ?? { value: 0, exact: true }]));
  return { rows: data.runs, total: data.total, counts: counts as Record<Status, Count> };
}

const RUN_FIELDS = `${ROW_FIELDS} inputData outputData ${ERROR_FIELDS}
    taskExecutions { id taskName taskPosition status startDate endDate inputData outputData ${ERROR_FIELDS} }`;

export const RUN_QUERY = `query ConsoleRun($id: ID!) {
  getWorkflowInstance(id: $id) {
    ${RUN_FIELDS}
  }
}`;

/** The run page's live updates: the same fields as RUN_QUERY, pushed on every change of the run. */
export const RUN_SUBSCRIPTION = `subscription ConsoleRunLive($filter: WorkflowInstanceFilterInput) {
  workflowInstanceChanged(filter: $filter) { ${RUN_FIELDS} }
}`;

/** The runs list's live updates: a row's fields, for the list's filter without its statuses. */
export const ROWS_SUBSCRIPTION = `subscription ConsoleRunsLive($filter: WorkflowInstanceFilterInput) {
  workflowInstanceChanged(filter: $filter) { ${ROW_FIELDS} durationMs }
}`;

export async function getRun(id: string, signal?: AbortSignal): Promise<Run | null> {
  const data = await graphql<{ getWorkflowInstance: Run | null }>(RUN_QUERY, { id }, signal);
  return data.getWorkflowInstance;
}

/** The run query with the id written in, as GraphiQL opens it from a link (it takes no variables from the URL). */
export function runQueryFor(id: string): string {
  return RUN_QUERY.replace('query ConsoleRun($id: ID!)', 'query Run').replace('getWorkflowInstance(id: $id)', `getWorkflowInstance(id: ${JSON.stringify(id)})`);
}

export async function getFreshness(signal?: AbortSignal): Promise<Freshness> {
  const data = await graphql<{ indexStatus: Freshness }>('query ConsoleFreshness { indexStatus { newestEventTime lagSeconds } }', {}, signal);
  return data.indexStatus;
}

export interface Suggestions {
  readonly names: readonly string[];
  readonly namespaces: readonly string[];
  readonly versions: readonly string[];
}

/** How many of the newest runs the filter suggestions are read from: one cheap page (three short fields, no count). */
export const SUGGESTION_RUNS = 100;

/** Distinct names, namespaces and versions among the newest runs, for the filters' suggestion lists. */
export async function getSuggestions(signal?: AbortSignal): Promise<Suggestions> {
  const data = await graphql<{ runs: { name: string; namespace: string | null; version: string | null }[] }>(
    `query ConsoleSuggestions($limit: Int) { runs: getWorkflowInstances(limit: $limit, orderBy: {startDate: DESC}) { name namespace version } }`,
    { limit: SUGGESTION_RUNS },
    signal,
  );
  const distinct = (values: readonly (string | null)[]): string[] => [...new Set(values.filter((v): v is string => v !== null && v !== ''))].sort();
  return { names: distinct(data.runs.map((r) => r.name)), namespaces: distinct(data.runs.map((r) => r.namespace)), versions: distinct(data.runs.map((r) => r.version)) };
}

export interface RunEvent {
  readonly type: string;
  readonly time: string | null;
  readonly taskPosition: string | null;
  readonly taskName: string | null;
  readonly accepted: boolean;
  readonly rejection: string | null;
  readonly data: string | null;
  readonly cursor: string;
}

/** One page of a run's event history (null: no such run, or not visible), after the event of `after`. */
export async function getRunEvents(id: string, limit: number, after: string | null, signal?: AbortSignal): Promise<RunEvent[] | null> {
  const data = await graphql<{ run: { events: RunEvent[] } | null }>(
    `query ConsoleRunEvents($id: ID!, $limit: Int, $after: String) {
  run: getWorkflowInstance(id: $id) { events(limit: $limit, after: $after) { type time taskPosition taskName accepted rejection data cursor } }
}`,
    { id, limit, after },
    signal,
  );
  return data.run?.events ?? null;
}

export interface DurationRow {
  readonly start: string;
  readonly name: string | null;
  readonly durationMs: { readonly p50: number | null; readonly p90: number | null; readonly p99: number | null; readonly max: number | null; readonly count: number } | null;
}

export interface ErrorCount {
  readonly type: string | null;
  readonly title: string | null;
  readonly status: number | null;
  readonly count: number;
  readonly lastSeen: string;
}

export interface TaskFailureCount {
  readonly taskName: string | null;
  readonly taskPosition: string;
  readonly workflowName: string | null;
  readonly count: number;
}

export interface Insights {
  readonly overTime: readonly { readonly start: string; readonly statusCounts: readonly { readonly status: Status; readonly count: number }[] }[];
  readonly durations: readonly DurationRow[];
  readonly errors: readonly ErrorCount[];
  readonly tasks: readonly TaskFailureCount[];
}

export const TOP_LIMIT = 10;

/** The insights page in one request: runs per status over time, duration percentiles per workflow, the top errors
 * and failing tasks of the range (runs by their start; task executions by theirs). */
export async function getInsights(range: { from: string; to: string; interval: string; durations: string; last: string }, signal?: AbortSignal): Promise<Insights> {
  return graphql<Insights>(
    `query ConsoleInsights($from: String!, $to: String!, $interval: StatsInterval!, $durations: StatsInterval!, $runs: WorkflowInstanceFilterInput, $tasks: TaskExecutionFilterInput, $limit: Int) {
  overTime: workflowStats(interval: $interval, from: $from, to: $to) { start statusCounts { status count } }
  durations: workflowStats(interval: $durations, from: $from, to: $to, groupBy: ["name"]) { start name durationMs { p50 p90 p99 max count } }
  errors: topErrors(filter: $runs, limit: $limit) { type title status count lastSeen }
  tasks: topFailingTasks(filter: $tasks, limit: $limit) { taskName taskPosition workflowName count }
}`,
    {
      from: range.from,
      to: range.to,
      interval: range.interval,
      durations: range.durations,
      runs: { startDate: { gte: range.from, lte: range.last } },
      tasks: { startDate: { gte: range.from, lte: range.last } },
      limit: TOP_LIMIT,
    },
    signal,
  );
}
