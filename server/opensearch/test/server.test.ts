// The production OpenSearch server against the real node: readiness DOWN with the reason while the normalized indices
// are missing and UP once they exist, GraphQL over HTTP, ingestion metrics, an unreachable cluster answered promptly as
// SERVICE_UNAVAILABLE, and main.ts as `npm run serve:opensearch` runs it (configuration errors exit 2, SIGTERM drains
// and exits 0, with one process or SERVER_PROCESSES workers).
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { attribute, CONFORMANCE_EVENTS, OtlpReceiver, postGraphQL, startNodeScript } from '@workflow-index/testkit';
import { loadOpenSearchServerConfig } from '../src/opensearch-server-config.js';
import { type OpenSearchServer, startOpenSearchServer } from '../src/opensearch-server.js';
import { eventLines, loadNormalized } from './support/normalized-store.js';
import { startOutageProxy } from './support/outage-proxy.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const node = new URL(OPENSEARCH_URL);

const connectionEnv = (prefix: string): Record<string, string> => ({
  NODE_ENV: 'production',
  OPENSEARCH_HOST: node.hostname,
  OPENSEARCH_PORT: node.port || '9200',
  WI_OPENSEARCH_INDEX_PREFIX: prefix,
  HTTP_PORT: '0',
  HEALTH_DISK_MIN_FREE_BYTES: '0',
});

async function ready(baseUrl: string): Promise<{ status: number; body: { status: string; checks: { name: string; status: string; data?: { error?: string } }[] } }> {
  const response = await fetch(`${baseUrl}/q/health/ready`);
  return { status: response.status, body: (await response.json()) as never };
}

