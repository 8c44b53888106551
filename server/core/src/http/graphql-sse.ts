// POST /graphql with Accept: text/event-stream (GraphQL over Server-Sent Events), on node:http and in-process. While
// the stream is set up (credentials, parse, validation, the state on subscribe) it holds a slot of
// HTTP_MAX_REQUESTS_PER_CLIENT like any request; once its headers leave, it gives that slot and its cost back and
// holds only its subscription slot (GRAPHQL_MAX_SUBSCRIPTIONS, per client too) until it ends. Its chunks are written
// as they come: no compression, no buffering. With AUTH_MODE=oidc the token is verified once, at subscribe, and the
// stream ends (`complete`) when the token expires: the client reconnects with a fresh one and gets the current state.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeJwt } from 'jose';
import { bufferResponse, finishResponse, toFetchResponse, writeBufferedResponse } from '../buffered-response.js';
import type { RequestFacts } from '../buffered-response.js';
import type { CoreConfig } from '../config.js';
import { allowedOrigin, CORS_EXPOSED_HEADERS } from '../cors.js';
import { ErrorCode } from '../errors.js';
import { GRAPHQL_ENDPOINT } from '../graphql-server.js';
import type { LiveHub } from '../live/live-hub.js';
import { EVENT_STREAM_TYPE } from '../live/event-stream-results.js';
import type { SubscriptionSlots } from '../live/subscription-slots.js';
import type { Logger } from '../logger.js';
import { REQUEST_ID_HEADER } from '../request-context.js';
import { newRequestState } from '../request-state.js';
import type { LiveStream, RequestState } from '../request-state.js';
import { refusedCredentials, releaseCost } from './graphql-endpoint.js';
import type { GraphQLEndpoint } from './graphql-endpoint.js';
import type { PerClientLimit } from './per-client-limit.js';
import type { RecordRequest } from './request-log.js';
import { graphqlError } from './responses.js';

export interface GraphQLSseDeps {
  readonly endpoint: GraphQLEndpoint;
  readonly perClient: PerClientLimit;
  readonly slots: SubscriptionSlots;
  readonly hub: LiveHub | null;
  readonly record: RecordRequest;
  readonly logger: Logger;
}

/** Whether the client asks for an event stream (any position of Accept). */
export function acceptsEventStream(accept: string | null | undefined): boolean {
  return accept !== null && accept !== undefined && accept.toLowerCase().includes(EVENT_STREAM_TYPE);
}

/** What a stream's set-up produced: a response to finish as bytes, or an open stream and what to do when it ends. */
type SetUp = { readonly refusal: Response } | { readonly stream: Response; readonly done: () => void };

interface Exchange {
  readonly authorization: string | null;
  readonly client: string | null;
  readonly state: RequestState;
  readonly answer: (live: LiveStream) => Promise<Response>;
}

async function setUp(deps: GraphQLSseDeps, exchange: Exchange, admitted: (() => void) | null): Promise<SetUp> {
  const { endpoint } = deps;
  const { state } = exchange;
  if (admitted === null) return { refusal: deps.perClient.refuse(state) };
  try {
    const refusal = await refusedCredentials(endpoint, exchange.authorization, state);
    if (refusal !== null) return { refusal };
    if (deps.hub?.isDraining === true) return { refusal: graphqlError(503, 'The server is shutting down: reconnect (another instance answers).', ErrorCode.SERVICE_UNAVAILABLE, { 'Retry-After': '1' }) };
    const slot = deps.slots.acquire(exchange.client);
    if (slot instanceof Response) {
      state.errorCodes.push(ErrorCode.TOO_MANY_SUBSCRIPTIONS);
      return { refusal: slot };
    }
    const controller = new AbortController();
    const expiry = expiryTimer(exchange.authorization, endpoint.config, () => controller.abort());
    let response: Response;
    try {
      response = await exchange.answer({ signal: controller.signal });
    } catch (error) {
      slot();
      if (expiry !== null) clearTimeout(expiry);
      throw error;
    }
    const done = (): void => {
      slot();
      if (expiry !== null) clearTimeout(expiry);
      controller.abort();
    };
    if (!isEventStream(response)) {
      done();
      return { refusal: response };
    }
    return { stream: response, done };
  } finally {
    admitted();
    releaseCost(endpoint, state);
  }
}

function isEventStream(response: Response): boolean {
  return response.body !== null && (response.headers.get('content-type') ?? '').startsWith(EVENT_STREAM_TYPE);
}

