// The queries of the console. Each newer API field (counts, durations, index status: issue 9) is used when the
// server has it, with a fallback built from the contract's queries for servers that do not (see withFallback).
import { baseFilter, withStatuses } from './filters.ts';
import type { Filter } from './filters.ts';
import { graphql, withFallback } from './graphql.ts';
import { STATUSES } from './view-state.ts';
import type { ListView, Status } from './view-state.ts';

export interface Count {
  readonly value: number;
  /** false: an estimate (large tables) or a lower bound (the fallback stops counting at COUNT_CAP). */
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

/** The fallback counts by listing ids up to here (the default GRAPHQL_MAX_LIMIT; five lists fit the default cost budget). */
export const COUNT_CAP = 1000;

const ROW_FIELDS = 'id name namespace version status startDate endDate lastUpdate';
const ERROR_FIELDS = 'error { type title detail status instance }';

function orderBy(list: ListView): Record<string, string> {
  return { [list.sort]: list.direction };
}

export function listRuns(list: ListView, now: number, signal?: AbortSignal): Promise<RunsPage> {
  const base = baseFilter(list, now);
  const filter = withStatuses(base, list.statuses);
  const page = { limit: list.size, offset: (list.page - 1) * list.size, orderBy: orderBy(list) };
  return withFallback(
    'counts',
    async () => {
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
    },
    () => listRunsByListing(base, filter, page, list.statuses, signal),
  );
}

/**
 * Contract-only fallback: one request, the page plus, per status, its ids up to COUNT_CAP and one probe row past the
 * cap (which tells "exactly 1000" from "more than 1000").
 */
async function listRunsByListing(
  base: Filter,
  filter: Filter,
  page: { limit: number; offset: number; orderBy: Record<string, string> },
  statuses: readonly Status[],
  signal?: AbortSignal,
): Promise<RunsPage> {
  const variables: Record<string, unknown> = { filter, ...page, cap: COUNT_CAP };
  for (const s of STATUSES) variables[`f${s}`] = { ...base, status: { eq: s } };
  const data = await graphql<Record<string, { id: string }[]> & { runs: RunRow[] }>(
    `query ConsoleRunsFallback($filter: WorkflowInstanceFilterInput, $limit: Int, $offset: Int, $orderBy: WorkflowInstanceOrderByInput, $cap: Int, ${STATUSES.map((s) => `$f${s}: WorkflowInstanceFilterInput`).join(', ')}) {
  runs: getWorkflowInstances(filter: $filter, limit: $limit, offset: $offset, orderBy: $orderBy) { ${ROW_FIELDS} }
  ${STATUSES.map((s) => `${s}: getWorkflowInstances(filter: $f${s}, limit: $cap) { id }\n  ${s}_more: getWorkflowInstances(filter: $f${s}, limit: 1, offset: $cap) { id }`).join('\n  ')}
}`,
    variables,
    signal,
  );
  const counts = {} as Record<Status, Count>;
  for (const s of STATUSES) {
    const n = data[s]?.length ?? 0;
    counts[s] = (data[`${s}_more`]?.length ?? 0) > 0 ? { value: n, exact: false } : { value: n, exact: true };
  }
  const selected = statuses.length === 0 ? STATUSES : statuses;
  const total = selected.reduce((sum, s) => ({ value: sum.value + counts[s].value, exact: sum.exact && counts[s].exact }), { value: 0, exact: true });
  return { rows: data.runs, total, counts };
}

export const RUN_QUERY = `query ConsoleRun($id: ID!) {
  getWorkflowInstance(id: $id) {
    ${ROW_FIELDS} inputData outputData ${ERROR_FIELDS}
    taskExecutions { id taskName taskPosition status startDate endDate inputData outputData ${ERROR_FIELDS} }
  }
}`;

export async function getRun(id: string, signal?: AbortSignal): Promise<Run | null> {
  const data = await graphql<{ getWorkflowInstance: Run | null }>(RUN_QUERY, { id }, signal);
  return data.getWorkflowInstance;
}

/** The run query with the id written in, as GraphiQL opens it from a link (it takes no variables from the URL). */
export function runQueryFor(id: string): string {
  return RUN_QUERY.replace('query ConsoleRun($id: ID!)', 'query Run').replace('getWorkflowInstance(id: $id)', `getWorkflowInstance(id: ${JSON.stringify(id)})`);
}

export function getFreshness(signal?: AbortSignal): Promise<Freshness> {
  return withFallback(
    'indexStatus',
    async () => {
      const data = await graphql<{ indexStatus: Freshness }>('query ConsoleFreshness { indexStatus { newestEventTime lagSeconds } }', {}, signal);
      return data.indexStatus;
    },
    async () => {
      // Contract-only: the newest lastUpdate of any instance (workflow events; task events do not move it).
      const data = await graphql<{ newest: { lastUpdate: string | null }[] }>(
        'query ConsoleFreshnessFallback { newest: getWorkflowInstances(limit: 1, orderBy: {lastUpdate: DESC}) { lastUpdate } }',
        {},
        signal,
      );
      return { newestEventTime: data.newest[0]?.lastUpdate ?? null, lagSeconds: null };
    },
  );
}
