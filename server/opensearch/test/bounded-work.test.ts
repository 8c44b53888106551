// No legal request may exhaust the node: against the real OpenSearch node, 5,200 runs with 10 task executions each
// (the bench dataset, as the abuse probes had), the production-mode app over the OpenSearch reader with a 5 s
// OPENSEARCH_QUERY_TIMEOUT_MS. The node is watched while requests run (support/node-probe.ts): its JVM heap, sampled
// every few milliseconds, must stay below 95 % of the heap's maximum (where the parent breaker, on real memory,
// refuses requests), and neither the request nor the parent circuit breaker may trip (the trip counts catch what the
// samples miss; search-limits.test.ts, which trips the request breaker on purpose, runs alone after every other file,
// vitest.config.ts, and waits while this file holds its lease when both are run by hand). fast-check sends legal requests at the edges of every limit (edge-requests.ts) one at a time; each answers,
// is refused before it runs (the cost, the limits), or ends with QUERY_TIMEOUT — never an internal error or a backend
// unavailable. Then the heaviest legal requests from 40 client addresses at once, while the console's page query
// keeps answering, readiness stays UP and the node stays healthy: the three tests of
// server/postgresql/test/bounded-work.test.ts. Last, a legal request the property met here that filled the heap.
import { Client } from '@opensearch-project/opensearch';
import fc from 'fast-check';
import { afterAll, expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { type App, createApp, createLogger, loadCoreConfig } from '@workflow-index/core';
import { classify, edgeRequest, type EdgeRequest, heaviestLegalRequests, MemoryLog, type Outcome, pageLatencies, pageWaitBound } from '@workflow-index/testkit';
import { writeDataset } from './support/bench-dataset.js';
import { applyNormalizedIndices, normalizedIndexNames } from '../src/normalized-indices.js';
import { createOpenSearchReader, type OpenSearchReader } from '../src/reader/opensearch-reader.js';
import { type Exchange, holdMeasuringLease, nodeAnswer, NodeProbe, type NodeWindow, recordExchanges } from './support/node-probe.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

const RUNS = 5200;
const MiB = 2 ** 20;
/** The heap fraction the parent breaker (indices.breaker.total.limit, 95 % by default) guards. */
const HEAP_BOUND = 0.95;

/** The node's heap within the bound and no breaker trip the window's requests caused. */
function expectNodeBounded(window: NodeWindow<unknown>, what: string): void {
  expect(window.peakHeap, `heap ${mib(window.peakHeap)} of ${mib(window.heapMax)} for ${what}`).toBeLessThan(HEAP_BOUND * window.heapMax);
  expect(window.trips, `breaker trips for ${what}`).toEqual({ request: 0, parent: 0 });
}

const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;
const percent = (window: NodeWindow<unknown>): string => `${((100 * window.peakHeap) / window.heapMax).toFixed(1)} %`;

describeOpenSearch('bounded work: OpenSearch', () => {
  let ns: TestNamespace;
  let reader: OpenSearchReader;
  let app: App;
  let node: NodeProbe;
  /** The app's warnings and errors, and the reader's last requests: what a failed outcome's masked message hides. */
  const log = new MemoryLog();
  let exchanges: Exchange[] = [];
  let releaseLease: (() => void) | undefined;

  it.beforeAll(async ({ namespace }) => {
    // search-limits.test.ts lowers the request breaker's limit on purpose: not while this file measures.
    releaseLease = holdMeasuringLease();
    ns = namespace;
    await applyNormalizedIndices(ns.client, ns.prefix);
    await writeDataset(ns.client, normalizedIndexNames(ns.prefix), RUNS, 10);
    // The reader on its own client, as the server has it; the probe reads the node stats on the namespace's.
    const client = new Client({ node: OPENSEARCH_URL });
    exchanges = recordExchanges(client, { keep: 2000, bodies: false });
    reader = createOpenSearchReader({ client, prefix: ns.prefix, requestTimeoutMs: 5000 });
    const config = loadCoreConfig({ NODE_ENV: 'production', HTTP_CLIENT_ADDRESS_HEADER: 'x-forwarded-for', HEALTH_DISK_MIN_FREE_BYTES: '0', LOG_LEVEL: 'warn' });
    app = createApp({ config, reader, logger: createLogger(config, log.stream), backend: 'opensearch' });
    node = new NodeProbe(ns.client);
  }, 300_000);

  afterAll(async () => {
    try {
      await app?.dispose();
      await reader?.close();
    } finally {
      releaseLease?.();
    }
  });

  /** The last warnings and errors the app logged, with their causes, and what the node answered the reader's last failed requests. */
  const logged = (): string => {
    const app = log.entries.slice(-3).map((e) => `${String(e['msg'])}: ${String((e['err'] as { message?: unknown } | undefined)?.message)}`);
    const failed = exchanges.filter((e) => e.error !== undefined || e.failure !== undefined).slice(-3);
    return [...app, ...failed.map((e) => `${e.path} ${nodeAnswer(e)} ${JSON.stringify(e.error ?? e.failure).slice(0, 1200)}`)].join(' | ');
  };

  const send = (request: EdgeRequest, address = '10.0.0.1'): Promise<Response> =>
    app.fetch(new Request('http://bounded/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify(request) }));

  it('the abuse probe of the issue: a JSON in of 10,000 values answers; 30 aliases sharing a JSON in of 2,500 answer within the bounds (priced below the budget here), of 10,000 are refused before they run', async () => {
    const [tenThousand] = heaviestLegalRequests();
    const answered = await node.during(async () => classify(await send(tenThousand!)));
    expect(answered.value).toEqual<Outcome>({ kind: 'answered' });
    expectNodeBounded(answered, 'a JSON in of 10,000 values');
    // A JSON in is one terms query on this backend (OPENSEARCH_WORK_PRICES.jsonInValue 0.1 row per value, where
    // PostgreSQL's is 1.1): the 30 aliases of 2,500 values PostgreSQL refuses are admitted here, and must stay bounded.
    const thirty = (values: number) => ({
      query: `query Q($f: WorkflowInstanceFilterInput) { ${Array.from({ length: 30 }, (_, i) => `a${i}: getWorkflowInstances(filter: $f, limit: 5) { id }`).join(' ')} }`,
      variables: { f: { input: { in: [{ key: 'customer.name', values: Array.from({ length: values }, (_, i) => `nobody-${i}`) }] } } },
    });
    const admitted = await node.during(async () => classify(await send(thirty(2500))));
    expect(admitted.value).toEqual<Outcome>({ kind: 'answered' });
    expectNodeBounded(admitted, '30 aliases of a JSON in of 2,500 values');
    const refused = await classify(await send(thirty(10_000)));
    expect(refused).toMatchObject({ kind: 'refused', code: 'BAD_USER_INPUT' });
    expect((refused as { message: string }).message).toMatch(/^Query cost \d+ exceeds the budget of 20000 rows/);
    process.stdout.write(`bounded-work opensearch: probe heap ${mib(answered.peakHeap)} and ${mib(admitted.peakHeap)}; 30 x 10,000: ${(refused as { message: string }).message.slice(0, 60)}\n`);
  }, 60_000);

  it('property: every legal request at the edges answers, is refused up front or times out, with the heap below 95 % and no breaker trip', async () => {
    // The probe reads the heap (else the bound below would hold vacuously).
    expect(await node.readable()).toBe(true);
    const seen: Record<string, number> = {};
    let peak: NodeWindow<unknown> | null = null;
    await fc.assert(
      fc.asyncProperty(edgeRequest, async (request) => {
        const window = await node.during(async () => classify(await send(request)));
        const outcome = window.value;
        seen[outcome.kind] = (seen[outcome.kind] ?? 0) + 1;
        if (outcome.kind === 'refused' && /^Query cost \d+ exceeds the budget/.test(outcome.message)) seen['refused by the cost'] = (seen['refused by the cost'] ?? 0) + 1;
        if (peak === null || window.peakHeap / window.heapMax > peak.peakHeap / peak.heapMax) peak = window;
        expect(outcome.kind, `${JSON.stringify(outcome)}; breaker trips ${JSON.stringify(window.trips)}, heap ${mib(window.peakHeap)}; logged: ${logged()}`).not.toBe('failed');
        expectNodeBounded(window, request.query.slice(0, 200));
      }),
      { numRuns: 100, endOnFailure: true },
    );
    const highest = peak as NodeWindow<unknown> | null;
    process.stdout.write(`bounded-work opensearch: edge requests ${JSON.stringify(seen)}; peak heap ${highest === null ? '-' : `${mib(highest.peakHeap)} (${percent(highest)} of ${mib(highest.heapMax)})`}\n`);
    // The generator reaches both sides of the budget (the cost's own refusals counted apart: some requests are
    // refused by the limits or as malformed).
    expect(seen['answered'] ?? 0).toBeGreaterThan(0);
    expect(seen['refused'] ?? 0).toBeGreaterThan(0);
    expect(seen['refused by the cost'] ?? 0).toBeGreaterThan(0);
  }, 600_000);

  it('the heaviest legal requests from 40 addresses at once: the page query keeps answering, readiness stays UP, the node stays healthy', async () => {
    const heavy = heaviestLegalRequests();
    const page = (): Promise<Response> =>
      send(
        {
          query: 'query ConsoleRuns($limit: Int) { runs: getWorkflowInstances(limit: $limit, orderBy: {startDate: DESC}) { id name status startDate } counts: workflowInstanceStatusCounts { status count { value } } }',
          variables: { limit: 25 },
        },
        '192.168.0.1',
      );
    const unloaded = await pageLatencies(page, { count: 10 });
    const load = node.during(() => Promise.all(Array.from({ length: 40 }, (_, i) => send(heavy[i % heavy.length]!, `10.1.0.${i}`).then(classify))));
    const loaded = await pageLatencies(page, { while: load, readiness: () => app.fetch(new Request('http://bounded/q/health/ready')) });
    const window = await load;
    const outcomes = window.value;
    process.stdout.write(
      `bounded-work opensearch: page ms unloaded max ${Math.max(...unloaded.latenciesMs).toFixed(1)}, loaded max ${Math.max(...loaded.latenciesMs).toFixed(1)} (${loaded.latenciesMs.length} pages); ` +
        `peak heap ${mib(window.peakHeap)} (${percent(window)} of ${mib(window.heapMax)}); breaker trips ${JSON.stringify(window.trips)}; outcomes ${JSON.stringify(countKinds(outcomes))}\n`,
    );
    for (const outcome of outcomes) expect(['answered', 'timed-out', 'busy'], `${JSON.stringify(outcome)}; breaker trips ${JSON.stringify(window.trips)}; logged: ${logged()}`).toContain(outcome.kind);
    expect(outcomes.filter((o) => o.kind === 'answered').length).toBeGreaterThan(0);
    expect(loaded.failures, `logged: ${logged()}`).toEqual([]);
    expect(loaded.readinessDown).toBe(0);
    expect(loaded.latenciesMs.length).toBeGreaterThan(0);
    // Admitted at once (cheapest first) and read beside the heavy ones, never queued behind them.
    expect(Math.max(...loaded.latenciesMs)).toBeLessThanOrEqual(pageWaitBound(unloaded, loaded));
    expectNodeBounded(window, '40 heaviest legal requests');
    const health = await ns.client.transport.request({ method: 'GET', path: '/_cluster/health' }, { requestTimeout: 10_000, maxRetries: 0 });
    expect(['green', 'yellow']).toContain((health.body as { status: string }).status);
  }, 300_000);

  // The property met this shape (HTTP 429 from the parent breaker on a taskExecutions filter, in two of a dozen runs):
  // each taskExecutions condition resolved to the ids of the runs it matches (lookup-filter.ts runsOfTasks), here
  // every run, all at once, and the page's search then carried them all (99 x 5,200 ids, an 8 MB body), for every
  // alias at once, priced 13,622. A taskExecutions condition is now priced at its worst on this backend (resolving up
  // to 65,536 runs): the request is refused before any read; one filter's conditions resolve one after the other and
  // together at most 65,536 runs (reader-lookups.test.ts).
  it('7 aliases sharing 99 taskExecutions conditions that match every run are refused before any read, with the heap below 95 % and no breaker trip', async () => {
    const request = {
      query: `query Q($f: WorkflowInstanceFilterInput) { ${Array.from({ length: 7 }, (_, i) => `a${i}: getWorkflowInstances(filter: $f, limit: 5) { id }`).join(' ')} }`,
      variables: { f: { or: Array.from({ length: 99 }, (_, i) => ({ taskExecutions: { taskName: { ne: `no-such-${i}` } } })) } },
    };
    const window = await node.during(async () => classify(await send(request)));
    process.stdout.write(`bounded-work opensearch: 7 x 99 taskExecutions conditions: ${JSON.stringify(window.value).slice(0, 200)}; peak heap ${mib(window.peakHeap)} (${percent(window)}); breaker trips ${JSON.stringify(window.trips)}\n`);
    expect(window.value, `logged: ${logged()}`).toMatchObject({ kind: 'refused', code: 'BAD_USER_INPUT' });
    expect((window.value as { message: string }).message).toMatch(/^Query cost \d+ exceeds the budget of 20000 rows/);
    expectNodeBounded(window, '7 aliases sharing 99 taskExecutions conditions');
  }, 120_000);
});

function countKinds(outcomes: readonly Outcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) out[o.kind] = (out[o.kind] ?? 0) + 1;
  return out;
}