/** AUTH_MODE=oidc: a timer that ends the stream when the (verified) token expires. */
function expiryTimer(authorization: string | null, config: CoreConfig, end: () => void): NodeJS.Timeout | null {
  if (config.auth.mode === 'none' || authorization === null) return null;
  const token = authorization.replace(/^Bearer\s+/i, '');
  let exp: number | undefined;
  try {
    exp = decodeJwt(token).exp;
  } catch {
    return null;
  }
  if (exp === undefined) return null;
  const timer = setTimeout(end, Math.min(Math.max(0, exp * 1000 - Date.now()), 2 ** 31 - 1));
  timer.unref();
  return timer;
}

function streamHeaders(response: Response, config: CoreConfig, origin: string | null, requestId: string | null): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  if (config.cors.enabled) {
    headers['vary'] = 'Origin';
    const allowed = allowedOrigin(config.cors, origin);
    if (allowed !== null) {
      headers['access-control-allow-origin'] = allowed;
      headers['access-control-expose-headers'] = CORS_EXPOSED_HEADERS;
    }
  }
  if (requestId !== null) headers[REQUEST_ID_HEADER] = requestId;
  return headers;
}

export function handleGraphQLSseOverNode(deps: GraphQLSseDeps, req: IncomingMessage, res: ServerResponse, requestId: string): void {
  const started = performance.now();
  const state = newRequestState();
  const path = (req.url ?? GRAPHQL_ENDPOINT).split('?')[0] ?? GRAPHQL_ENDPOINT;
  const facts: RequestFacts = { origin: req.headers.origin ?? null, acceptEncoding: req.headers['accept-encoding'] ?? null };
  const exchange: Exchange = {
    authorization: req.headers.authorization ?? null,
    client: deps.perClient.clientOfNode(req),
    state,
    answer: async (live) => deps.endpoint.yoga.handleNodeRequestAndResponse(req, res, { requestState: state, live }),
  };
  setUp(deps, exchange, deps.perClient.admitNode(req))
    .then(async (set) => {
      if ('refusal' in set) {
        // An unread body cannot be skipped to reach the connection's next request.
        res.shouldKeepAlive = false;
        const finished = await finishResponse(await bufferResponse(set.refusal), deps.endpoint.config, facts);
        deps.record('POST', GRAPHQL_ENDPOINT, path, finished.status, started, state);
        finished.headers[REQUEST_ID_HEADER] = requestId;
        writeBufferedResponse(finished, res);
        return;
      }
      deps.record('POST', GRAPHQL_ENDPOINT, path, set.stream.status, started, state);
      await pipeStream(set.stream, res, streamHeaders(set.stream, deps.endpoint.config, facts.origin, requestId)).finally(set.done);
    })
    .catch((error: unknown) => {
      deps.logger.error({ err: error, method: 'POST', path }, 'event stream failed');
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', [REQUEST_ID_HEADER]: requestId }).end('Unexpected error.\n');
      else res.destroy();
    });
}

/** Each chunk written as it comes (backpressure honoured); the client going away cancels the stream. */
async function pipeStream(stream: Response, res: ServerResponse, headers: Record<string, string>): Promise<void> {
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  const onClose = (): void => void reader.cancel().catch(() => undefined);
  res.once('close', onClose);
  try {
    res.writeHead(stream.status, headers);
    res.flushHeaders();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) return;
      if (!res.write(value)) await new Promise<void>((resolve) => {
        res.once('drain', resolve);
        res.once('close', resolve);
      });
    }
    res.end();
  } finally {
    res.off('close', onClose);
  }
}

/** In-process: the stream is the Response's body; its end (or cancel) gives the subscription slot back. */
export async function postGraphQLSseOverFetch(deps: GraphQLSseDeps, request: Request, address: string | null | undefined, state: RequestState): Promise<Response> {
  const exchange: Exchange = {
    authorization: request.headers.get('authorization'),
    client: deps.perClient.clientOfFetch(request.headers, address),
    state,
    answer: async (live) => deps.endpoint.yoga.fetch(request, { requestState: state, live }),
  };
  const set = await setUp(deps, exchange, deps.perClient.admitFetch(request.headers, address));
  if ('refusal' in set) return toFetchResponse(await finishResponse(await bufferResponse(set.refusal), deps.endpoint.config, { origin: request.headers.get('origin'), acceptEncoding: null }));
  const reader = (set.stream.body as ReadableStream<Uint8Array>).getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        set.done();
        controller.close();
      } else controller.enqueue(value);
    },
    async cancel(reason) {
      set.done();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: set.stream.status, headers: streamHeaders(set.stream, deps.endpoint.config, request.headers.get('origin'), null) });
}
