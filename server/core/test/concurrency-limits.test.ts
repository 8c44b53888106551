// GRAPHQL_MAX_CONCURRENT_READS (reads one request has in flight) and HTTP_MAX_REQUESTS_PER_CLIENT
// (requests one client address has in flight), in-process and on real sockets.
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { ConcurrencyLimit } from '../src/bounded-reader.js';
import { ClientRequestLimit, clientKey } from '../src/client-limit.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import type { Reader } from '../src/reader.js';
import { MemoryLog, testApp, testConfig } from '@workflow-index/testkit';
import type { GraphQLResponseBody } from '@workflow-index/testkit';
import { INSTANCE_A, RecordingReader } from '@workflow-index/testkit';

/** Counts reads in flight; each read finishes on a later turn of the event loop, after every read of the same tick has started. */
function countingReader(): { reader: RecordingReader; maxInFlight: () => number } {
  let inFlight = 0;
  let max = 0;
  const reader = new RecordingReader({
    instances: Array.from({ length: 12 }, (_, i) => ({ ...INSTANCE_A, id: `i${i}` })),
    onRead: async () => {
      inFlight += 1;
      max = Math.max(max, inFlight);
      await new Promise<void>((resolve) => setImmediate(resolve));
      inFlight -= 1;
    },
  });
  return { reader, maxInFlight: () => max };
}

/** A reader whose getInstance reads wait until `release()`; `entered(n)` resolves once n reads wait. */
function gatedReader(): { reader: RecordingReader; entered: (n: number) => Promise<void>; release: () => void } {
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let waiting = 0;
  const watchers: { n: number; resolve: () => void }[] = [];
  const reader = new RecordingReader({
    onRead: async (method) => {
      if (method !== 'getInstance') return;
      waiting += 1;
      for (const w of watchers) if (waiting >= w.n) w.resolve();
      await gate;
    },
  });
  const entered = (n: number) => new Promise<void>((resolve) => (waiting >= n ? resolve() : watchers.push({ n, resolve })));
  return { reader, entered, release: () => open() };
}

const aliases = (n: number): string => `{ ${Array.from({ length: n }, (_, i) => `a${i}: getWorkflowInstance(id: "i${i}") { id }`).join(' ')} }`;

function post(app: ReturnType<typeof testApp>['app'], query: string, address: string | null, headers: Record<string, string> = {}): Promise<Response> {
  return app.fetch(new Request('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) }), { address });
}

describe('ConcurrencyLimit', () => {
  it('runs at most `limit` tasks at once, the rest in arrival order, and frees a slot on failure too', async () => {
    const limit = new ConcurrencyLimit(2);
    const started: number[] = [];
    const finishers: (() => void)[] = [];
    const task = (i: number, fail = false) =>
      limit.run(
        () =>
          new Promise<number>((resolve, reject) => {
            started.push(i);
            finishers[i] = () => (fail ? reject(new Error(`task ${i}`)) : resolve(i));
          }),
      );
    const results = [task(0, true), task(1), task(2), task(3)].map((p) => p.catch((e: Error) => e.message));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);
    finishers[0]?.();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    finishers[2]?.();
    finishers[1]?.();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2, 3]);
    finishers[3]?.();
    expect(await Promise.all(results)).toEqual(['task 0', 1, 2, 3]);
  });
});

describe('GRAPHQL_MAX_CONCURRENT_READS', () => {
  it('12 aliases of one request read 4 at a time by default, and all are answered', async () => {
    const { reader, maxInFlight } = countingReader();
    const { app } = testApp({ reader });
    const response = await post(app, aliases(12), null);
    const body = (await response.json()) as GraphQLResponseBody;
    expect(Object.keys(body.data ?? {})).toHaveLength(12);
    expect(body.data?.['a11']).toEqual({ id: 'i11' });
    expect(reader.callsOf('getInstance')).toHaveLength(12);
    expect(maxInFlight()).toBe(4);
  });

  it('is configurable; the bound is per request (two requests read side by side)', async () => {
    const { reader, maxInFlight } = countingReader();
    const { app } = testApp({ reader, env: { GRAPHQL_MAX_CONCURRENT_READS: '1' } });
    await Promise.all([post(app, aliases(6), null), post(app, aliases(6), null)]);
    expect(reader.callsOf('getInstance')).toHaveLength(12);
    expect(maxInFlight()).toBe(2);
  });
});