describeOpenSearch('OpenSearch production server', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  it('is not ready while the normalized indices are missing (and says so), then serves queries and metrics once they exist', async () => {
    const prefix = `${ns.prefix}in-process-`;
    const config = loadOpenSearchServerConfig(connectionEnv(prefix));
    expect(config.opensearch.schemaInit).toBe(false);
    let server: OpenSearchServer | undefined;
    try {
      server = await startOpenSearchServer(config, pino({ level: 'silent' }));
      const down = await ready(server.baseUrl);
      expect(down.status).toBe(503);
      const backend = down.body.checks.find((c) => c.name === 'backend')!;
      expect(backend.status).toBe('DOWN');
      expect(backend.data?.error).toMatch(/does not exist.*opensearch-setup/);
      const unavailable = await postGraphQL(server.baseUrl, '{ getWorkflowInstances { id } }');
      expect(unavailable.body.errors?.[0]?.extensions?.code).toBe('SERVICE_UNAVAILABLE');

      await loadNormalized(ns.client, prefix, eventLines(CONFORMANCE_EVENTS));
      const up = await ready(server.baseUrl);
      expect(up.status).toBe(200);
      const answer = await postGraphQL(server.baseUrl, '{ getWorkflowInstances(limit: 3, orderBy: {id: ASC}) { id status taskExecutions { id } } getWorkflowInstance(id: "conformance-placeholder-1") { id } }');
      expect(answer.status).toBe(200);
      const rows = answer.body.data?.['getWorkflowInstances'] as { id: string }[];
      expect(rows.map((r) => r.id)).toEqual([...rows.map((r) => r.id)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
      expect(rows).toHaveLength(3);
      expect(answer.body.data?.['getWorkflowInstance']).toBeNull();
      const metrics = await (await fetch(`${server.baseUrl}/q/metrics`)).text();
      const served = /^workflow_index_instances(?:\{[^}]*\})? (\d+)/m.exec(metrics);
      expect(Number(served?.[1])).toBeGreaterThan(100);
      expect(metrics).toMatch(/^workflow_index_raw_events\{store="task"[^}]*\} [1-9]/m);
      expect(metrics).toMatch(/^workflow_index_placeholder_instances(?:\{[^}]*\})? [1-9]/m);
    } finally {
      await server?.close();
    }
  }, 120_000);

  it('an unreachable cluster: readiness DOWN and queries SERVICE_UNAVAILABLE, promptly', async () => {
    const config = loadOpenSearchServerConfig({ ...connectionEnv(ns.prefix), OPENSEARCH_HOST: '127.0.0.1', OPENSEARCH_PORT: '1', OPENSEARCH_QUERY_TIMEOUT_MS: '2000' });
    const server = await startOpenSearchServer(config, pino({ level: 'silent' }));
    try {
      expect((await ready(server.baseUrl)).status).toBe(503);
      const answer = await postGraphQL(server.baseUrl, '{ getWorkflowInstances { id } }');
      expect(answer.body.errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('an outage while serving: readiness DOWN and SERVICE_UNAVAILABLE at once, both recover by themselves', async () => {
    const prefix = `${ns.prefix}outage-`;
    await loadNormalized(ns.client, prefix, eventLines(CONFORMANCE_EVENTS.slice(0, 80)));
    const proxy = await startOutageProxy({ host: node.hostname, port: Number(node.port || '9200') });
    const config = loadOpenSearchServerConfig({ ...connectionEnv(prefix), OPENSEARCH_HOST: '127.0.0.1', OPENSEARCH_PORT: String(proxy.port) });
    const server = await startOpenSearchServer(config, pino({ level: 'silent' }));
    try {
      expect((await ready(server.baseUrl)).status).toBe(200);
      expect((await postGraphQL(server.baseUrl, '{ getWorkflowInstances(limit: 1) { id } }')).body.errors).toBeUndefined();
      await proxy.set('refuse');
      const down = await ready(server.baseUrl);
      expect(down.status).toBe(503);
      expect(down.body.checks.find((c) => c.name === 'backend')?.data?.error).toMatch(/OpenSearch unavailable/);
      const failed = await postGraphQL(server.baseUrl, '{ getWorkflowInstances(limit: 1) { id } }');
      expect(failed.body.errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
      await proxy.set('forward');
      expect((await ready(server.baseUrl)).status).toBe(200);
      const back = await postGraphQL(server.baseUrl, '{ getWorkflowInstances(limit: 1) { id } }');
      expect(back.body.errors).toBeUndefined();
      expect(back.body.data?.['getWorkflowInstances']).toHaveLength(1);
    } finally {
      await server.close();
      await proxy.close();
    }
  }, 120_000);

  it('main.ts: a configuration problem exits 2 naming every problem, without the password', async () => {
    const run = spawnMain({ NODE_ENV: 'production', OPENSEARCH_PORT: 'x', OPENSEARCH_PASSWORD: 'secret-pw', OPENSEARCH_PROTOCOL: 'ftp' });
    expect(await run.exited).toBe(2);
    expect(run.output()).toMatch(/OPENSEARCH_HOST is required/);
    expect(run.output()).toMatch(/OPENSEARCH_PORT must be a port number/);
    expect(run.output()).toMatch(/OPENSEARCH_PROTOCOL must be http or https/);
    expect(run.output()).not.toContain('secret-pw');
  }, 60_000);

  it('main.ts: serves over HTTP as serve:opensearch runs it, traces when OTEL_* says so, and drains on SIGTERM with exit 0', async () => {
    const prefix = `${ns.prefix}main-`;
    await loadNormalized(ns.client, prefix, eventLines(CONFORMANCE_EVENTS.slice(0, 80)));
    const receiver = new OtlpReceiver();
    await receiver.start();
    const run = spawnMain({ ...connectionEnv(prefix), OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`, OTEL_BSP_SCHEDULE_DELAY: '100' });
    try {
      const port = Number((await run.waitFor(/"httpPort":(\d+)[^\n]*server started/))[1]);
      const baseUrl = `http://127.0.0.1:${port}`;
      expect((await ready(baseUrl)).status).toBe(200);
      const answer = await postGraphQL(baseUrl, 'query Completed { getWorkflowInstances(filter: {status: COMPLETED}) { id status } }');
      expect(answer.status).toBe(200);
      const rows = answer.body.data?.['getWorkflowInstances'] as { status: string }[];
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.status))).toEqual(new Set(['COMPLETED']));
      // the request's SERVER span, with the search as its CLIENT child
      await receiver.waitFor((spans) => spans.some((s) => s.name === 'query Completed'));
      const request = receiver.spans.find((s) => s.name === 'query Completed')!;
      expect(request.kind).toBe(2);
      await receiver.waitFor((spans) => spans.some((s) => s.parentSpanId === request.spanId));
      const child = receiver.spans.find((s) => s.parentSpanId === request.spanId)!;
      expect(child.kind).toBe(3);
      expect(attribute(child, 'db.operation.name')?.stringValue).toBe('listInstances');
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    await receiver.close();
  }, 120_000);

  it('main.ts with SERVER_PROCESSES=2: both workers answer on one port, /q/metrics counts both, SIGTERM drains both with exit 0', async () => {
    const prefix = `${ns.prefix}procs-`;
    await loadNormalized(ns.client, prefix, eventLines(CONFORMANCE_EVENTS.slice(0, 80)));
    const run = spawnMain({ ...connectionEnv(prefix), SERVER_PROCESSES: '2' });
    try {
      const port = Number((await run.waitFor(/"httpPort":(\d+)[^\n]*server started/))[1]);
      await run.waitFor(/"msg":"server processes started"/);
      const baseUrl = `http://127.0.0.1:${port}`;
      const requests = 20;
      for (let i = 0; i < requests; i++) {
        // A connection of its own each: the primary hands them to the workers in turn.
        const answer = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', Connection: 'close' }, body: JSON.stringify({ query: '{ getWorkflowInstances(filter: {status: COMPLETED}) { id } }' }) });
        expect(answer.status).toBe(200);
      }
      // Request lines wait up to 100 ms in each worker's buffer.
      await expect.poll(() => new Set([...run.output().matchAll(/"worker":(\d+)[^\n]*"msg":"request"/g)].map((m) => m[1])).size).toBe(2);
      const metrics = await (await fetch(`${baseUrl}/q/metrics`)).text();
      const count = /^http_server_requests_seconds_count\{method="POST",uri="\/graphql",status="200"[^}]*\} (\d+)$/m.exec(metrics);
      expect(Number(count?.[1])).toBe(requests);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
    expect((run.output().match(/"msg":"shutdown complete"/g) ?? []).length).toBe(2);
  }, 120_000);
});

/** main.ts as `npm run serve:opensearch` runs it. */
function spawnMain(env: Record<string, string>) {
  return startNodeScript(MAIN, env, { defaultWaitMs: 60_000, killAfterMs: 100_000 });
}
