// The floor of bench:query --backend opensearch: for each row of the mix (bench/mix/query-mix.ts), the
// OpenSearch request(s) someone writing it by hand sends for the same question, at the same concurrency as the
// GraphQL measurement: a `_search`, a `_count`, an `_msearch`, or two steps where OpenSearch has no join (the runs of
// the matching task executions, then those runs). test/query-bench-floors.test.ts checks that each floor finds what
// GraphQL answers.
import type { Client } from '@opensearch-project/opensearch';
import { cursorIdOf, type MixQuery, queryMix } from '../mix/query-mix.js';
import { PATH_SEPARATOR, VALUE_SEPARATOR } from '@workflow-index/opensearch';
import { sortableNumber } from '@workflow-index/opensearch';
import type { NormalizedIndexNames } from '@workflow-index/opensearch';

const FIELDS = ['id', 'name', 'namespace', 'version', 'status', 'start_time', 'end_time', 'last_update'];
const TASK_FIELDS = ['id', 'instance_id', 'task_name', 'task_position', 'status', 'start_time', 'end_time'];
const SERVED = { term: { placeholder: false } };
const newestFirst = [{ start_time_us: { order: 'desc', missing: '_last' } }, { id: 'asc' }];
const oldestFirst = [{ start_time_us: { order: 'asc', missing: '_last' } }, { id: 'asc' }];
const taskOrder = [{ start_time_us: { order: 'asc', missing: '_last' } }, { end_time_us: { order: 'asc', missing: '_last' } }, { id: 'asc' }];

export type Search = { readonly index: string; readonly body: Record<string, unknown> };
/**
 * One hand-written request of the floor: `_search` on an index, `_count`, `_msearch` of several, or `steps` (the
 * second search needs the first's answer: the runs of matching task executions, then those runs).
 */
export type FloorRequest = Search | { readonly count: Search } | { readonly msearch: readonly Search[] } | { readonly steps: () => Promise<FloorAnswer> };

/** What a floor request found: the ids of its hits in order, a count, or counts by status (the tests compare it with GraphQL's answer). */
export type FloorAnswer = readonly string[] | number | Readonly<Record<string, number>>;

export interface QuerySpec extends MixQuery {
  /** The search the node needs for these variables, written by hand (the floor). */
  readonly floor: (variables: Record<string, unknown>) => FloorRequest;
}

export interface CursorRow { readonly id: string; readonly start: string; readonly startUs: number }

const micros = (iso: string): number => Date.parse(iso) * 1000;
type Filter = Record<string, { eq?: unknown; between?: { from: string; to: string } }>;
const filterOf = (v: Record<string, unknown>): Filter => v['filter'] as Filter;
const eq = (f: Filter, key: string): string => String(f[key]?.eq);

/** A term on the input's leaf entry `path = "value"` (json-leaves.ts: the path, VALUE_SEPARATOR, `s:` and the string). */
const leaf = (path: readonly string[], value: string): string => `${path.join(PATH_SEPARATOR)}${VALUE_SEPARATOR}s:${value}`;
/** The JSON operator of an `input` filter variable: [op, key path, operand]. */
function jsonOperand(v: Record<string, unknown>): [string, string[], Record<string, unknown>] {
  const [op, [operand]] = Object.entries((v['filter'] as { input: Record<string, Record<string, unknown>[]> }).input)[0] as [string, Record<string, unknown>[]];
  return [op, String(operand!['key']).split('.'), operand!];
}

/** The task filter of a run filter `{taskExecutions: {taskName, status}}` as a query on the task documents. */
function runTaskQuery(v: Record<string, unknown>): unknown {
  const tasks = (v['filter'] as { taskExecutions: Filter }).taskExecutions;
  return { bool: { filter: [SERVED, { term: { task_name: eq(tasks, 'taskName') } }, { term: { status: eq(tasks, 'status') } }] } };
}

/**
 * The floors of the bench:query mix on one node: per row the hand-written request(s) that answer the same question
 * (`querySpecs`), and the runner that sends one and returns what it found (`runFloor`).
 */
