// The limits OpenSearch itself puts on one search, on the real node (5,200 runs with 10 task executions each, the
// bench dataset). The timeout: every search the reader sends carries OPENSEARCH_QUERY_TIMEOUT_MS as its body's
// `timeout`; the node stops a search there, and says so in one of two ways: 200 with `timed_out: true` (partial hits)
// when it stopped collecting, or HTTP 500 search_phase_execution_exception whose root cause is time_exceeded_exception
// when the timeout lapsed before it collected (the first search of slow prefilters on freshly written documents).
// Either way the reader throws QueryTimeoutError and the app answers QUERY_TIMEOUT with the request's cost and the
// timeout; the same body without the timeout runs to its end, so it was the timeout that stopped it. A node that does
// not answer at all is still SERVICE_UNAVAILABLE. The request circuit breaker: with its limit lowered for one request
// (transiently, restored in a finally and again in afterAll; never while bounded-work.test.ts measures the node,
// support/node-probe.ts), an aggregation trips it; the node answers HTTP 429 circuit_breaking_exception (durability
// TRANSIENT), the client gets SERVICE_UNAVAILABLE (HTTP 200, data null), the node stays healthy, and the same request
// answers once the limit is restored. While the limit is low every aggregation on the node fails, other files' too:
// the window is one request long.
import { Client } from '@opensearch-project/opensearch';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { afterAll, expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { createApp, type App } from '@workflow-index/core';
import { loadCoreConfig } from '@workflow-index/core';
import { parseLikePattern } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
import { BackendUnavailableError, QueryTimeoutError, type SimpleTaskFilter } from '@workflow-index/core';
import { writeDataset } from './support/bench-dataset.js';
import { applyNormalizedIndices, normalizedIndexNames } from '../src/normalized-indices.js';
import { createOpenSearchReader, type OpenSearchReader } from '../src/reader/opensearch-reader.js';
import { awaitNoMeasuring, type Exchange, nodeAnswer, nodeStats, recordExchanges } from './support/node-probe.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

const RUNS = 5200;
const REQUEST_LIMIT = 'indices.breaker.request.limit';
/** Below the 5 KiB every aggregator reserves in the request breaker when it is built. */
const TINY_REQUEST_LIMIT = '1kb';

/**
 * Two filters of 99 like patterns (the condition limit) on the id of every task execution (52,000), each a painless
 * glob script (filter-dsl.ts likeScriptDsl) matching none: about a second of the node's time, several times the
 * coarsest step (thread_pool.estimated_time_interval, 200 ms) at which the node checks a search's timeout.
 * SCRIPTED: `*` and 201 to 299 `?`, no literal, so the script reads every document that has an id (a cheap exists
 * prefilter): the node stops it while collecting and answers 200 `timed_out: true`.
 * PREFILTERED: `*bench-` then 8 `?`, so each script runs behind a wildcard prefilter `*bench-*` that matches every id:
 * building those 99 prefilters is itself slow until the node caches one, and a timeout that lapses before the node
 * collects (there, it seems) has been answered HTTP 500 time_exceeded_exception (the first such search on freshly
 * written documents, in every run so far; more often while other files load the node).
 */
const SCRIPTED = Array.from({ length: 99 }, (_, i) => `*${'?'.repeat(201 + i)}`);
const PREFILTERED = Array.from({ length: 99 }, (_, i) => `*bench-????????zz${i}*`);
const likeFilter = (patterns: readonly string[]): SimpleTaskFilter => ({
  kind: 'or',
  nodes: patterns.map((p) => ({ kind: 'string', field: 'id', predicate: { op: 'like', pattern: parseLikePattern(p) } })),
});
const SLOW_QUERY = {
  query: 'query Slow($f: TaskExecutionFilterInput) { getTaskExecutions(filter: $f, limit: 5) { id } }',
  variables: { f: { or: SCRIPTED.map((like) => ({ id: { like } })) } },
};
const STATUS_COUNTS = { query: '{ workflowInstanceStatusCounts { status count { value exact } } }', variables: {} };

interface GraphQLAnswer {
  readonly status: number;
  readonly body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function post(app: App, request: { query: string; variables: Record<string, unknown> }): Promise<GraphQLAnswer> {
  const response = await app.fetch(new Request('http://limits/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) }));
  return { status: response.status, body: (await response.json()) as GraphQLAnswer['body'] };
}

const codes = (answer: GraphQLAnswer): unknown[] => (answer.body.errors ?? []).map((e) => e.extensions?.['code']);

function appOver(reader: OpenSearchReader): App {
  const config = loadCoreConfig({ NODE_ENV: 'production', HEALTH_DISK_MIN_FREE_BYTES: '0', LOG_LEVEL: 'silent' });
  return createApp({ config, reader, logger: createLogger(config), backend: 'opensearch' });
}

/** A port that accepts connections and reads requests but never answers; what it received. */
async function startSilentNode(): Promise<{ port: number; received: () => string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const chunks: Buffer[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    received: () => Buffer.concat(chunks).toString('utf8'),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

async function transientRequestLimit(client: Client): Promise<string | null> {
  const response = await client.transport.request({ method: 'GET', path: '/_cluster/settings', querystring: { flat_settings: 'true' } });
  const value = (response.body as { transient: Record<string, unknown> }).transient[REQUEST_LIMIT];
  return typeof value === 'string' ? value : null;
}

async function setTransientRequestLimit(client: Client, value: string | null): Promise<void> {
  await client.transport.request({ method: 'PUT', path: '/_cluster/settings', body: { transient: { [REQUEST_LIMIT]: value } } }, { requestTimeout: 30_000 });
}

async function rawSearch(client: Client, index: string, body: Readonly<Record<string, unknown>>): Promise<{ took: number; timed_out: boolean; hits: { hits: unknown[] } }> {
  const response = await client.transport.request({ method: 'POST', path: `/${index}/_search`, body }, { requestTimeout: 300_000, maxRetries: 0 });
  return response.body as { took: number; timed_out: boolean; hits: { hits: unknown[] } };
}

describeOpenSearch('search limits on the OpenSearch node', () => {
  let ns: TestNamespace;
  /** The value the breaker test found, while its own is set (afterAll puts it back if the test could not). */
  let lowered: { previous: string | null } | null = null;
  const closers: (() => Promise<void>)[] = [];

  /** A reader (and the app over it) on its own client, recorded, with this OPENSEARCH_QUERY_TIMEOUT_MS. */
  const readerAt = (timeoutMs: number, node = OPENSEARCH_URL): { reader: OpenSearchReader; app: App; sent: Exchange[] } => {
    const client = new Client({ node });
    const sent = recordExchanges(client);
    const reader = createOpenSearchReader({ client, prefix: ns.prefix, requestTimeoutMs: timeoutMs });
    const app = appOver(reader);
    closers.push(async () => {
      await app.dispose();
      await reader.close();
    });
    return { reader, app, sent };
  };

  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    await applyNormalizedIndices(ns.client, ns.prefix);
    await writeDataset(ns.client, normalizedIndexNames(ns.prefix), RUNS, 10);
  }, 300_000);

  afterAll(async () => {
    try {
      if (lowered !== null && (await transientRequestLimit(ns.client)) === TINY_REQUEST_LIMIT) await setTransientRequestLimit(ns.client, lowered.previous);
    } finally {
      for (const close of closers.splice(0)) await close();
    }
  });

  /**
   * Listings of the task executions by `filter` at 1 ms until `wanted` of their searches got the node's answer. On a
   * machine busy enough the node may not answer within the timeout and the reader's margin of a second: the reader
   * then rightly says SERVICE_UNAVAILABLE (the fourth test), and such an attempt tells nothing here; it is set aside,
   * at most `wanted` times.
   */
  const listAtOneMs = async (filter: SimpleTaskFilter, wanted: number): Promise<{ attempts: { failure: unknown; search: Exchange }[]; unanswered: number }> => {
    const { reader, sent } = readerAt(1);
    const attempts: { failure: unknown; search: Exchange }[] = [];
    let unanswered = 0;
    while (attempts.length < wanted && unanswered < wanted) {
      const failure = await reader.listTasks({ filter, orderBy: [], limit: 5, offset: 0, payloads: false }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(sent.map((e) => e.path.endsWith('/_search'))).toEqual(Array.from({ length: attempts.length + unanswered + 1 }, () => true));
      const search = sent.at(-1)!;
      if (search.status === undefined) unanswered += 1;
      else attempts.push({ failure, search });
    }
    process.stdout.write(`search-limits: the node answered ${JSON.stringify(attempts.map((a) => nodeAnswer(a.search)))}${unanswered > 0 ? `, and ${unanswered} not in time` : ''}\n`);
    return { attempts, unanswered };
  };

  /** Every answered attempt was QueryTimeoutError, and its search carried the timeout. */
  const expectTimeouts = (attempts: readonly { failure: unknown; search: Exchange }[]): void => {
    expect(attempts.length, 'the node answered none of the searches in time').toBeGreaterThan(0);
    attempts.forEach(({ failure, search }, i) => {
      expect(search.body?.['timeout']).toBe('1ms');
      expect(failure, `attempt ${i}: the node answered ${nodeAnswer(search)}`).toBeInstanceOf(QueryTimeoutError);
      expect((failure as QueryTimeoutError).limit).toEqual({ ms: 1, setting: 'OPENSEARCH_QUERY_TIMEOUT_MS' });
    });
  };

  // First: the first search of these filters on the documents written in beforeAll.
  it('a search the node fails with time_exceeded_exception (HTTP 500: its timeout lapsed before it collected) is QueryTimeoutError too', async () => {
    const { attempts } = await listAtOneMs(likeFilter(PREFILTERED), 3);
    const exceeded = attempts.find((a) => a.search.status === 500);
    if (exceeded !== undefined) process.stdout.write(`search-limits: time_exceeded_exception ${JSON.stringify(exceeded.search.error)}\n`);
    // What this test is about: were it gone (a node that always answers timed_out), the test would check nothing.
    expect(attempts.map((a) => nodeAnswer(a.search)), 'the node no longer answers a timed-out search HTTP 500 time_exceeded_exception').toContain('500 time_exceeded_exception');
    expectTimeouts(attempts);
  }, 120_000);

  it('a search carries OPENSEARCH_QUERY_TIMEOUT_MS as its timeout; the node stops it there (timed_out: true) and the reader throws QueryTimeoutError', async () => {
    const { attempts } = await listAtOneMs(likeFilter(SCRIPTED), 3);
    expectTimeouts(attempts);
    expect(attempts.map((a) => nodeAnswer(a.search))).toContain('200 timed_out: true');
    // The node cut it because of that timeout: without one, the same body runs to its end (nothing matches).
    const { timeout: _timeout, ...untimed } = attempts[0]!.search.body!;
    const whole = await rawSearch(ns.client, normalizedIndexNames(ns.prefix).taskExecutions, untimed);
    expect(whole).toMatchObject({ timed_out: false, hits: { hits: [] } });
    process.stdout.write(`search-limits: the scripted search took ${whole.took} ms without a timeout\n`);
  }, 120_000);

  it('through the app a search the node stopped is QUERY_TIMEOUT with the cost and the timeout, never a partial answer', async () => {
    const { app, sent } = readerAt(1);
    let answer = await post(app, SLOW_QUERY);
    // As above: a search the node did not answer in time (SERVICE_UNAVAILABLE, rightly) is sent again, twice at most.
    for (let again = 0; again < 2 && sent.at(-1)?.status === undefined; again++) answer = await post(app, SLOW_QUERY);
    expect(answer.status).toBe(200);
    expect(codes(answer), `the node answered ${nodeAnswer(sent.at(-1))}`).toEqual(['QUERY_TIMEOUT']);
    const error = answer.body.errors![0]!;
    expect(error.extensions).toEqual({ code: 'QUERY_TIMEOUT', cost: expect.any(Number) as number, timeoutMs: 1 });
    const cost = error.extensions!['cost'] as number;
    expect(cost).toBeGreaterThan(0);
    expect(error.message).toContain(`(OPENSEARCH_QUERY_TIMEOUT_MS: 1 ms) and was stopped. It was priced at ${cost} rows`);
    expect(answer.body.data ?? null).toBeNull();
    process.stdout.write(`search-limits: QUERY_TIMEOUT ${JSON.stringify(error)}\n`);
  }, 120_000);

  it('a node that does not answer at all is SERVICE_UNAVAILABLE, not QUERY_TIMEOUT', async () => {
    const silent = await startSilentNode();
    closers.push(silent.close);
    const { reader, app } = readerAt(200, `http://127.0.0.1:${silent.port}`);
    const failure = await reader.listInstances({ filter: null, orderBy: [], limit: 5, offset: 0, payloads: false }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(BackendUnavailableError);
    expect(silent.received()).toContain('"timeout":"200ms"');
    const answer = await post(app, { query: '{ getWorkflowInstances(limit: 5) { id } }', variables: {} });
    expect(codes(answer)).toEqual(['SERVICE_UNAVAILABLE']);
  }, 60_000);

  it('the request circuit breaker: an aggregation it refuses is SERVICE_UNAVAILABLE (HTTP 429, durability TRANSIENT), the node stays healthy and the request answers once the limit is back', async () => {
    // Not sent before: the node's shard request cache would answer the same size-0 search again without aggregating.
    const { app, sent } = readerAt(10_000);
    // Every aggregation on the node fails while the limit is low: not while bounded-work.test.ts measures the node.
    const waitStarted = performance.now();
    await awaitNoMeasuring(600_000);
    process.stdout.write(`search-limits: waited ${(performance.now() - waitStarted).toFixed(0)} ms for files measuring the node\n`);
    const before = await nodeStats(ns.client);
    const previous = await transientRequestLimit(ns.client);
    expect(previous, `${REQUEST_LIMIT} already set transiently by someone else`).not.toBe(TINY_REQUEST_LIMIT);
    lowered = { previous };
    await setTransientRequestLimit(ns.client, TINY_REQUEST_LIMIT);
    let refused: GraphQLAnswer;
    try {
      refused = await post(app, STATUS_COUNTS);
    } finally {
      await setTransientRequestLimit(ns.client, previous);
      lowered = null;
    }
    expect(await transientRequestLimit(ns.client)).toBe(previous);
    const after = await nodeStats(ns.client);

    // What OpenSearch answered: the whole search failed with the breaker's exception, as too many requests.
    const failed = sent.filter((e) => e.error !== undefined);
    expect(failed).toHaveLength(1);
    process.stdout.write(`search-limits: the tripped breaker answered HTTP ${failed[0]!.status} ${JSON.stringify(failed[0]!.error)}\n`);
    expect(failed[0]!.status).toBe(429);
    expect(failed[0]!.error).toMatchObject({
      status: 429,
      error: {
        type: 'search_phase_execution_exception',
        root_cause: [{ type: 'circuit_breaking_exception', durability: 'TRANSIENT' }],
        caused_by: { type: 'circuit_breaking_exception', durability: 'TRANSIENT', bytes_limit: 1024 },
      },
    });
    expect(after.trips.request).toBeGreaterThan(before.trips.request);

    // What the client got.
    process.stdout.write(`search-limits: the client got HTTP ${refused.status} ${JSON.stringify(refused.body)}\n`);
    expect(refused.status).toBe(200);
    expect(codes(refused)).toEqual(['SERVICE_UNAVAILABLE']);
    expect(refused.body.data).toBeNull();
    expect(refused.body.errors![0]!.message).toBe('The storage backend is unavailable; try again later.');

    // The node is healthy and the same request answers, with every run counted.
    const health = await ns.client.transport.request({ method: 'GET', path: '/_cluster/health' }, { requestTimeout: 10_000, maxRetries: 0 });
    expect(['green', 'yellow']).toContain((health.body as { status: string }).status);
    expect(after.trips.parent).toBe(before.trips.parent);
    expect((await app.fetch(new Request('http://limits/q/health/ready'))).status).toBe(200);
    const again = await post(app, STATUS_COUNTS);
    expect(codes(again)).toEqual([]);
    const counts = again.body.data!['workflowInstanceStatusCounts'] as { count: { value: number } }[];
    expect(counts.reduce((n, c) => n + c.count.value, 0)).toBe(RUNS);
  }, 720_000);
});
