// GraphQL responses are small and fully in memory: the endpoint finishes them as plain bytes and headers
// (CORS, compression, Content-Length) and writes them to node:http in one call, or wraps them in a fetch
// Response for in-process callers. No web streams, Headers copies or Response copies per request.
import type { ServerResponse } from 'node:http';
import type { CoreConfig } from './config.js';
import { COMPRESSIBLE_TYPE, COMPRESSION_MIN_BYTES, compress, negotiateEncoding } from './compression.js';
import { allowedOrigin, CORS_EXPOSED_HEADERS } from './cors.js';

export interface BufferedResponse {
  readonly status: number;
  readonly statusText: string;
  /** Lower-case names. */
  readonly headers: Record<string, string>;
  readonly body: Uint8Array | null;
}

/** What finishing depends on from the request. */
export interface RequestFacts {
  readonly origin: string | null;
  readonly acceptEncoding: string | null;
}

/**
 * Whether a response has a body, without materialising a stream for it: graphql-yoga's fetch implementation
 * (@whatwg-node/node-fetch) records the kind of body it was given, and creates a stream only when `.body` is read.
 */
function hasBody(response: Response): boolean {
  const kind = (response as { bodyType?: unknown }).bodyType;
  if (kind === 'String' || kind === 'Buffer' || kind === 'Uint8Array') return true;
  return response.body !== null;
}

export async function bufferResponse(response: Response): Promise<BufferedResponse> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    const key = name.toLowerCase();
    const existing = headers[key];
    headers[key] = existing === undefined ? value : `${existing}, ${value}`;
  });
  let body: Uint8Array | null = null;
  if (hasBody(response)) {
    const bytes = (await response.arrayBuffer()) as ArrayBuffer | Uint8Array;
    body = ArrayBuffer.isView(bytes) ? bytes : new Uint8Array(bytes);
  }
  return { status: response.status, statusText: response.statusText, headers, body };
}

function append(headers: Record<string, string>, name: string, value: string): void {
  const existing = headers[name];
  headers[name] = existing === undefined ? value : `${existing}, ${value}`;
}

/**
 * CORS headers, then compression: the same rules as applyCors and compressResponse apply to streamed
 * responses (Vary: Origin, then Accept-Encoding; br or gzip from 1 KiB on; Content-Length always).
 */
export async function finishResponse(response: BufferedResponse, config: CoreConfig, request: RequestFacts): Promise<BufferedResponse> {
  const headers = response.headers;
  if (config.cors.enabled) {
    append(headers, 'vary', 'Origin');
    const allowed = allowedOrigin(config.cors, request.origin);
    if (allowed !== null) {
      headers['access-control-allow-origin'] = allowed;
      headers['access-control-expose-headers'] = CORS_EXPOSED_HEADERS;
    }
  }
  let body = response.body;
  if (config.http.compression && body !== null && headers['content-encoding'] === undefined && COMPRESSIBLE_TYPE.test(headers['content-type'] ?? '')) {
    append(headers, 'vary', 'Accept-Encoding');
    const encoding = negotiateEncoding(request.acceptEncoding);
    if (encoding !== null && body.byteLength >= COMPRESSION_MIN_BYTES) {
      body = await compress(body, encoding);
      headers['content-encoding'] = encoding;
    }
  }
  if (body !== null) headers['content-length'] = String(body.byteLength);
  return { status: response.status, statusText: response.statusText, headers, body };
}

export function toFetchResponse(response: BufferedResponse): Response {
  return new Response(response.body as BodyInit | null, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** One writeHead and one end: headers and body leave in a single write. */
export function writeBufferedResponse(response: BufferedResponse, res: ServerResponse): void {
  if (res.destroyed || res.writableEnded) return;
  if (response.statusText !== '') res.writeHead(response.status, response.statusText, response.headers);
  else res.writeHead(response.status, response.headers);
  if (response.body === null) res.end();
  else res.end(response.body);
}
