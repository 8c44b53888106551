// bench:query --backend opensearch measures every row of the mix (bench/mix/query-mix.ts) against a
// hand-written floor (bench/opensearch/query-floors.ts) over its dataset (server/opensearch/test/support/bench-dataset.ts). Both must be honest: each row
// finds something in the dataset (the population the PostgreSQL benchmark generates: coupons, the slow tail of
// durations, faults at every task name), and each floor finds exactly what the production server answers over
// GraphQL (the same ids in the same order, the same counts), so the ratio compares the same work.
import { benchInstanceId, postGraphQL } from '@workflow-index/testkit';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSearchFloors, type CursorRow, type FloorAnswer } from '../opensearch/query-floors.js';
import { createTestNamespace, OPENSEARCH_URL, openSearchReachable, type TestNamespace, writeDataset } from '@workflow-index/opensearch/testing';
import { applyNormalizedIndices, loadOpenSearchServerConfig, normalizedIndexNames, type OpenSearchServer, startOpenSearchServer } from '@workflow-index/opensearch';

const available = await openSearchReachable();
const INSTANCES = 2000;
/** Variants asked per row: enough for the rarest rows (a workflow's faulted tasks of one name in a week) to find some. */
const VARIANTS = 20;
/**
 * Rows whose variants may find nothing at this size (each of the others must find something with every variant): the
 * offsets start at 5,000; a workflow's faulted tasks in a day or week, one or three of 5,000 customers are rare in 2,000 runs.
 */
const SPARSE_HERE: ReadonlyMap<string, number> = new Map([
  ['instances-oldest-first-offset', 0],
  ['tasks-workflow-faulted-day', 1],
  ['tasks-workflow-name-faulted-week', 1],
  ['instances-json-input', 1],
  ['instances-json-in', 1],
]);

/** GraphQL's answer in a floor's terms: ids in order, a count, or counts by status. */
function answerOf(data: Record<string, unknown>): FloorAnswer {
  const value = Object.values(data)[0];
  if (Array.isArray(value)) {
    const rows = value as { id?: string; status?: string; count?: { value: number } }[];
    // Counts by status: a terms aggregation has no bucket for a status no run has.
    if (rows.length > 0 && rows.every((row) => row.count !== undefined)) return Object.fromEntries(rows.filter((row) => row.count!.value > 0).map((row) => [row.status, row.count!.value]));
    return rows.map((row) => row.id!);
  }
  const one = value as { value?: number; id?: string; taskExecutions?: { id: string }[] } | null;
  if (one === null) return [];
  if (typeof one.value === 'number') return one.value;
  return [one.id!, ...(one.taskExecutions ?? []).map((task) => task.id)];
}

const nothing = (answer: FloorAnswer): boolean =>
  typeof answer === 'number' ? answer === 0 : Array.isArray(answer) ? answer.length === 0 : Object.values(answer).every((n) => n === 0);

describe.skipIf(!available)('bench:query --backend opensearch: its rows and floors', () => {
  let ns: TestNamespace;
  let server: OpenSearchServer;
  beforeAll(async () => {
    ns = createTestNamespace();
    await applyNormalizedIndices(ns.client, ns.prefix);
    await writeDataset(ns.client, normalizedIndexNames(ns.prefix), INSTANCES, 10);
    const node = new URL(OPENSEARCH_URL);
    const config = loadOpenSearchServerConfig({
      NODE_ENV: 'production', OPENSEARCH_HOST: node.hostname, OPENSEARCH_PORT: node.port || '9200', WI_OPENSEARCH_INDEX_PREFIX: ns.prefix, HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0',
    });
    server = await startOpenSearchServer(config, pino({ level: 'silent' }));
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    await ns?.drop();
  });

  it('every variant of a row finds something in the dataset (a few at least for the rare ones), and its floor finds what the server answers', async () => {
    const names = normalizedIndexNames(ns.prefix);
    const cursorIds = [7, 501, 1999].map(benchInstanceId);
    const found = await ns.client.transport.request({ method: 'POST', path: `/${names.workflowInstances}/_search`, body: { size: 3, query: { ids: { values: cursorIds } }, _source: ['id', 'start_time', 'start_time_us'] } });
    const cursorRows: CursorRow[] = (found.body as { hits: { hits: { _source: { id: string; start_time: string; start_time_us: number } }[] } }).hits.hits
      .map((h) => ({ id: h._source.id, start: h._source.start_time, startUs: h._source.start_time_us }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const { querySpecs, runFloor } = openSearchFloors(ns.client, names);
    const specs = querySpecs(INSTANCES, cursorRows);
    expect(specs.length).toBeGreaterThanOrEqual(25);
    const findsTooLittle: string[] = [];
    for (const spec of specs) {
      let finds = 0;
      for (const variables of spec.variables.slice(0, VARIANTS)) {
        const { body } = await postGraphQL(server.baseUrl, spec.query, variables);
        expect(body.errors, `${spec.name} ${JSON.stringify(variables)}`).toBeUndefined();
        const answer = answerOf(body.data!);
        expect(await runFloor(spec.floor(variables)), `${spec.name}'s floor for ${JSON.stringify(variables)}`).toEqual(answer);
        if (!nothing(answer)) finds++;
      }
      const asked = Math.min(VARIANTS, spec.variables.length);
      if (finds < (SPARSE_HERE.get(spec.name) ?? asked)) findsTooLittle.push(`${spec.name}: ${finds} of ${asked} variants`);
    }
    expect(findsTooLittle).toEqual([]);
  }, 300_000);
});
