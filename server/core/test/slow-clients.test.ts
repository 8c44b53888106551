// Slow clients on real sockets: a request must arrive within HTTP_HEADERS_TIMEOUT_MS / HTTP_BODY_TIMEOUT_MS
// (else 408 REQUEST_TIMEOUT and the connection closed), and a body still arriving holds none of its address's
// HTTP_MAX_REQUESTS_PER_CLIENT slots. Timings are bounds with a wide margin (the machine may be busy): the
// assertions are about outcome and order.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { App } from '../src/app.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import type { Reader } from '../src/reader.js';
import { MemoryLog, testConfig } from '@workflow-index/testkit';
import { RecordingReader } from '@workflow-index/testkit';

/** How much later than its deadline a connection may be closed before a test gives up on it. */
const MARGIN_MS = 5000;

const sockets: Socket[] = [];
const running: RunningServer[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(running.splice(0).map((r) => r.close()));
});

/** The server with `env`; `arrived(n)` resolves once n POST /graphql requests have had their headers read (the app's handler ran). */
async function start(env: Record<string, string>) {
  const config = testConfig({ HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', HTTP_SHUTDOWN_TIMEOUT_MS: '200', ...env });
  const log = new MemoryLog();
  const app = createApp({ config, reader: new RecordingReader() as Reader, logger: log.logger(), backend: 'test' });
  let handled = 0;
  const watchers: { n: number; resolve: () => void }[] = [];
  const counting: App = {
    ...app,
    handleNodeRequest: (req: IncomingMessage, res: ServerResponse) => {
      handled += 1;
      for (const w of watchers) if (handled >= w.n) w.resolve();
      app.handleNodeRequest(req, res);
    },
  };
  const server = await startHttpServer(counting, config, log.logger());
  running.push(server);
  const arrived = (n: number) => new Promise<void>((resolve) => (handled >= n ? resolve() : watchers.push({ n, resolve })));
  return { port: server.httpPort, app, log, arrived };
}

interface Connection {
  readonly socket: Socket;
  /** Everything the server sent, once it closed the connection, and when (ms after connecting). */
  readonly closed: Promise<{ readonly text: string; readonly afterMs: number }>;
  /** Bytes written so far. */
  sent(): number;
}

/** A raw connection that writes `head` at once, then `rest` one piece every `everyMs` (until the server closes it). */
function open(port: number, head: string, rest: readonly string[], everyMs: number): Connection {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const opened = performance.now();
  let written = 0;
  const write = (data: string): void => {
    if (socket.destroyed || !socket.writable) return;
    socket.write(data);
    written += Buffer.byteLength(data);
  };
  let next = 0;
  const timer = setInterval(() => {
    if (next >= rest.length) clearInterval(timer);
    else write(rest[next++] as string);
  }, everyMs);
  socket.once('connect', () => write(head));
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined); // a reset after the server's answer is part of being closed
  const closed = new Promise<{ text: string; afterMs: number }>((resolve) => {
    socket.once('close', () => {
      clearInterval(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), afterMs: performance.now() - opened });
    });
  });
  return { socket, closed, sent: () => written };
}

function postHead(length: number | 'chunked'): string {
  const framing = length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;
}

const QUERY_BODY = JSON.stringify({ query: '{ getWorkflowInstance(id: "inst-a") { id } }' });
const ANSWER = '{"data":{"getWorkflowInstance":{"id":"inst-a"}}}';

const TRICKLED_BODY = JSON.stringify({ query: `{ __typename } # ${'x'.repeat(100)}` });

/** A body sent one byte a time: over 100 bytes at one every 100 ms take 10 s, longer than the short deadlines here. */
function trickler(port: number, everyMs = 100): Connection {
  return open(port, postHead(TRICKLED_BODY.length), [...TRICKLED_BODY], everyMs);
}

