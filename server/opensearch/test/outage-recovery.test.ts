// An OpenSearch outage and its end, seen by the production processes as `npm run serve:opensearch` and
// `npm run normalize:opensearch` run them (child processes), through a proxy in front of the shared node
// (support/outage-proxy.ts: the node itself is never stopped). Two kinds of outage: the node gone (connections
// refused) and the node answering 503. During each: the server answers GraphQL with SERVICE_UNAVAILABLE and the
// public message only (no connection detail), readiness is DOWN, liveness UP; the normalizer keeps retrying with
// back-off, its metrics count the failed cycles and its readiness is DOWN. After it, both recover by themselves
// (same process, same port): readiness UP, queries served, events written during the outage normalized. No timing is
// asserted: every wait is bounded polling.
import { Client } from '@opensearch-project/opensearch';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, vi } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { SERVICE_UNAVAILABLE_MESSAGE } from '@workflow-index/core';
import { CONFORMANCE_EVENTS, postGraphQL, type ServerProcess, startNodeScript, stop } from '@workflow-index/testkit';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import { normalizedIndexNames } from '../src/normalized-indices.js';
import { eventLines, loadNormalized, RECORD_TIME_MS } from './support/normalized-store.js';
import { type OutageProxy, type ProxyState, startOutageProxy } from './support/outage-proxy.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';
import { freePort } from '@workflow-index/testkit';

const SERVER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const NORMALIZER_MAIN = fileURLToPath(new URL('../src/normalizer-main.ts', import.meta.url));
const node = new URL(OPENSEARCH_URL);
const OUTAGES: readonly Exclude<ProxyState, 'forward'>[] = ['refuse', 'unavailable'];
/** Bounded polling: generous, since the machine is shared; nothing asserts how fast. */
const WAIT = { timeout: 90_000, interval: 200 };

async function health(baseUrl: string, which: 'ready' | 'live'): Promise<{ status: number; body: { status: string; checks: { name: string; status: string; data?: { error?: string } }[] } }> {
  const response = await fetch(`${baseUrl}/q/health/${which}`);
  return { status: response.status, body: (await response.json()) as never };
}

