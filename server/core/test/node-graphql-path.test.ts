// POST /graphql on real sockets takes yoga's node integration (not app.fetch): the same answers, headers,
// limits, logs and metrics as the in-process path.
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import type { Reader } from '../src/reader.js';
import { MemoryLog, testConfig } from '@workflow-index/testkit';
import { INSTANCE_A, RecordingReader } from '@workflow-index/testkit';

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/** `chunks` are written one by one without Content-Length (chunked transfer encoding). */
function send(port: number, options: { path?: string; method?: string; headers?: Record<string, string>; body?: string; chunks?: string[] }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: options.path ?? '/graphql', method: options.method ?? 'POST', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.chunks !== undefined) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start(env: Record<string, string> = {}, reader: RecordingReader = new RecordingReader()) {
  const config = testConfig({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', ...env });
  const log = new MemoryLog();
  const app = createApp({ config, reader: reader as Reader, logger: log.logger(), backend: 'test' });
  const server = await startHttpServer(app, config, log.logger());
  running.push(server);
  return { port: server.httpPort, app, log, reader };
}

const JSON_HEADERS = { 'content-type': 'application/json' };

describe('POST /graphql over node:http', () => {
  it('answers like app.fetch: status, content type, body, Content-Length', async () => {
    const { port, app } = await start();
    const body = JSON.stringify({ query: '{ getWorkflowInstance(id: "inst-a") { id name startDate } }' });
    const viaSocket = await send(port, { headers: JSON_HEADERS, body });
    const inProcess = await app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers: JSON_HEADERS, body }));
    expect(viaSocket.status).toBe(200);
    expect(viaSocket.headers['content-type']).toBe(inProcess.headers.get('content-type'));
    expect(viaSocket.headers['content-length']).toBe(String(viaSocket.body.byteLength));
    expect(viaSocket.body.toString('utf8')).toBe(await inProcess.text());
    expect(JSON.parse(viaSocket.body.toString('utf8'))).toEqual({ data: { getWorkflowInstance: { id: 'inst-a', name: 'order-intake', startDate: '2026-05-12T09:14:03.512378Z' } } });
  });

  it('a Content-Length above HTTP_MAX_BODY_BYTES is 413 before anything runs; so is a longer chunked body', async () => {
    const { port, reader } = await start({ HTTP_MAX_BODY_BYTES: '2048' });
    const big = JSON.stringify({ query: `{ getWorkflowInstances { id } } # ${'x'.repeat(3000)}` });
    const framed = await send(port, { headers: JSON_HEADERS, body: big });
    expect(framed.status).toBe(413);
    expect(JSON.parse(framed.body.toString('utf8'))).toEqual({ errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] });
    const chunked = await send(port, { headers: JSON_HEADERS, chunks: [big.slice(0, 1500), big.slice(1500)] });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body.toString('utf8'))).toEqual({ errors: [{ message: 'Request body too large', extensions: { code: 'REQUEST_ENTITY_TOO_LARGE' } }] });
    expect(reader.calls).toEqual([]);
    const small = JSON.stringify({ query: '{ getWorkflowInstance(id: "inst-a") { id } }' });
    const smallChunked = await send(port, { headers: JSON_HEADERS, chunks: [small.slice(0, 10), small.slice(10)] });
    expect(JSON.parse(smallChunked.body.toString('utf8'))).toEqual({ data: { getWorkflowInstance: { id: 'inst-a' } } });
  });

  it('CSRF: text/plain without a CSRF header is 403; with one it passes on to yoga (415 for text/plain)', async () => {
    const { port } = await start();
    const body = '{"query":"{ getWorkflowInstance(id: \\"inst-a\\") { id } }"}';
    const refused = await send(port, { headers: { 'content-type': 'text/plain' }, body });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body.toString('utf8'))).toEqual({ errors: [{ message: 'Refused as a possible cross-site request forgery: send the request with Content-Type: application/json, or add one of the headers x-graphql-yoga-csrf, x-requested-with, apollo-require-preflight (any value).', extensions: { code: 'CSRF_HEADER_REQUIRED' } }] });
    const accepted = await send(port, { headers: { 'content-type': 'text/plain', 'x-graphql-yoga-csrf': '1' }, body });
    expect(accepted.status).toBe(415);
  });

  it('CORS: Vary and Access-Control-Allow-Origin for configured origins only, then compression', async () => {
    const reader = new RecordingReader({ instances: Array.from({ length: 40 }, (_, i) => ({ ...INSTANCE_A, id: `instance-${i}` })) });
    const { port } = await start({ CORS_ENABLED: 'true', CORS_ORIGINS: 'https://a.example' }, reader);
    const query = JSON.stringify({ query: '{ getWorkflowInstances { id name namespace version status startDate endDate inputData outputData } }' });
    const allowed = await send(port, { headers: { ...JSON_HEADERS, origin: 'https://a.example', 'accept-encoding': 'gzip' }, body: query });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://a.example');
    expect(allowed.headers['access-control-expose-headers']).toBe('X-Request-Id');
    expect(allowed.headers['vary']).toBe('Origin, Accept-Encoding');
    expect(allowed.headers['content-encoding']).toBe('gzip');
    expect(allowed.headers['content-length']).toBe(String(allowed.body.byteLength));
    expect((JSON.parse(gunzipSync(allowed.body).toString('utf8')) as { data: { getWorkflowInstances: unknown[] } }).data.getWorkflowInstances).toHaveLength(40);
    const other = await send(port, { headers: { ...JSON_HEADERS, origin: 'https://evil.example' }, body: query });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['access-control-expose-headers']).toBeUndefined();
    expect(other.headers['content-encoding']).toBeUndefined();
    expect(other.headers['vary']).toBe('Origin, Accept-Encoding');
  });

  it('logs one request entry and records the operation metrics', async () => {
    const { port, log, app } = await start();
    await send(port, { headers: JSON_HEADERS, body: JSON.stringify({ query: 'query Named { getWorkflowInstance(id: "inst-a") { id } }' }) });
    await send(port, { path: '/graphql?x=1', headers: JSON_HEADERS, body: JSON.stringify({ query: '{ nope }' }) });
    const entries = log.entries.filter((e) => e['msg'] === 'request');
    expect(entries.map(({ method, route, path, status, operationName, operationType, errorCodes }) => ({ method, route, path, status, operationName, operationType, errorCodes }))).toEqual([
      { method: 'POST', route: '/graphql', path: '/graphql', status: 200, operationName: 'Named', operationType: 'query', errorCodes: undefined },
      { method: 'POST', route: '/graphql', path: '/graphql', status: 200, operationName: undefined, operationType: 'query', errorCodes: ['GRAPHQL_VALIDATION_FAILED'] },
    ]);
    const metrics = await app.registry.metrics();
    expect(metrics).toContain('graphql_operation_duration_seconds_count{backend="test",operation_type="query",operation_name="Named"} 1');
    expect(metrics).toContain('graphql_errors_total{operation_type="query",operation_name="anonymous",code="GRAPHQL_VALIDATION_FAILED",backend="test"} 1');
    expect(metrics).toContain('http_server_requests_seconds_count{backend="test",method="POST",uri="/graphql",status="200",outcome="SUCCESS"} 2');
  });

  it('an invalid Host is 400, as for every other request', async () => {
    const { port } = await start();
    const response = await send(port, { headers: { ...JSON_HEADERS, host: 'bad host' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(response.status).toBe(400);
  });
});