describe('HTTP_MAX_REQUESTS_PER_CLIENT', () => {
  it('a client at its bound gets 429 TOO_MANY_REQUESTS with Retry-After at once; other clients are served; the slot frees when an answer is sent', async () => {
    const { reader, entered, release } = gatedReader();
    const { app, log } = testApp({ reader, env: { HTTP_MAX_REQUESTS_PER_CLIENT: '2' } });
    const slow = [post(app, '{ getWorkflowInstance(id: "inst-a") { id } }', '10.0.0.1'), post(app, '{ getWorkflowInstance(id: "inst-b") { id } }', '10.0.0.1')];
    await entered(2);
    const refused = await post(app, '{ __typename }', '10.0.0.1');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({
      errors: [
        {
          message:
            'Too many requests in flight from this client: at most 2 at a time (HTTP_MAX_REQUESTS_PER_CLIENT). Wait for an answer before sending the next request, or retry after the Retry-After delay.',
          extensions: { code: 'TOO_MANY_REQUESTS' },
        },
      ],
    });
    expect((await post(app, '{ __typename }', '10.0.0.2')).status).toBe(200);
    // In-process callers that name no client are not counted.
    expect((await post(app, '{ __typename }', null)).status).toBe(200);
    release();
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200]);
    expect((await post(app, '{ __typename }', '10.0.0.1')).status).toBe(200);
    expect(reader.callsOf('getInstance')).toHaveLength(2);
    expect(log.entries.filter((e) => e['msg'] === 'request' && e['status'] === 429).map((e) => e['errorCodes'])).toEqual([['TOO_MANY_REQUESTS']]);
    expect(await app.registry.metrics()).toContain('graphql_errors_total{operation_type="unknown",operation_name="anonymous",code="TOO_MANY_REQUESTS",backend="test"} 1');
  });

  it('0 disables the bound', async () => {
    const { reader, entered, release } = gatedReader();
    const { app } = testApp({ reader, env: { HTTP_MAX_REQUESTS_PER_CLIENT: '0' } });
    const slow = Array.from({ length: 5 }, () => post(app, '{ getWorkflowInstance(id: "inst-a") { id } }', '10.0.0.1'));
    await entered(5);
    release();
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('HTTP_CLIENT_ADDRESS_HEADER: the last entry of the header names the client', async () => {
    const { reader, entered, release } = gatedReader();
    const { app } = testApp({ reader, env: { HTTP_MAX_REQUESTS_PER_CLIENT: '1', HTTP_CLIENT_ADDRESS_HEADER: 'X-Forwarded-For' } });
    const slow = post(app, '{ getWorkflowInstance(id: "inst-a") { id } }', '10.9.9.9', { 'x-forwarded-for': 'spoofed, 192.0.2.7' });
    await entered(1);
    expect((await post(app, '{ __typename }', '10.9.9.9', { 'x-forwarded-for': '192.0.2.7' })).status).toBe(429);
    expect((await post(app, '{ __typename }', '10.9.9.9', { 'x-forwarded-for': '192.0.2.7, 192.0.2.8' })).status).toBe(200);
    release();
    expect((await slow).status).toBe(200);
  });

  it('ClientRequestLimit forgets clients with nothing in flight; a release counts once', () => {
    const limit = new ClientRequestLimit(1);
    const release = limit.acquire('a');
    expect(limit.acquire('a')).toBeNull();
    expect(limit.clients).toBe(1);
    release?.();
    release?.();
    expect(limit.clients).toBe(0);
    const again = limit.acquire('a');
    expect(again).not.toBeNull();
    expect(limit.acquire('a')).toBeNull();
    expect(clientKey(' a, b ,c ', '1.2.3.4')).toBe('c');
    expect(clientKey(' , ', '1.2.3.4')).toBe('1.2.3.4');
    expect(clientKey(undefined, undefined)).toBeNull();
  });
});

describe('on real sockets', () => {
  const running: RunningServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((r) => r.close()));
  });

  function send(port: number, query: string): Promise<{ status: number; body: string; retryAfter: string | undefined }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json' }, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfter: res.headers['retry-after'] }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(JSON.stringify({ query }));
    });
  }

  it('the socket address is the client: the third request of 127.0.0.1 with a bound of 2 is 429', async () => {
    const { reader, entered, release } = gatedReader();
    const config = testConfig({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', HTTP_MAX_REQUESTS_PER_CLIENT: '2' });
    const log = new MemoryLog();
    const app = createApp({ config, reader: reader as Reader, logger: log.logger(), backend: 'test' });
    const server = await startHttpServer(app, config, log.logger());
    running.push(server);
    const slow = [send(server.httpPort, '{ getWorkflowInstance(id: "inst-a") { id } }'), send(server.httpPort, '{ getWorkflowInstance(id: "inst-a") { id } }')];
    await entered(2);
    const refused = await send(server.httpPort, '{ __typename }');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({ errors: [{ extensions: { code: 'TOO_MANY_REQUESTS' } }] });
    release();
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200]);
    expect((await send(server.httpPort, '{ __typename }')).status).toBe(200);
  });
});