/** A Prometheus sample's value (the first series of the name), or undefined. */
async function metric(baseUrl: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${baseUrl}/q/metrics`)).text();
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text);
  return match === null ? undefined : Number(match[1]);
}

const connectionEnv = (prefix: string, proxy: OutageProxy): Record<string, string> => ({
  NODE_ENV: 'production',
  OPENSEARCH_HOST: '127.0.0.1',
  OPENSEARCH_PORT: String(proxy.port),
  WI_OPENSEARCH_INDEX_PREFIX: prefix,
  LOG_LEVEL: 'info',
});

const LIST = '{ getWorkflowInstances(limit: 5, orderBy: {id: ASC}) { id status } }';

describeOpenSearch('OpenSearch outage and recovery (server and normalizer processes behind a proxy)', () => {
  let ns: TestNamespace;
  let proxy: OutageProxy;
  const processes: ServerProcess[] = [];

  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    proxy = await startOutageProxy({ host: node.hostname, port: Number(node.port || '9200') });
  });

  afterAll(async () => {
    for (const p of processes) await stop(p);
    await proxy?.close();
  });

  it('serve:opensearch: each outage answers SERVICE_UNAVAILABLE with the public message and readiness DOWN; it serves again by itself', async () => {
    const prefix = `${ns.prefix}server-`;
    await loadNormalized(ns.client, prefix, eventLines(CONFORMANCE_EVENTS.slice(0, 80)));
    const server = startNodeScript(SERVER_MAIN, { ...connectionEnv(prefix, proxy), HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0', OPENSEARCH_QUERY_TIMEOUT_MS: '5000' }, { defaultWaitMs: 60_000, killAfterMs: 400_000 });
    processes.push(server);
    const port = Number((await server.waitFor(/"httpPort":(\d+)[^\n]*server started/))[1]);
    // The production entry point bounds V8's heap growth as the PostgreSQL server does (heap-tuning.ts).
    expect(server.output()).toMatch(/"heapGrowth":"--heap-growing-percent=20"[^\n]*"starting"|"starting"[^\n]*"heapGrowth":"--heap-growing-percent=20"/);
    const baseUrl = `http://127.0.0.1:${port}`;
    await vi.waitFor(async () => expect((await health(baseUrl, 'ready')).status).toBe(200), WAIT);
    const served = await postGraphQL(baseUrl, LIST);
    expect(served.body.errors).toBeUndefined();
    const rows = served.body.data?.['getWorkflowInstances'];
    expect(rows).toHaveLength(5);

    for (const outage of OUTAGES) {
      await proxy.set(outage);
      const failed = await postGraphQL(baseUrl, LIST);
      expect(failed.status).toBe(200);
      expect(failed.body.errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
      // the public message only: neither the address, the connection error nor the node's own reason reaches clients
      expect(failed.body.errors?.[0]?.message).toBe(SERVICE_UNAVAILABLE_MESSAGE);
      expect(JSON.stringify(failed.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|cluster_block|outage-proxy|stack/i);
      await vi.waitFor(async () => expect((await health(baseUrl, 'ready')).status).toBe(503), WAIT);
      const down = await health(baseUrl, 'ready');
      expect(down.body.status).toBe('DOWN');
      expect(down.body.checks.find((c) => c.name === 'backend')?.data?.error).toMatch(outage === 'refuse' ? /OpenSearch unavailable/ : /OpenSearch answered 503/);
      expect((await health(baseUrl, 'live')).status).toBe(200);

      await proxy.set('forward');
      await vi.waitFor(async () => expect((await health(baseUrl, 'ready')).status).toBe(200), WAIT);
      await vi.waitFor(async () => expect((await postGraphQL(baseUrl, LIST)).body.data?.['getWorkflowInstances']).toEqual(rows), WAIT);
    }
    expect(server.child.exitCode).toBeNull(); // the same process all along
    expect(server.output()).not.toMatch(/"level":"(?:fatal)"/);
    expect(await stop(server)).toBe(0);
  }, 400_000);

  it('normalize:opensearch: keeps retrying through each outage (failed cycles counted, readiness DOWN), then normalizes what arrived meanwhile', async () => {
    const prefix = `${ns.prefix}normalizer-`;
    const names = normalizedIndexNames(prefix);
    await applyRawSchema(ns.client, { prefix });
    const httpPort = await freePort();
    const normalizer = startNodeScript(
      NORMALIZER_MAIN,
      { ...connectionEnv(prefix, proxy), NORMALIZER_HTTP_PORT: String(httpPort), NORMALIZER_INTERVAL_MS: '200', NORMALIZER_MAX_BACKOFF_MS: '2000', NORMALIZER_RETENTION_INTERVAL_MS: '0' },
      { defaultWaitMs: 60_000, killAfterMs: 400_000 },
    );
    processes.push(normalizer);
    const baseUrl = `http://127.0.0.1:${httpPort}`;
    await normalizer.waitFor(/normalizer starting/);
    const direct = new Client({ node: OPENSEARCH_URL });
    /** Served instances normalized so far (read from the node directly, not through the proxy). */
    const servedInstances = async (): Promise<number> => {
      const response = await direct.transport.request({ method: 'POST', path: `/${names.workflowInstances}/_count`, body: { query: { term: { placeholder: false } } } }, { ignore: [404] });
      return (response.body as { count?: number }).count ?? 0;
    };
    // the instances of CONFORMANCE_EVENTS in three parts: before, during the first and during the second outage
    const lines = eventLines(CONFORMANCE_EVENTS);
    const byInstance = new Map<string, string[]>();
    for (const line of lines) {
      const id = String((JSON.parse(line) as { instanceId: string }).instanceId);
      byInstance.set(id, [...(byInstance.get(id) ?? []), line]);
    }
    const groups = [...byInstance.values()];
    const parts = [0, 1, 2].map((k) => groups.filter((_, i) => i % 3 === k).flat());
    let recordTime = RECORD_TIME_MS;
    const write = async (part: readonly string[]): Promise<void> => {
      const written = await writeEventLines(direct, part.map((line) => ({ line, recordTimeMs: recordTime++ })), prefix);
      expect(written.items.every((item) => item.status === 201)).toBe(true);
      await direct.transport.request({ method: 'POST', path: `/${prefix}*/_refresh`, querystring: { allow_no_indices: 'true' } });
    };
    try {
      await write(parts[0]!);
      await vi.waitFor(async () => expect((await health(baseUrl, 'ready')).status).toBe(200), WAIT);
      await vi.waitFor(async () => expect(await servedInstances()).toBeGreaterThan(0), WAIT);
      let expected = await settle(servedInstances);

      for (const [k, outage] of OUTAGES.entries()) {
        const failedBefore = (await metric(baseUrl, 'workflow_index_normalizer_failed_cycles_total')) ?? 0;
        await proxy.set(outage);
        await write(parts[k + 1]!);
        // retrying with back-off: at least two failed cycles, readiness DOWN, the consecutive failures gauge above 0
        await vi.waitFor(async () => expect(await metric(baseUrl, 'workflow_index_normalizer_failed_cycles_total')).toBeGreaterThanOrEqual(failedBefore + 2), WAIT);
        expect((await health(baseUrl, 'ready')).status).toBe(503);
        expect(await metric(baseUrl, 'workflow_index_normalizer_consecutive_failures')).toBeGreaterThan(0);
        expect(await servedInstances()).toBe(expected); // nothing was normalized meanwhile (the node was unreachable to it)

        await proxy.set('forward');
        await vi.waitFor(async () => expect((await health(baseUrl, 'ready')).status).toBe(200), WAIT);
        await vi.waitFor(async () => expect(await servedInstances()).toBeGreaterThan(expected), WAIT);
        expected = await settle(servedInstances);
        expect(await metric(baseUrl, 'workflow_index_normalizer_consecutive_failures')).toBe(0);
      }
      expect(normalizer.output()).toMatch(/normalization cycle failed; retrying/);
      // The 503 outage is logged with its status, request and the node's reason, not only the client's message.
      expect(normalizer.output()).toMatch(/"error":"HTTP 503 on [A-Z]+ \/[^"]*: cluster_block_exception[^\n]*cycle failed; retrying/);
      expect(normalizer.child.exitCode).toBeNull();
    } finally {
      await direct.close();
    }
    expect(await stop(normalizer)).toBe(0);
  }, 400_000);
});

/** The count once it stopped changing over a few polls (the normalizer catches up in cycles). */
async function settle(count: () => Promise<number>): Promise<number> {
  let last = -1;
  let same = 0;
  for (let guard = 0; guard < 300 && same < 5; guard++) {
    const now = await count();
    same = now === last ? same + 1 : 0;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return last;
}