/** Resolves with `promise`'s value, or with `fallback` after `ms`. */
function within<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** One POST /graphql on a connection of its own, written at once; status line and body of the answer. */
async function post(port: number, body = QUERY_BODY): Promise<{ status: number; body: string }> {
  const connection = open(port, `${postHead(Buffer.byteLength(body)).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}${body}`, [], 1000);
  const { text } = await connection.closed;
  return { status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

function statusOf(text: string): number {
  return Number(text.split(' ')[1]);
}

function bodyOf(text: string): unknown {
  return JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as unknown;
}

/** Resolves once `check` holds (polled), or after `ms`. */
async function eventually(check: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!check() && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

const TIMEOUT_MESSAGE =
  'The request did not arrive in time: its headers must arrive within 400 ms and the whole request, body included, within 800 ms of its first byte (HTTP_HEADERS_TIMEOUT_MS, HTTP_BODY_TIMEOUT_MS). Send the body right after the headers; the connection is closed.';

describe('slow clients', () => {
  it('8 connections trickling their bodies hold none of their address\'s slots: its next request is answered 200', async () => {
    const { port, arrived } = await start({ HTTP_MAX_REQUESTS_PER_CLIENT: '8', HTTP_BODY_TIMEOUT_MS: '30000' });
    const tricklers = Array.from({ length: 8 }, () => trickler(port));
    await arrived(8);
    const answer = await post(port);
    expect(answer).toEqual({ status: 200, body: ANSWER });
    // The tricklers were still sending: their deadline did not free anything.
    expect(tricklers.map((t) => t.socket.destroyed)).toEqual(Array.from({ length: 8 }, () => false));
  });

  it('trickled bodies are answered 408 REQUEST_TIMEOUT and closed once HTTP_BODY_TIMEOUT_MS has passed, and logged as such', async () => {
    const { port, log, app, arrived } = await start({ HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_BODY_TIMEOUT_MS: '800' });
    const tricklers = Array.from({ length: 8 }, () => trickler(port));
    await arrived(8);
    const closed = await within(Promise.all(tricklers.map((t) => t.closed)), 800 + MARGIN_MS, null);
    expect(closed).not.toBeNull();
    for (const { text, afterMs } of closed ?? []) {
      expect(statusOf(text)).toBe(408);
      expect(text).toContain('\r\nConnection: close\r\n');
      expect(bodyOf(text)).toEqual({ errors: [{ message: TIMEOUT_MESSAGE, extensions: { code: 'REQUEST_TIMEOUT' } }] });
      expect(afterMs).toBeGreaterThanOrEqual(800);
    }
    // Cut before the end of their bodies.
    for (const t of tricklers) expect(t.sent()).toBeLessThan(postHead(TRICKLED_BODY.length).length + TRICKLED_BODY.length);
    const logged = () => log.entries.filter((e) => e['msg'] === 'request');
    await eventually(() => logged().length === 8, MARGIN_MS);
    expect(logged().map((e) => [e['status'], e['errorCodes']])).toEqual(Array.from({ length: 8 }, () => [408, ['REQUEST_TIMEOUT']]));
    expect(log.entries.filter((e) => e['level'] === 50)).toEqual([]);
    expect(await app.registry.metrics()).toContain('graphql_errors_total{operation_type="unknown",operation_name="anonymous",code="REQUEST_TIMEOUT",backend="test"} 8');
    expect((await post(port)).status).toBe(200);
  });

  it('a chunked body (read by yoga, slot held) holds its slot no longer than HTTP_BODY_TIMEOUT_MS', async () => {
    const { port, log, arrived } = await start({ HTTP_MAX_REQUESTS_PER_CLIENT: '1', HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_BODY_TIMEOUT_MS: '800' });
    const chunked = open(port, postHead('chunked'), Array.from({ length: 100 }, () => '1\r\n \r\n'), 100);
    await arrived(1);
    expect((await post(port)).status).toBe(429);
    const closed = await within(chunked.closed, 800 + MARGIN_MS, null);
    expect(closed === null ? null : statusOf(closed.text)).toBe(408);
    expect((await post(port)).status).toBe(200);
    const entries = log.entries.filter((e) => e['msg'] === 'request').map((e) => [e['status'], e['errorCodes']]);
    expect(entries).toEqual([
      [429, ['TOO_MANY_REQUESTS']],
      [408, ['REQUEST_TIMEOUT']],
      [200, undefined],
    ]);
    expect(log.entries.filter((e) => e['level'] === 50)).toEqual([]);
  });

  it('a client sending its headers slowly, or nothing, is answered 408 and closed after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const { port, log } = await start({ HTTP_HEADERS_TIMEOUT_MS: '400', HTTP_BODY_TIMEOUT_MS: '800' });
    const head = postHead(QUERY_BODY.length);
    const slowHeaders = open(port, head.slice(0, 20), [...head.slice(20)], 100);
    const silent = open(port, '', [], 1000);
    const closed = await within(Promise.all([slowHeaders.closed, silent.closed]), 400 + MARGIN_MS, null);
    expect(closed).not.toBeNull();
    for (const { text, afterMs } of closed ?? []) {
      expect(statusOf(text)).toBe(408);
      expect(bodyOf(text)).toEqual({ errors: [{ message: TIMEOUT_MESSAGE, extensions: { code: 'REQUEST_TIMEOUT' } }] });
      expect(afterMs).toBeGreaterThanOrEqual(400);
    }
    expect(slowHeaders.sent()).toBeLessThan(head.length);
    // Never a request: nothing reached the app.
    expect(log.entries.filter((e) => e['msg'] === 'request')).toEqual([]);
  });

  it('a body that arrives in a few chunks within the deadline is answered, beside 8 trickling bodies of its address', async () => {
    const { port, arrived } = await start({ HTTP_MAX_REQUESTS_PER_CLIENT: '8', HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_BODY_TIMEOUT_MS: '5000' });
    const tricklers = Array.from({ length: 8 }, () => trickler(port));
    await arrived(8);
    const thirds = [QUERY_BODY.slice(0, 15), QUERY_BODY.slice(15, 30), QUERY_BODY.slice(30)];
    const legit = open(port, postHead(QUERY_BODY.length).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'), thirds, 100);
    const { text } = await legit.closed;
    expect(statusOf(text)).toBe(200);
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe(ANSWER);
    expect(tricklers.map((t) => t.socket.destroyed)).toEqual(Array.from({ length: 8 }, () => false));
  });

  it('a keep-alive connection idle for longer than the headers timeout still serves its next request', async () => {
    const { port } = await start({ HTTP_HEADERS_TIMEOUT_MS: '200', HTTP_BODY_TIMEOUT_MS: '400' });
    const request = `${postHead(QUERY_BODY.length)}${QUERY_BODY}`;
    const connection = open(port, request, [], 1000);
    let received = '';
    connection.socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
    });
    await eventually(() => received.includes(ANSWER), MARGIN_MS);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    connection.socket.write(request);
    await eventually(() => received.split(ANSWER).length === 3, MARGIN_MS);
    expect(received.split('HTTP/1.1 200 OK').length).toBe(3);
    expect(connection.socket.destroyed).toBe(false);
  });
});
