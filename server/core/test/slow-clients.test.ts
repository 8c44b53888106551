// Slow clients on real sockets: a body still arriving holds none of its address's HTTP_MAX_REQUESTS_PER_CLIENT
// slots. The assertions are about outcome and order, not time (the machine may be busy).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { App } from '../src/app.js';
import { startHttpServer } from '../src/http-server.js';
import type { RunningServer } from '../src/http-server.js';
import type { Reader } from '../src/reader.js';
import { MemoryLog, testConfig } from './helpers.js';
import { RecordingReader } from './recording-reader.js';

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

/** A body sent one byte a time: over 100 bytes at one every 100 ms take 10 s. */
function trickler(port: number, everyMs = 100): Connection {
  return open(port, postHead(TRICKLED_BODY.length), [...TRICKLED_BODY], everyMs);
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

describe('slow clients', () => {
  it('8 connections trickling their bodies hold none of their address\'s slots: its next request is answered 200', async () => {
    const { port, arrived } = await start({ HTTP_MAX_REQUESTS_PER_CLIENT: '8' });
    const tricklers = Array.from({ length: 8 }, () => trickler(port));
    await arrived(8);
    const answer = await post(port);
    expect(answer).toEqual({ status: 200, body: ANSWER });
    // The tricklers were still sending: their deadline did not free anything.
    expect(tricklers.map((t) => t.socket.destroyed)).toEqual(Array.from({ length: 8 }, () => false));
  });

  it('a body that arrives in a few chunks within the deadline is answered, beside 8 trickling bodies of its address', async () => {
    const { port, arrived } = await start({ HTTP_MAX_REQUESTS_PER_CLIENT: '8' });
    const tricklers = Array.from({ length: 8 }, () => trickler(port));
    await arrived(8);
    const thirds = [QUERY_BODY.slice(0, 15), QUERY_BODY.slice(15, 30), QUERY_BODY.slice(30)];
    const legit = open(port, postHead(QUERY_BODY.length).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'), thirds, 100);
    const { text } = await legit.closed;
    expect(statusOf(text)).toBe(200);
    expect(text.slice(text.indexOf('\r\n\r\n') + 4)).toBe(ANSWER);
    expect(tricklers.map((t) => t.socket.destroyed)).toEqual(Array.from({ length: 8 }, () => false));
  });
});