export function openSearchFloors(client: Client, NAMES: NormalizedIndexNames): { querySpecs: (instances: number, cursorRows: readonly CursorRow[]) => QuerySpec[]; runFloor: (request: FloorRequest) => Promise<FloorAnswer> } {
  interface Composite { aggregations: { runs: { buckets: { key: { id: string } }[]; after_key?: { id: string } } } }

  /** The distinct runs of the task executions `query` matches: a composite aggregation read in pages of 10,000. */
  async function runsOf(query: unknown): Promise<string[]> {
    const ids: string[] = [];
    let after: { id: string } | undefined;
    for (;;) {
      const composite = { size: 10_000, sources: [{ id: { terms: { field: 'instance_id' } } }], ...(after === undefined ? {} : { after }) };
      const response = await client.transport.request({ method: 'POST', path: `/${NAMES.taskExecutions}/_search`, body: { track_total_hits: false, size: 0, query, aggs: { runs: { composite } } } });
      const runs = (response.body as Composite).aggregations.runs;
      ids.push(...runs.buckets.map((b) => b.key.id));
      if (runs.buckets.length < 10_000 || runs.after_key === undefined) return ids;
      after = runs.after_key;
    }
  }

  function querySpecs(instances: number, cursorRows: readonly CursorRow[]): QuerySpec[] {
    const rowOf = (v: Record<string, unknown>): CursorRow => cursorRows.find((row) => row.id === cursorIdOf(v))!;
    const instancesSearch = (filter: unknown[], sort: unknown[], extra: Record<string, unknown> = {}): Search => ({
      index: NAMES.workflowInstances,
      body: { size: 20, query: { bool: { filter: [SERVED, ...filter] } }, sort, _source: FIELDS, ...extra },
    });
    const tasksSearch = (filter: unknown[]): Search => ({
      index: NAMES.taskExecutions,
      body: { size: 20, query: { bool: { filter: [SERVED, ...filter] } }, sort: newestFirst, _source: TASK_FIELDS },
    });
    const count = (index: string, filter: unknown[]): FloorRequest => ({ count: { index, body: { query: { bool: { filter: [SERVED, ...filter] } } } } });
    const startRange = (f: Filter): unknown => ({ range: { start_time_us: { gte: micros(f['startDate']!.between!.from), lte: micros(f['startDate']!.between!.to) } } });
    const floors: Readonly<Record<string, QuerySpec['floor']>> = {
      'instances-page': (v) => instancesSearch([{ term: { status: v['status'] } }, { term: { namespace: v['namespace'] } }], newestFirst),
      'instance-by-id-with-tasks': (v) => ({
        msearch: [
          { index: NAMES.workflowInstances, body: { size: 1, query: { bool: { filter: [SERVED, { term: { id: v['id'] } }] } }, _source: [...FIELDS, 'error'] } },
          { index: NAMES.taskExecutions, body: { size: 1000, query: { bool: { filter: [SERVED, { term: { instance_id: v['id'] } }] } }, sort: taskOrder, _source: TASK_FIELDS } },
        ],
      }),
      'tasks-by-name-and-time': (v) => tasksSearch([{ term: { task_name: v['name'] } }, { range: { start_time_us: { gte: micros(String(v['from'])), lte: micros(String(v['to'])) } } }]),
      'instances-oldest-first-offset': (v) => instancesSearch([], oldestFirst, { from: Number(v['offset']) }),
      'instances-oldest-first-cursor': (v) => instancesSearch([], oldestFirst, { search_after: [rowOf(v).startUs, rowOf(v).id] }),
      'instances-newest-first-cursor': (v) => instancesSearch([], newestFirst, { search_after: [rowOf(v).startUs, rowOf(v).id] }),
      'instances-name-like': (v) => instancesSearch([{ prefix: { name: String(v['pattern']).slice(0, -1) } }], newestFirst),
      'tasks-of-instance': (v) => ({
        index: NAMES.taskExecutions,
        body: { size: 1000, query: { bool: { filter: [SERVED, { term: { instance_id: v['id'] } }] } }, sort: taskOrder, _source: TASK_FIELDS },
      }),
      'instances-json-input': (v) => instancesSearch([{ term: { input_leaves: leaf(['customer', 'id'], String(v['customer'])) } }], newestFirst),
      'count-instances': (v) => count(NAMES.workflowInstances, [{ term: { status: v['status'] } }, { term: { namespace: v['namespace'] } }]),
      'status-counts': (v) => ({
        index: NAMES.workflowInstances,
        body: { size: 0, query: { bool: { filter: [SERVED, { term: { namespace: v['namespace'] } }] } }, aggs: { statuses: { terms: { field: 'status', size: 10 } } } },
      }),
      'count-tasks-by-name': (v) => count(NAMES.taskExecutions, [{ term: { task_name: eq(filterOf(v), 'taskName') } }]),
      'count-tasks-faulted': (v) => count(NAMES.taskExecutions, [{ term: { task_name: eq(filterOf(v), 'taskName') } }, { term: { status: eq(filterOf(v), 'status') } }]),
      // No join in OpenSearch: the runs of the matching tasks, then a page of those runs (what anyone writing it by hand does).
      'instances-task-faulted': (v) => ({
        steps: async () => {
          const search = instancesSearch([{ terms: { id: await runsOf(runTaskQuery(v)) } }], newestFirst);
          return runFloor(search);
        },
      }),
      'tasks-workflow-faulted-day': (v) => tasksSearch([{ term: { workflow_name: eq(filterOf(v), 'workflowName') } }, { term: { status: eq(filterOf(v), 'status') } }, startRange(filterOf(v))]),
      'count-tasks-by-workflow-and-name': (v) => count(NAMES.taskExecutions, [{ term: { workflow_name: eq(filterOf(v), 'workflowName') } }, { term: { task_name: eq(filterOf(v), 'taskName') } }]),
      'tasks-workflow-name-faulted-week': (v) => tasksSearch([
        { term: { workflow_name: eq(filterOf(v), 'workflowName') } }, { term: { task_name: eq(filterOf(v), 'taskName') } }, { term: { status: eq(filterOf(v), 'status') } }, startRange(filterOf(v)),
      ]),
      // The number of distinct runs of the matching tasks is the answer: one composite aggregation (paged), no second search.
      'count-instances-task-faulted': (v) => ({ steps: async () => (await runsOf(runTaskQuery(v))).length }),
      'instances-duration-gt': (v) => instancesSearch([{ range: { duration_us: { gt: Number((v['filter'] as { duration: { gt: number } }).duration.gt) * 1000 } } }], newestFirst),
      'instances-slowest': (v) => instancesSearch([{ term: { name: eq(filterOf(v), 'name') } }], [{ duration_us: { order: 'desc', missing: '_last' } }, { id: 'asc' }]),
      'instances-json-gt': (v) => {
        const [, path, operand] = jsonOperand(v);
        const prefix = `${path.join(PATH_SEPARATOR)}${VALUE_SEPARATOR}`;
        return instancesSearch([{ range: { input_numbers: { gt: `${prefix}${sortableNumber(String(operand['value']))}`, lt: `${prefix}4` } } }], newestFirst);
      },
      'instances-json-contains': (v) => {
        const [, path, operand] = jsonOperand(v);
        return instancesSearch([{ wildcard: { input_leaves: { value: `${path.join(PATH_SEPARATOR)}${VALUE_SEPARATOR}s:*${String(operand['value'])}*` } } }], newestFirst);
      },
      'instances-json-ne': (v) => {
        const [, path, operand] = jsonOperand(v);
        return instancesSearch([{ term: { input_paths: path.join(PATH_SEPARATOR) } }, { bool: { must_not: [{ term: { input_leaves: leaf(path, String(operand['value'])) } }] } }], newestFirst);
      },
      'instances-json-in': (v) => {
        const [, path, operand] = jsonOperand(v);
        return instancesSearch([{ terms: { input_leaves: (operand['values'] as string[]).map((value) => leaf(path, value)) } }], newestFirst);
      },
      'instances-json-exists': (v) => {
        const [, path, operand] = jsonOperand(v);
        const present = { term: { input_paths: path.join(PATH_SEPARATOR) } };
        return instancesSearch([operand['value'] === true ? present : { bool: { must_not: [present] } }], newestFirst);
      },
    };
    return queryMix(instances, cursorRows).map((row) => {
      const floor = floors[row.name];
      if (floor === undefined) throw new Error(`bench:query --backend opensearch has no floor for ${row.name}: write its hand-written search`);
      return { ...row, floor };
    });
  }

  /** Sends one floor request; its answer. */
  async function runFloor(request: FloorRequest): Promise<FloorAnswer> {
    if ('steps' in request) return request.steps();
    if ('count' in request) {
      return ((await client.transport.request({ method: 'POST', path: `/${request.count.index}/_count`, body: request.count.body })).body as { count: number }).count;
    }
    if ('msearch' in request) {
      const bulkBody = request.msearch.map((s) => `${JSON.stringify({ index: s.index })}\n${JSON.stringify(untracked(s.body))}\n`).join('');
      const response = await client.transport.request({ method: 'POST', path: '/_msearch', bulkBody });
      const body = response.body as { responses: (Hits & { error?: unknown })[] };
      if (body.responses.some((r) => r.error !== undefined)) throw new Error(JSON.stringify(body).slice(0, 300));
      return body.responses.flatMap(idsOf);
    }
    const body = (await client.transport.request({ method: 'POST', path: `/${request.index}/_search`, body: untracked(request.body) })).body as Hits & Statuses;
    if (body.aggregations?.statuses !== undefined) return Object.fromEntries(body.aggregations.statuses.buckets.map((b) => [b.key, b.doc_count]));
    return idsOf(body);
  }

  return { querySpecs, runFloor };
}

interface Hits { readonly hits: { readonly hits: readonly { readonly _source: { readonly id: string } }[] } }
interface Statuses { readonly aggregations?: { readonly statuses?: { readonly buckets: readonly { readonly key: string; readonly doc_count: number }[] } } }
const idsOf = (body: Hits): string[] => body.hits.hits.map((hit) => hit._source.id);

/** A floor search counts no hits it does not need (track_total_hits: false, as the reader's searches). */
const untracked = (body: Record<string, unknown>): Record<string, unknown> => ({ track_total_hits: false, ...body });