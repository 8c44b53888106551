// HTTP_HEADERS_TIMEOUT_MS and HTTP_BODY_TIMEOUT_MS: a request must arrive within seconds of its first byte, or a
// client trickling it would hold a connection (and, for a body yoga reads, a slot of HTTP_MAX_REQUESTS_PER_CLIENT)
// for minutes. node:http enforces both for every request, whoever reads its body (headersTimeout,
// requestTimeout); no timer of ours is needed. It checks them every connectionsCheckingInterval, 30 s by
// default, so the interval here is a fraction of the headers timeout. What node:http does not do is say why: its
// 408 has no body, so the servers' clientError listener writes a GraphQL-style one.
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CoreConfig } from './config.js';
import { ErrorCode } from './errors.js';

/** What node:http raises when a request misses headersTimeout or requestTimeout. */
const TIMEOUT_ERROR = 'ERR_HTTP_REQUEST_TIMEOUT';

/** Statuses node:http's own clientError answer gives other parse errors (any other: 400). */
const PARSE_ERROR_STATUS: Readonly<Record<string, number>> = { HPE_HEADER_OVERFLOW: 431, HPE_CHUNK_EXTENSIONS_OVERFLOW: 413 };

type RequestTimeoutOptions = Required<Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'connectionsCheckingInterval'>>;

export function requestTimeoutOptions(http: CoreConfig['http']): RequestTimeoutOptions {
  return {
    headersTimeout: http.headersTimeoutMs,
    requestTimeout: http.bodyTimeoutMs,
    // The bounds then hold to a quarter of the headers timeout, and never more than a second late.
    connectionsCheckingInterval: Math.min(1000, Math.ceil(http.headersTimeoutMs / 4)),
  };
}

function requestTimeoutBody(http: CoreConfig['http']): string {
  const message = `The request did not arrive in time: its headers must arrive within ${http.headersTimeoutMs} ms and the whole request, body included, within ${http.bodyTimeoutMs} ms of its first byte (HTTP_HEADERS_TIMEOUT_MS, HTTP_BODY_TIMEOUT_MS). Send the body right after the headers; the connection is closed.`;
  return JSON.stringify({ errors: [{ message, extensions: { code: ErrorCode.REQUEST_TIMEOUT } }] });
}

/**
 * Whether node:http closed the request's connection (`socket`: a request's reader may null `req.socket`) because
 * the request did not arrive in time. A complete request did arrive: a later one on its connection ran out of time.
 */
export function requestTimedOut(req: IncomingMessage, socket: Duplex): boolean {
  return !req.complete && (socket.errored as NodeJS.ErrnoException | null)?.code === TIMEOUT_ERROR;
}

function rawAnswer(status: number, body: string | null): Buffer {
  const head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\n`;
  if (body === null) return Buffer.from(`${head}\r\n`, 'latin1');
  return Buffer.from(`${head}Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`, 'utf8');
}

/**
 * A listener for the servers' `clientError`: node:http's own answer (which a listener replaces), with a body for
 * the 408. Like node:http it answers only when no response of the connection is being written (the peer would
 * read the answer as part of it), then closes the connection. `responseOf` is the connection's latest response.
 */
export function clientErrorListener(http: CoreConfig['http'], responseOf: (socket: Duplex) => ServerResponse | undefined): (error: NodeJS.ErrnoException, socket: Duplex) => void {
  const timeoutAnswer = rawAnswer(408, requestTimeoutBody(http));
  return (error, socket) => {
    const response = responseOf(socket);
    const writing = response !== undefined && response.headersSent && !response.writableFinished;
    if (socket.writable && !writing) socket.write(error.code === TIMEOUT_ERROR ? timeoutAnswer : rawAnswer(PARSE_ERROR_STATUS[error.code ?? ''] ?? 400, null));
    socket.destroy(error);
  };
}
