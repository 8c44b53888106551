// The app on real sockets (loopback, port 0): compression, TLS, graceful close, signals.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { installGracefulShutdown, startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import type { Reader } from '../src/reader.js';
import { MemoryLog, testConfig } from '@workflow-index/testkit';
import { INSTANCE_A, RecordingReader } from '@workflow-index/testkit';

interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

function send(options: { port: number; path: string; method?: string; headers?: Record<string, string>; body?: string; tls?: boolean; agent?: HttpAgent }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = (options.tls === true ? httpsRequest : httpRequest)(
      { host: '127.0.0.1', port: options.port, path: options.path, method: options.method ?? 'GET', headers: options.headers, rejectUnauthorized: false, agent: options.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

function postQuery(port: number, query: string, headers: Record<string, string> = {}, tls = false): Promise<RawResponse> {
  return send({ port, tls, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
}

/** A reader whose reads wait until `release()`; `inside` resolves once a read has started. */
function slowReader(): { reader: RecordingReader; inside: Promise<void>; release: () => void } {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered: () => void = () => undefined;
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const reader = new RecordingReader({
    onRead: async () => {
      entered();
      await gate;
    },
  });
  return { reader, inside, release };
}

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start(env: Record<string, string> = {}, reader: RecordingReader = new RecordingReader()) {
  const config = testConfig({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', HTTPS_PORT: '0', ...env });
  const log = new MemoryLog();
  const logger = log.logger();
  const app = createApp({ config, reader: reader as Reader, logger, backend: 'test' });
  const server = await startHttpServer(app, config, logger);
  running.push(server);
  return { server, app, log, reader };
}

// Large enough to pass the compression threshold: 40 instances with payloads.
const manyInstances = Array.from({ length: 40 }, (_, i) => ({ ...INSTANCE_A, id: `instance-${i}` }));
const bigQuery = '{ getWorkflowInstances { id name namespace version status startDate endDate inputData outputData } }';

describe('startHttpServer', () => {
  it('listens on port 0, answers GraphQL, refuses GET /graphql with 405', async () => {
    const { server } = await start();
    expect(server.httpPort).toBeGreaterThan(0);
    expect(server.httpsPort).toBeNull();
    const ok = await postQuery(server.httpPort, '{ getWorkflowInstance(id: "inst-a") { id name } }');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body.toString('utf8'))).toEqual({ data: { getWorkflowInstance: { id: 'inst-a', name: 'order-intake' } } });
    const refused = await send({ port: server.httpPort, path: '/graphql?query=%7B__typename%7D' });
    expect(refused.status).toBe(405);
    expect(refused.headers['allow']).toBe('POST, OPTIONS');
  });

  it('compresses with gzip or br as negotiated, and not below the threshold', async () => {
    const { server } = await start({}, new RecordingReader({ instances: manyInstances }));
    const identity = await postQuery(server.httpPort, bigQuery);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.byteLength).toBeGreaterThan(1024);
    const expected = JSON.parse(identity.body.toString('utf8')) as unknown;

    const gzip = await postQuery(server.httpPort, bigQuery, { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers['vary']).toContain('Accept-Encoding');
    expect(gzip.body.byteLength).toBeLessThan(identity.body.byteLength);
    expect(JSON.parse(gunzipSync(gzip.body).toString('utf8'))).toEqual(expected);

    const br = await postQuery(server.httpPort, bigQuery, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(br.body).toString('utf8'))).toEqual(expected);

    const preferGzip = await postQuery(server.httpPort, bigQuery, { 'accept-encoding': 'br;q=0.5, gzip;q=1' });
    expect(preferGzip.headers['content-encoding']).toBe('gzip');

    const small = await postQuery(server.httpPort, '{ __typename }', { 'accept-encoding': 'gzip, br' });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString('utf8'))).toEqual({ data: { __typename: 'Query' } });
  });

  it('serves the GraphQL UI\'s script compressed (about 8 MB uncompressed)', async () => {
    const { server } = await start();
    const page = await send({ port: server.httpPort, path: '/q/graphql-ui' });
    const path = /<script src="([^"]+)"/.exec(page.body.toString('utf8'))?.[1] ?? '';
    const script = await send({ port: server.httpPort, path, headers: { 'accept-encoding': 'br' } });
    expect(script.status).toBe(200);
    expect(script.headers['content-encoding']).toBe('br');
    const text = brotliDecompressSync(script.body).toString('utf8');
    expect(text).toContain('YogaGraphiQL');
    expect(script.body.byteLength).toBeLessThan(text.length / 2);
  });

  it('HTTP_COMPRESSION=false sends identity even when the client accepts gzip and br', async () => {
    const { server } = await start({ HTTP_COMPRESSION: 'false' }, new RecordingReader({ instances: manyInstances }));
    const response = await postQuery(server.httpPort, bigQuery, { 'accept-encoding': 'gzip, br' });
    expect(response.headers['content-encoding']).toBeUndefined();
    expect((JSON.parse(response.body.toString('utf8')) as { data: { getWorkflowInstances: unknown[] } }).data.getWorkflowInstances).toHaveLength(40);
    const ui = await send({ port: server.httpPort, path: '/q/graphql-ui', headers: { 'accept-encoding': 'gzip, br' } });
    expect(ui.headers['content-encoding']).toBeUndefined();
  });

  it('HEAD answers headers only', async () => {
    const { server } = await start();
    const head = await send({ port: server.httpPort, path: '/q/health/live', method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
  });

  it('close() lets an in-flight slow request finish, then stops accepting', async () => {
    const { reader, inside, release } = slowReader();
    const { server } = await start({}, reader);
    const slow = postQuery(server.httpPort, '{ getWorkflowInstance(id: "inst-a") { id } }');
    await inside;
    let closed = false;
    const closing = server.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    await expect(send({ port: server.httpPort, path: '/q/health/live' })).rejects.toThrow(/ECONNREFUSED/);
    release();
    const response = await slow;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString('utf8'))).toEqual({ data: { getWorkflowInstance: { id: 'inst-a' } } });
    await closing;
    expect(closed).toBe(true);
  });

  it('close() does not wait for the shutdown timeout when the slow request came on a keep-alive connection', async () => {
    const { reader, inside, release } = slowReader();
    const { server } = await start({ HTTP_SHUTDOWN_TIMEOUT_MS: '5000' }, reader);
    const agent = new HttpAgent({ keepAlive: true });
    try {
      const slow = send({ port: server.httpPort, agent, path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ getWorkflowInstance(id: "inst-a") { id } }' }) });
      await inside;
      const closing = server.close();
      release();
      expect((await slow).status).toBe(200);
      const answered = Date.now();
      await closing;
      // The connection turned idle after its response: it is closed within the drain sweep, not after 5 s.
      expect(Date.now() - answered).toBeLessThan(2500);
    } finally {
      agent.destroy();
    }
  });

  it('close() cuts requests that outlive HTTP_SHUTDOWN_TIMEOUT_MS', async () => {
    const reader = new RecordingReader({ onRead: () => new Promise<void>(() => undefined) });
    const { server, log } = await start({ HTTP_SHUTDOWN_TIMEOUT_MS: '100' }, reader);
    const stuck = postQuery(server.httpPort, '{ getWorkflowInstance(id: "inst-a") { id } }').catch((error: unknown) => error);
    while (reader.callsOf('getInstance').length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(String(await stuck)).toMatch(/socket hang up|ECONNRESET/);
    expect(log.entries.some((e) => e['msg'] === 'shutdown: in-flight requests did not finish in time; closing their connections')).toBe(true);
  });
});

describe('TLS', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wi-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=localhost'], {
      stdio: 'ignore',
    });
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves HTTPS on HTTPS_PORT when TLS_CERT_FILE and TLS_KEY_FILE are set, and HTTP alongside', async () => {
    const { server } = await start({ TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'key.pem') });
    expect(server.httpsPort).not.toBeNull();
    expect(server.httpsPort).not.toBe(server.httpPort);
    const secure = await postQuery(server.httpsPort ?? 0, '{ getWorkflowInstance(id: "inst-a") { id } }', {}, true);
    expect(secure.status).toBe(200);
    expect(JSON.parse(secure.body.toString('utf8'))).toEqual({ data: { getWorkflowInstance: { id: 'inst-a' } } });
    const live = await send({ port: server.httpsPort ?? 0, path: '/q/health/live', tls: true });
    expect(live.status).toBe(200);
    const plain = await send({ port: server.httpPort, path: '/q/health/live' });
    expect(plain.status).toBe(200);
  });

  it('HTTPS has the same request deadlines: a body that stops arriving is answered 408 REQUEST_TIMEOUT and closed', async () => {
    const { server } = await start({ TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'key.pem'), HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_BODY_TIMEOUT_MS: '600' });
    const socket = tlsConnect({ host: '127.0.0.1', port: server.httpsPort ?? 0, rejectUnauthorized: false });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(Buffer.concat(chunks).toString('utf8'))));
    socket.write('POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query"');
    const giveUp = setTimeout(() => socket.destroy(), 5600);
    const text = await closed;
    clearTimeout(giveUp);
    expect(text.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ errors: [{ extensions: { code: 'REQUEST_TIMEOUT' } }] });
  });
});

describe('installGracefulShutdown', () => {
  it('on SIGTERM: closes the server, then runs cleanup', async () => {
    const { server, log } = await start();
    const order: string[] = [];
    const exits: (number | undefined)[] = [];
    const wrapped = {
      httpPort: server.httpPort,
      httpsPort: server.httpsPort,
      close: async () => {
        await server.close();
        order.push('closed');
      },
    };
    // Only our handler may see the emitted signal: the test runner's own must not.
    const others = process.listeners('SIGTERM');
    for (const listener of others) process.off('SIGTERM', listener);
    const uninstall = installGracefulShutdown(
      wrapped,
      async () => {
        order.push('cleanup');
      },
      log.logger(),
      { exit: (code) => exits.push(code), forceExitAfterMs: 10 },
    );
    try {
      process.emit('SIGTERM', 'SIGTERM');
      while (!log.entries.some((e) => e['msg'] === 'shutdown complete')) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(order).toEqual(['closed', 'cleanup']);
      await expect(send({ port: server.httpPort, path: '/q/health/live' })).rejects.toThrow(/ECONNREFUSED/);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(exits).toEqual([undefined]);
    } finally {
      uninstall();
      for (const listener of others) process.on('SIGTERM', listener);
    }
  });
});
