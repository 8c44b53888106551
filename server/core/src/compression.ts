import { Duplex } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, createBrotliCompress, createGzip, gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** Smaller bodies are not worth the CPU and the extra round of headers. */
export const COMPRESSION_MIN_BYTES = 1024;
export const COMPRESSIBLE_TYPE = /^(text\/|application\/(json|graphql-response\+json|javascript|xml|openmetrics-text|x-ndjson)|image\/svg\+xml)/i;

export type Encoding = 'br' | 'gzip';

/** Picks br or gzip from Accept-Encoding (q-values honoured; br wins a tie), or null for identity. */
export function negotiateEncoding(acceptEncoding: string | null): Encoding | null {
  if (acceptEncoding === null) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name === undefined || name === '') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam === undefined ? 1 : Number(qParam.slice(2));
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (name: Encoding): number => q.get(name) ?? q.get('*') ?? 0;
  const br = weight('br');
  const gz = weight('gzip');
  if (br <= 0 && gz <= 0) return null;
  return br >= gz ? 'br' : 'gzip';
}

export function compress(body: Uint8Array, encoding: Encoding): Promise<Buffer> {
  // Quality 5: most of brotli's gain at a fraction of the default (11) cost for dynamic responses.
  return encoding === 'br'
    ? brotliAsync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
    : gzipAsync(body);
}

/** Bodies written as they are produced (an export): compressed as a stream, never read whole. */
const streamedBodies = new WeakSet<ReadableStream<Uint8Array>>();

/** Marks `body` as streamed: compressResponse then compresses it chunk by chunk (no Content-Length). */
export function streamedBody(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  streamedBodies.add(body);
  return body;
}

/** Compresses a response body when the client accepts it, the type compresses and it is big enough. */
export async function compressResponse(request: Request, response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  if (response.body === null || response.headers.has('content-encoding') || !COMPRESSIBLE_TYPE.test(type)) return response;
  const headers = new Headers(response.headers);
  headers.append('Vary', 'Accept-Encoding');
  const encoding = negotiateEncoding(request.headers.get('accept-encoding'));
  if (streamedBodies.has(response.body)) return compressStreamed(response, response.body, encoding, headers);
  const body = new Uint8Array(await response.arrayBuffer());
  if (encoding === null || body.byteLength < COMPRESSION_MIN_BYTES) {
    headers.set('Content-Length', String(body.byteLength));
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  }
  const compressed = await compress(body, encoding);
  headers.set('Content-Encoding', encoding);
  headers.set('Content-Length', String(compressed.byteLength));
  return new Response(new Uint8Array(compressed), { status: response.status, statusText: response.statusText, headers });
}

/**
 * A streamed body through a zlib stream: each chunk compressed as it comes, the socket's backpressure passed back to
 * the producer, and a cancelled answer (client gone) cancelling the producer.
 */
function compressStreamed(response: Response, body: ReadableStream<Uint8Array>, encoding: Encoding | null, headers: Headers): Response {
  headers.delete('Content-Length');
  if (encoding === null) return new Response(body, { status: response.status, statusText: response.statusText, headers });
  // Flushed after each chunk: the client sees each part (an export's page) as it is produced, not when zlib's window fills.
  const zlib = encoding === 'br'
    ? createBrotliCompress({ flush: zlibConstants.BROTLI_OPERATION_FLUSH, params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } })
    : createGzip({ flush: zlibConstants.Z_SYNC_FLUSH });
  headers.set('Content-Encoding', encoding);
  const compressed = body.pipeThrough(Duplex.toWeb(zlib) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
  return new Response(compressed, { status: response.status, statusText: response.statusText, headers });
}
