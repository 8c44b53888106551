// X-Request-Id: accepted when sane, else generated; returned on every response; on every log line of the request,
// whoever writes it (the request log, the GraphQL error policy, yoga), on app.fetch and on node:http alike.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import type { Reader } from '../src/reader.js';
import { requestIdOf } from '../src/request-context.js';
import { MemoryLog, get, postGraphQL, testApp, testConfig } from '@workflow-index/testkit';
import { RecordingReader } from '@workflow-index/testkit';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdOf', () => {
  it('keeps sane tokens, replaces anything else with a UUID', () => {
    for (const sane of ['abc', '4bf92f3577b34da6a3ce929d0e0e4736', '00-4bf92f35-01', 'req:1/2+3=@x.y_z', 'a'.repeat(128)]) expect(requestIdOf(sane)).toBe(sane);
    for (const insane of [null, undefined, '', 'a b', 'a'.repeat(129), '"quoted"', 'x,y', 'ünï', 'a\tb', '{"level":"fatal"}']) expect(requestIdOf(insane)).toMatch(UUID);
  });
});

describe('request id (app.fetch)', () => {
  it('echoes a sane X-Request-Id and puts it on every log line of the request, the error policy\'s included', async () => {
    const reader = new RecordingReader({ onRead: () => Promise.reject(new Error('boom')) });
    const { app, log } = testApp({ reader });
    const { response } = await postGraphQL(app, 'query Q { getWorkflowInstances { id } }', undefined, { 'x-request-id': 'gw-1234' });
    expect(response.headers.get('x-request-id')).toBe('gw-1234');
    // yoga's own debug lines included.
    expect(log.entries.map((e) => e['msg'])).toEqual([
      'Parsing request to extract GraphQL parameters',
      'Processing GraphQL Parameters',
      'unexpected error while executing a GraphQL operation',
      'Processing GraphQL Parameters done.',
      'request',
    ]);
    expect(new Set(log.entries.map((e) => e['requestId']))).toEqual(new Set(['gw-1234']));
  });

  it('generates one per request when none (or an insane one) is sent; lines outside requests carry none', async () => {
    const { app, log } = testApp();
    const a = await get(app, '/q/health/live');
    const b = await get(app, '/nope', { 'x-request-id': 'bad id with spaces' });
    const idA = a.headers.get('x-request-id');
    const idB = b.headers.get('x-request-id');
    expect(idA).toMatch(UUID);
    expect(idB).toMatch(UUID);
    expect(idA).not.toBe(idB);
    expect(log.entries.filter((e) => e['msg'] === 'request').map((e) => e['requestId'])).toEqual([idA, idB]);
    app.logger.info('outside');
    expect(log.entries.at(-1)).not.toHaveProperty('requestId');
  });

  it('is on 429 answers too', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const { app } = testApp({ reader: new RecordingReader({ onRead: () => gate }), env: { HTTP_MAX_REQUESTS_PER_CLIENT: '1' } });
    const post = (id: string): Promise<Response> =>
      app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-request-id': id }, body: '{"query":"{ getWorkflowInstances { id } }"}' }), { address: '10.0.0.1' });
    const slow = post('r-slow');
    const refused = await post('r-429');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-request-id')).toBe('r-429');
    open();
    expect((await slow).headers.get('x-request-id')).toBe('r-slow');
  });
});

describe('request id (node:http)', () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.close()));
  });

  function send(port: number, path: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; requestId: string | undefined }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, requestId: res.headers['x-request-id'] as string | undefined }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('on the POST /graphql fast path and through the fetch path, in the header and the log', async () => {
    const config = testConfig({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '0' });
    const log = new MemoryLog();
    const app = createApp({ config, reader: new RecordingReader() as Reader, logger: log.logger(), backend: 'test' });
    const server = await startHttpServer(app, config, log.logger());
    running.push(server);
    const graphql = await send(server.httpPort, '/graphql', 'POST', { 'content-type': 'application/json', 'x-request-id': 'node-1' }, '{"query":"{ getWorkflowInstances { id } }"}');
    const health = await send(server.httpPort, '/q/health/live', 'GET', {});
    expect(graphql).toEqual({ status: 200, requestId: 'node-1' });
    expect(health.status).toBe(200);
    expect(health.requestId).toMatch(UUID);
    expect(log.entries.filter((e) => e['msg'] === 'request').map((e) => [e['route'], e['requestId']])).toEqual([
      ['/graphql', 'node-1'],
      ['/q/health/live', health.requestId],
    ]);
  });
});
