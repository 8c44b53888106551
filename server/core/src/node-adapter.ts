// node:http(s) ⇄ fetch Request/Response, so the same app serves sockets and in-process tests.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import type { TLSSocket } from 'node:tls';
import type { Logger } from './logger.js';

/** `client.address`: the socket's peer, for the routes that count requests per client. */
export type FetchHandler = (request: Request, client: { readonly address: string | null }) => Promise<Response>;

export function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const protocol = (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  const host = req.headers.host ?? 'localhost';
  const url = new URL(req.url ?? '/', `${protocol}://${host}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    signal,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : null,
    // Required by undici for a streamed request body.
    duplex: 'half',
  } as RequestInit);
}

export async function writeResponse(response: Response, res: ServerResponse, method: string): Promise<void> {
  res.statusCode = response.status;
  if (response.statusText !== '') res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') res.setHeader(name, response.headers.getSetCookie());
    else res.setHeader(name, value);
  }
  if (response.body === null || method === 'HEAD') {
    res.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body as NodeWebReadableStream<Uint8Array>), res);
}

export function createNodeHandler(handler: FetchHandler, logger: Logger): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    let request: Request;
    try {
      request = toRequest(req, controller.signal);
    } catch (error) {
      logger.debug({ err: error, url: req.url }, 'unparseable request');
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Bad request.\n');
      return;
    }
    handler(request, { address: req.socket.remoteAddress ?? null })
      .then((response) => writeResponse(response, res, request.method))
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        logger.error({ err: error, url: req.url }, 'failed to answer a request');
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Unexpected error.\n');
        else res.destroy();
      });
  };
}
