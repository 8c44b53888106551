// POST /graphql on node:http, the hot path: a body framed by its Content-Length within HTTP_MAX_BODY_BYTES is read
// before the client's slot of HTTP_MAX_REQUESTS_PER_CLIENT is taken (node-body.ts); other bodies are yoga's to read
// with the slot held, which HTTP_BODY_TIMEOUT_MS bounds. The hot path answers a body it takes, yoga's node
// integration every other; the answer is finished as bytes and written in one call.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { bufferResponse, finishResponse, writeBufferedResponse } from '../buffered-response.js';
import type { BufferedResponse } from '../buffered-response.js';
import { ErrorCode } from '../errors.js';
import { GRAPHQL_ENDPOINT } from '../graphql-server.js';
import { hotRequestAnswerType } from '../hot-operations.js';
import type { Logger } from '../logger.js';
import { REQUEST_ID_HEADER } from '../request-context.js';
import { requestTimedOut } from '../request-deadline.js';
import { newRequestState } from '../request-state.js';
import type { RequestState } from '../request-state.js';
import { refusedCredentials, releaseCost } from './graphql-endpoint.js';
import type { GraphQLEndpoint } from './graphql-endpoint.js';
import { answerHot } from './hot-answer.js';
import { framedWithin, readBody, wentAway } from './node-body.js';
import type { Admission, PerClientLimit } from './per-client-limit.js';
import type { RecordRequest } from './request-log.js';
import { TEXT_TYPE } from './responses.js';

export interface GraphQLOverNodeDeps {
  readonly endpoint: GraphQLEndpoint;
  readonly perClient: PerClientLimit;
  readonly record: RecordRequest;
  readonly logger: Logger;
}

/** One request, from its arrival to its written answer. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly requestId: string;
  readonly started: number;
  readonly state: RequestState;
  readonly path: string;
  /** The request's socket as it arrived: a request's reader may null `req.socket`. */
  readonly socket: Duplex;
  /** The client's slot, once admitted. */
  release: Admission;
}

/** `/graphql` or `/graphql/`, with or without a query string, on a Host that makes a valid URL (else: 400 by the fetch path). */
export function isGraphQLTarget(url: string | undefined, host: string | undefined): boolean {
  if (url === undefined) return false;
  const path = pathOf(url);
  if (path !== GRAPHQL_ENDPOINT && path !== `${GRAPHQL_ENDPOINT}/`) return false;
  return URL.canParse(url, `http://${host ?? 'localhost'}`);
}

export function handleGraphQLOverNode(deps: GraphQLOverNodeDeps, req: IncomingMessage, res: ServerResponse, requestId: string): void {
  const started = performance.now();
  const exchange: Exchange = { req, res, requestId, started, state: newRequestState(), path: pathOf(req.url as string), socket: req.socket, release: null };
  const facts = { origin: req.headers.origin ?? null, acceptEncoding: req.headers['accept-encoding'] ?? null };
  answer(deps, exchange)
    .then((buffered) => finishResponse(buffered, deps.endpoint.config, facts))
    .then(
      (response) => written(deps, exchange, response),
      (error: unknown) => failed(deps, exchange, error),
    );
}

function answer(deps: GraphQLOverNodeDeps, exchange: Exchange): Promise<BufferedResponse> {
  if (!framedWithin(exchange.req.headers, deps.endpoint.config.http.maxBodyBytes)) return admit(deps, exchange, null);
  return readBody(exchange.req).then((bytes) => (bytes === null ? wentAway() : admit(deps, exchange, bytes)));
}

/** `bytes`: the body when it was read, null when yoga is to read it. */
function admit(deps: GraphQLOverNodeDeps, exchange: Exchange, bytes: Buffer | null): Promise<BufferedResponse> {
  exchange.release = deps.perClient.admitNode(exchange.req);
  if (exchange.release !== null) return answerAdmitted(deps.endpoint, exchange, bytes);
  // An unread body cannot be skipped to reach the connection's next request.
  if (bytes === null) exchange.res.shouldKeepAlive = false;
  return bufferResponse(deps.perClient.refuse(exchange.state));
}

/**
 * The hot path answers a body already read when hotRequestAnswerType takes the request; else yoga's node integration
 * answers, from that body (as it takes a body a framework has read: its own request, abort signal and server context,
 * as for every other request) or reading the body itself.
 */
async function answerAdmitted(endpoint: GraphQLEndpoint, { req, res, state }: Exchange, bytes: Buffer | null): Promise<BufferedResponse> {
  const refusal = await refusedCredentials(endpoint, req.headers.authorization, state);
  if (refusal !== null) {
    // An unread body cannot be skipped to reach the connection's next request.
    if (bytes === null) res.shouldKeepAlive = false;
    return bufferResponse(refusal);
  }
  if (bytes !== null) {
    const headers = req.headers;
    const answerType = endpoint.hot === null ? null : hotRequestAnswerType(req.url as string, (name) => headers[name] as string | undefined, endpoint.config.http.maxBodyBytes, true);
    const answered = answerType === null ? null : await answerHot(endpoint.hot, bytes, state, answerType);
    if (answered !== null) return answered;
    // A client gone before yoga takes the request would leave yoga's abort signal unfired (it listens for a close
    // that has already happened): nothing runs for it.
    if (res.closed) return wentAway();
    (req as { body?: unknown }).body = bytes;
  }
  return bufferResponse(await endpoint.yoga.handleNodeRequestAndResponse(req, res, { requestState: state, bodyFramed: true }));
}

function written(deps: GraphQLOverNodeDeps, exchange: Exchange, response: BufferedResponse): void {
  exchange.release?.();
  deps.record('POST', GRAPHQL_ENDPOINT, exchange.path, recordedStatus(exchange, response.status), exchange.started, exchange.state);
  response.headers[REQUEST_ID_HEADER] = exchange.requestId;
  try {
    writeBufferedResponse(response, exchange.res);
  } finally {
    releaseCost(deps.endpoint, exchange.state);
  }
}

function failed(deps: GraphQLOverNodeDeps, exchange: Exchange, error: unknown): void {
  const { res, path } = exchange;
  exchange.release?.();
  releaseCost(deps.endpoint, exchange.state);
  const status = recordedStatus(exchange, 500);
  // Not an error of ours: node:http answered the request that did not arrive in time.
  if (status === 500) deps.logger.error({ err: error, method: 'POST', path }, 'request failed');
  deps.record('POST', GRAPHQL_ENDPOINT, path, status, exchange.started, exchange.state);
  if (res.destroyed || res.writableEnded) return;
  if (!res.headersSent) res.writeHead(500, { 'Content-Type': TEXT_TYPE, [REQUEST_ID_HEADER]: exchange.requestId }).end('Unexpected error.\n');
  else res.destroy();
}

/** A request node:http cut for not arriving in time is recorded as the 408 it answered, whatever the code reading the body made of the cut. */
function recordedStatus({ req, socket, state }: Exchange, status: number): number {
  if (!requestTimedOut(req, socket)) return status;
  state.errorCodes.push(ErrorCode.REQUEST_TIMEOUT);
  return 408;
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
