// OpenTelemetry tracing end to end: main.ts as a child process against real PostgreSQL, exporting to an
// OTLP/HTTP receiver run by the test (a plain node:http server decoding the JSON export). A request that carries a
// W3C traceparent gives a SERVER span in the caller's trace, named after the operation and carrying the request
// id, with the backend queries as its CLIENT children; without the OTEL_* environment nothing is exported.
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import { randomBytes } from 'node:crypto';
import { ensureLoginRole, type TestDatabase, openTestPool } from './support/test-database.js';
import { loadEvents } from './support/load-events.js';
import { attribute, fixtureEvents, type GraphQLResponse, OtlpReceiver, postGraphQL } from '@workflow-index/testkit';
import { startMain, stop, type ServerProcess } from './support/main-process.js';

const it = postgresTest({ prefix: 'wi_tracing' });

const READER_ROLE = 'wi_tracing_test_reader';
const FORWARDER_ROLE = 'wi_tracing_test_forwarder';

/** Starts a production server and returns its base URL once it listens. */
async function startProduction(env: Record<string, string>): Promise<{ server: ServerProcess; baseUrl: string }> {
  const server = startMain({ NODE_ENV: 'production', HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0', ...env });
  const listening = await server.waitFor(/"httpPort":(\d+),"msg":"server started"/);
  return { server, baseUrl: `http://127.0.0.1:${listening[1]}` };
}

const QUERY = 'query RecentRuns { getWorkflowInstances(limit: 2) { id taskExecutions { id } } }';

function post(baseUrl: string, headers: Record<string, string>): Promise<GraphQLResponse<{ getWorkflowInstances?: unknown[] }>> {
  return postGraphQL(baseUrl, QUERY, undefined, headers);
}

describePostgres('OpenTelemetry tracing against real PostgreSQL', () => {
  let db: TestDatabase;
  let readerUrl: string;
  const receiver = new OtlpReceiver();
  const servers: ServerProcess[] = [];

  it.beforeAll(async ({ database }) => {
    db = database;
    await ensureLoginRole(READER_ROLE, 'workflow_index_reader');
    await ensureLoginRole(FORWARDER_ROLE, 'workflow_index_forwarder');
    const forwarder = openTestPool({ connectionString: db.urlAs(FORWARDER_ROLE, 'test-password'), max: 1 });
    try {
      await loadEvents(forwarder, fixtureEvents(), { qualified: false });
    } finally {
      await forwarder.end();
    }
    readerUrl = db.urlAs(READER_ROLE, 'test-password');
    await receiver.start();
  });

  afterAll(async () => {
    for (const s of servers) await stop(s);
    await receiver.close();
  });

  it('exports a span per GraphQL request in the caller\'s trace, with the request id, and the backend queries as its children', async () => {
    const { server, baseUrl } = await startProduction({
      DATABASE_URL: readerUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
      OTEL_SERVICE_NAME: 'wi-tracing-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    servers.push(server);
    expect(server.output()).toContain('OpenTelemetry tracing on');
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const requestId = `trace-test-${randomBytes(4).toString('hex')}`;
    const answer = await post(baseUrl, { traceparent: `00-${traceId}-${callerSpanId}-01`, 'x-request-id': requestId });
    expect(answer.status).toBe(200);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.getWorkflowInstances).toHaveLength(2);

    await receiver.waitFor((spans) => spans.filter((s) => s.traceId === traceId).length >= 3);
    const inTrace = receiver.spans.filter((s) => s.traceId === traceId);
    const request = inTrace.find((s) => s.parentSpanId === callerSpanId);
    expect(request, JSON.stringify(inTrace)).toBeDefined();
    expect(request?.name).toBe('query RecentRuns');
    expect(request?.kind).toBe(2); // SERVER
    expect(attribute(request!, 'graphql.operation.name')?.stringValue).toBe('RecentRuns');
    expect(attribute(request!, 'graphql.operation.type')?.stringValue).toBe('query');
    expect(attribute(request!, 'http.request.header.x-request-id')?.arrayValue?.values[0]?.stringValue).toBe(requestId);
    expect(Number(attribute(request!, 'http.response.status_code')?.intValue)).toBe(200);

    const children = inTrace.filter((s) => s.parentSpanId === request?.spanId);
    expect(children.map((s) => attribute(s, 'db.operation.name')?.stringValue).sort()).toEqual(['listInstances', 'tasksOfInstances']);
    for (const child of children) expect(child.kind).toBe(3); // CLIENT
    expect(receiver.serviceNames).toContain('wi-tracing-test');
    expect([...receiver.contentTypes]).toEqual(['application/json']);

    // Without a traceparent the request starts a trace of its own.
    const before = new Set(receiver.spans.map((s) => s.traceId));
    expect((await post(baseUrl, {})).status).toBe(200);
    await receiver.waitFor((spans) => spans.some((s) => !before.has(s.traceId) && s.name === 'query RecentRuns'));
    const own = receiver.spans.find((s) => !before.has(s.traceId) && s.name === 'query RecentRuns');
    expect(own?.parentSpanId ?? '').toBe('');

    // The same request again runs compiled (server/core/src/compiled-execution.ts, from the second execution on):
    // its backend queries stay children of its span.
    for (let round = 0; round < 2; round += 1) {
      const again = randomBytes(16).toString('hex');
      const caller = randomBytes(8).toString('hex');
      expect((await post(baseUrl, { traceparent: `00-${again}-${caller}-01` })).status).toBe(200);
      await receiver.waitFor((spans) => spans.filter((s) => s.traceId === again).length >= 3);
      const spans = receiver.spans.filter((s) => s.traceId === again);
      const span = spans.find((s) => s.parentSpanId === caller);
      expect(spans.filter((s) => s.parentSpanId === span?.spanId).map((s) => attribute(s, 'db.operation.name')?.stringValue).sort(), JSON.stringify(spans)).toEqual(['listInstances', 'tasksOfInstances']);
    }
  }, 90_000);

  it('exports nothing when the environment does not ask for tracing (OTEL_TRACES_EXPORTER=none wins over an endpoint)', async () => {
    const { server, baseUrl } = await startProduction({
      DATABASE_URL: readerUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    servers.push(server);
    const traceId = randomBytes(16).toString('hex');
    expect((await post(baseUrl, { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` })).status).toBe(200);
    // A graceful stop flushes whatever a tracing server would still hold.
    expect(await stop(server)).toBe(0);
    expect(server.output()).not.toContain('OpenTelemetry tracing on');
    expect(receiver.spans.filter((s) => s.traceId === traceId)).toEqual([]);
  }, 60_000);

  it('refuses an exporter or protocol it cannot honour, saying what to set', async () => {
    const server = startMain({ NODE_ENV: 'production', DATABASE_URL: readerUrl, OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(await server.exited).toBe(2);
    expect(server.output()).toContain('OTEL_TRACES_EXPORTER=zipkin is not supported: use otlp (OTLP over HTTP/JSON) or none');
    expect(server.output()).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported');
    expect(server.output()).toContain('OTEL_EXPORTER_OTLP_PROTOCOL=http/json');
  }, 60_000);
});
