// app.ts builds, main.ts runs: this factory takes a frozen config and a Reader, opens no sockets and reads no
// process.env. Tests drive it in-process through fetch(). The route table below says which path each module of
// http/ serves.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Registry } from 'prom-client';
import { bufferResponse, finishResponse, toFetchResponse, writeBufferedResponse } from './buffered-response.js';
import type { BufferedResponse, RequestFacts } from './buffered-response.js';
import { compressResponse } from './compression.js';
import { CONSOLE_PATH } from './console-assets.js';
import type { CoreConfig } from './config.js';
import { ClientRequestLimit, clientKey } from './client-limit.js';
import { CostBudget } from './cost-budget.js';
import { applyCors } from './cors.js';
import { ErrorCode } from './errors.js';
import { GRAPHQL_ENDPOINT, buildSchema, createGraphQLServer } from './graphql-server.js';
import { hotRequestAnswerType } from './hot-operations.js';
import { consoleRoutes } from './http/console-routes.js';
import { graphqlRoute } from './http/graphql-endpoint.js';
import type { GraphQLEndpoint } from './http/graphql-endpoint.js';
import { healthRoutes } from './http/health-routes.js';
import type { HealthDeps } from './http/health-routes.js';
import { metricsRoute } from './http/metrics-route.js';
import { queryPages } from './http/query-pages.js';
import { JSON_TYPE, TEXT_TYPE, unexpectedError } from './http/responses.js';
import { dispatch, routeTable } from './http/route-table.js';
import type { RouteTable } from './http/route-table.js';
import { REQUEST_LOG_MESSAGE } from './logger.js';
import type { Logger } from './logger.js';
import { routeLabel } from './http-labels.js';
import { createMetrics } from './metrics/create-metrics.js';
import { createNodeHandler } from './node-adapter.js';
import type { Reader } from './reader.js';
import { REQUEST_ID_HEADER, requestContext, requestIdOf } from './request-context.js';
import { requestTimedOut } from './request-deadline.js';
import { newRequestState } from './request-state.js';
import type { RequestState } from './request-state.js';
import { loadSchemaSdl } from './schema-sdl.js';

/** What the transport knows about who sent a request. */
export interface ClientInfo {
  /** The peer address of the connection; counted by HTTP_MAX_REQUESTS_PER_CLIENT. */
  readonly address?: string | null;
}

export interface App {
  /** Answers one request in-process (no sockets); without a client address, requests are not counted per client. */
  fetch(request: Request, client?: ClientInfo): Promise<Response>;
  /** The same, for node:http / node:https servers. */
  handleNodeRequest(req: IncomingMessage, res: ServerResponse): void;
  readonly registry: Registry;
  readonly config: CoreConfig;
  readonly logger: Logger;
  /** From now on readiness reports DOWN, so load balancers stop routing here (graceful shutdown). */
  startDraining(): void;
  /** Releases what the app holds; the reader is the caller's to close. */
  dispose(): Promise<void>;
}

export interface AppOptions {
  readonly config: CoreConfig;
  readonly reader: Reader;
  readonly logger: Logger;
  /** Backend name, e.g. `postgresql`: a metrics label and health data. */
  readonly backend: string;
}

/** Probes and scrapes arrive every few seconds; their request logs go to debug. */
const QUIET_ROUTES = new Set(['/q/health', '/q/health/live', '/q/health/ready', '/q/metrics']);

function tooManyRequests(max: number): Response {
  const body = {
    errors: [
      {
        message: `Too many requests in flight from this client: at most ${max} at a time (HTTP_MAX_REQUESTS_PER_CLIENT). Wait for an answer before sending the next request, or retry after the Retry-After delay.`,
        extensions: { code: ErrorCode.TOO_MANY_REQUESTS },
      },
    ],
  };
  return new Response(JSON.stringify(body), { status: 429, headers: { 'Content-Type': JSON_TYPE, 'Retry-After': '1' } });
}

/** `/graphql` or `/graphql/`, with or without a query string, on a Host that makes a valid URL (else: 400 by the fetch path). */
function isGraphQLTarget(url: string | undefined, host: string | undefined): boolean {
  if (url === undefined) return false;
  const path = pathOf(url);
  if (path !== GRAPHQL_ENDPOINT && path !== `${GRAPHQL_ENDPOINT}/`) return false;
  return URL.canParse(url, `http://${host ?? 'localhost'}`);
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

const DIGITS = /^\d+$/;

/** A body node:http frames by its Content-Length, within HTTP_MAX_BODY_BYTES: read before the request takes a slot. */
function framedWithin(headers: IncomingHttpHeaders, maxBodyBytes: number): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] === undefined && length !== undefined && DIGITS.test(length) && Number(length) <= maxBodyBytes;
}

/** The answer to a request whose connection closed before it was read: only recorded (nobody is left to read it). */
function wentAway(): BufferedResponse {
  return { status: 400, statusText: '', headers: { 'content-type': TEXT_TYPE }, body: Buffer.from('Bad request: the client went away before its request was read.\n') };
}

/** The whole body of a request node:http frames by its Content-Length; null when the client went away before its end. */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let ended = false;
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      ended = true;
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    req.once('error', () => resolve(null));
    req.once('close', () => {
      if (!ended) resolve(null);
    });
  });
}

export function createApp(options: AppOptions): App {
  const { config, reader, logger, backend } = options;
  const startedAt = Date.now();
  const sdl = loadSchemaSdl();
  const schema = buildSchema(sdl, config);
  const costBudget = new CostBudget(config.graphql.maxCostInFlight, config.graphql.costQueueTimeoutMs);
  const { yoga: graphql, hot } = createGraphQLServer({ config, reader, logger, schema, costBudget });
  const metrics = createMetrics({ config, reader, logger, backend, costBudget });
  /** Gives back the rows of GRAPHQL_MAX_COST_IN_FLIGHT the request held (once: the count is zeroed). */
  const releaseCost = (state: RequestState): void => {
    costBudget.release(state.costHeld);
    state.costHeld = 0;
  };
  let draining = false;
  const perClient = new ClientRequestLimit(config.http.maxRequestsPerClient);
  const addressHeader = config.http.clientAddressHeader;
  const endpoint: GraphQLEndpoint = { config, yoga: graphql, hot, costBudget };
  const health: HealthDeps = { config, reader, backend, startedAt, draining: () => draining, observeReadiness: (up) => metrics.observeReadiness(up) };
  const routes = appRoutes({ config, sdl, endpoint, health, registry: metrics.registry });

  const record = (method: string, routeName: string, pathname: string, status: number, started: number, state: RequestState): void => {
    const seconds = (performance.now() - started) / 1000;
    metrics.observeHttp(method, routeName, status, seconds);
    if (routeName === GRAPHQL_ENDPOINT && method === 'POST') {
      metrics.observeOperation(state.operationType, state.operationName, seconds, state.errorCodes);
    }
    const entry = {
      method,
      route: routeName,
      path: pathname,
      status,
      durationMs: Math.round(seconds * 100_000) / 100,
      ...(state.operationName !== null ? { operationName: state.operationName } : {}),
      ...(state.operationType !== null ? { operationType: state.operationType } : {}),
      ...(state.errorCodes.length > 0 ? { errorCodes: state.errorCodes } : {}),
    };
    if (QUIET_ROUTES.has(routeName)) logger.debug(entry, REQUEST_LOG_MESSAGE);
    else logger.info(entry, REQUEST_LOG_MESSAGE);
  };

  /** POST /graphql: yoga's answer (a small in-memory body), finished with CORS and compression. */
  const finishGraphQL = async (answer: Response | Promise<Response>, facts: RequestFacts): Promise<BufferedResponse> =>
    finishResponse(await bufferResponse(await answer), config, facts);

  /** The hot path's answer to a body (hot-operations.ts), or null: yoga answers the request. */
  const answerHot = async (bytes: Uint8Array, state: RequestState, answerType: string): Promise<BufferedResponse | null> => {
    let params: unknown;
    try {
      params = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
    } catch {
      return null; // yoga words the error
    }
    const answered = hot === null ? null : await hot(params, state);
    // yoga's headers in yoga's order (the length is set when the answer is finished)
    return answered === null ? null : { status: 200, statusText: 'OK', headers: { 'content-type': answerType, 'content-length': '' }, body: Buffer.from(answered) };
  };

  /**
   * node:http, a request that may run: the hot path answers a body already read (within HTTP_MAX_BODY_BYTES) when
   * hotRequestAnswerType takes the request, else yoga's node integration from that body (as it takes a body a
   * framework has read: its own request, abort signal and server context, as for every other request), or reading
   * the body itself when none was read (`bytes` null: chunked, or a Content-Length yoga refuses).
   */
  const answerNodeGraphQL = async (req: IncomingMessage, res: ServerResponse, state: RequestState, bytes: Buffer | null): Promise<BufferedResponse> => {
    if (bytes !== null) {
      const headers = req.headers;
      const answerType = hot === null ? null : hotRequestAnswerType(req.url as string, (name) => headers[name] as string | undefined, config.http.maxBodyBytes, true);
      const answered = answerType === null ? null : await answerHot(bytes, state, answerType);
      if (answered !== null) return answered;
      // A client gone before yoga takes the request would leave yoga's abort signal unfired (it listens for a close
      // that has already happened): nothing runs for it.
      if (res.closed) return wentAway();
      (req as { body?: unknown }).body = bytes;
    }
    return bufferResponse(await graphql.handleNodeRequestAndResponse(req, res, { requestState: state, bodyFramed: true }));
  };

  /** A request node:http cut for not arriving in time is recorded as the 408 it answered, whatever the code reading the body made of the cut. */
  const recordedStatus = (req: IncomingMessage, socket: Duplex, status: number, state: RequestState): number => {
    if (!requestTimedOut(req, socket)) return status;
    state.errorCodes.push(ErrorCode.REQUEST_TIMEOUT);
    return 408;
  };

  /** In-process requests: the same, from a fetch Request (yoga gets the bytes as they came, or their read's failure). */
  const answerFetchGraphQL = async (request: Request, url: URL, state: RequestState): Promise<BufferedResponse> => {
    const answerType = hot === null ? null : hotRequestAnswerType(`${url.pathname}${url.search}`, (name) => request.headers.get(name) ?? undefined, config.http.maxBodyBytes, false);
    if (answerType === null || request.body === null || request.signal.aborted) return bufferResponse(await graphql.fetch(request, { requestState: state }));
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = new Uint8Array(await request.arrayBuffer());
    } catch (error) {
      const failing = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(error) });
      return bufferResponse(await graphql.fetch(new Request(request.url, { method: 'POST', headers: request.headers, body: failing, signal: request.signal, duplex: 'half' } as RequestInit), { requestState: state }));
    }
    const yogaRequest = (): Request => new Request(request.url, { method: 'POST', headers: request.headers, body: bytes, signal: request.signal });
    const answered = bytes.byteLength > config.http.maxBodyBytes ? null : await answerHot(bytes, state, answerType);
    return answered ?? bufferResponse(await graphql.fetch(yogaRequest(), { requestState: state }));
  };

  const fetchHandler = (request: Request, client: ClientInfo = {}): Promise<Response> => {
    const requestId = requestIdOf(request.headers.get(REQUEST_ID_HEADER));
    return requestContext.run({ requestId }, async () => {
      const response = await answer(request, client);
      response.headers.set(REQUEST_ID_HEADER, requestId);
      return response;
    });
  };

  /** Every response is built here fresh (never a shared one), so its headers can still be set. */
  const answer = async (request: Request, client: ClientInfo): Promise<Response> => {
    const started = performance.now();
    const url = new URL(request.url);
    const routeName = routeLabel(url.pathname);
    const state = newRequestState();
    let response: Response;
    try {
      if (request.method === 'POST' && routeName === GRAPHQL_ENDPOINT) {
        const facts = { origin: request.headers.get('origin'), acceptEncoding: request.headers.get('accept-encoding') };
        const release = perClient.acquire(clientKey(addressHeader === null ? null : request.headers.get(addressHeader), client.address));
        if (release === null) {
          state.errorCodes.push(ErrorCode.TOO_MANY_REQUESTS);
          response = toFetchResponse(await finishGraphQL(tooManyRequests(config.http.maxRequestsPerClient), facts));
        } else {
          try {
            response = toFetchResponse(await finishResponse(await answerFetchGraphQL(request, url, state), config, facts));
          } finally {
            release();
            releaseCost(state);
          }
        }
      } else {
        response = await dispatch(routes, request, url.pathname, state, config.cors);
        // Copy: responses from elsewhere may carry immutable headers.
        response = new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
        applyCors(config.cors, request, response.headers);
        if (config.http.compression) response = await compressResponse(request, response);
      }
    } catch (error) {
      logger.error({ err: error, method: request.method, path: url.pathname }, 'request failed');
      response = unexpectedError();
    }
    record(request.method, routeName, url.pathname, response.status, started, state);
    return response;
  };

  // node:http: POST /graphql (the hot path) goes to yoga's own node integration and is written in one call;
  // everything else goes through fetchHandler, as in-process callers do.
  const viaFetch = createNodeHandler(fetchHandler, logger);
  const handleNodeRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST' || !isGraphQLTarget(req.url, req.headers.host)) {
      viaFetch(req, res);
      return;
    }
    const header = req.headers[REQUEST_ID_HEADER];
    const requestId = requestIdOf(Array.isArray(header) ? null : header);
    requestContext.run({ requestId }, () => handleGraphQLNodeRequest(req, res, requestId));
  };

  const nodeClientKey = (req: IncomingMessage): string | null => {
    const address = addressHeader === null ? undefined : req.headers[addressHeader];
    return clientKey(Array.isArray(address) ? address.join(',') : address, req.socket.remoteAddress);
  };

  /**
   * A body framed by its Content-Length is read before the client's slot of HTTP_MAX_REQUESTS_PER_CLIENT is taken:
   * a client that trickles its body holds no slot while HTTP_BODY_TIMEOUT_MS runs out. Other bodies are yoga's to
   * read with the slot held, which that timeout bounds.
   */
  const handleGraphQLNodeRequest = (req: IncomingMessage, res: ServerResponse, requestId: string): void => {
    const started = performance.now();
    const state = newRequestState();
    const facts = { origin: req.headers.origin ?? null, acceptEncoding: req.headers['accept-encoding'] ?? null };
    const path = pathOf(req.url as string);
    const socket = req.socket;
    let release: (() => void) | null = null;
    const admit = (bytes: Buffer | null): Promise<BufferedResponse> => {
      release = perClient.acquire(nodeClientKey(req));
      if (release !== null) return answerNodeGraphQL(req, res, state, bytes);
      state.errorCodes.push(ErrorCode.TOO_MANY_REQUESTS);
      // An unread body cannot be skipped to reach the connection's next request.
      if (bytes === null) res.shouldKeepAlive = false;
      return bufferResponse(tooManyRequests(config.http.maxRequestsPerClient));
    };
    const answer = framedWithin(req.headers, config.http.maxBodyBytes) ? readBody(req).then((bytes) => (bytes === null ? wentAway() : admit(bytes))) : admit(null);
    answer.then((buffered) => finishResponse(buffered, config, facts)).then(
      (response) => {
        release?.();
        record('POST', GRAPHQL_ENDPOINT, path, recordedStatus(req, socket, response.status, state), started, state);
        response.headers[REQUEST_ID_HEADER] = requestId;
        try {
          writeBufferedResponse(response, res);
        } finally {
          releaseCost(state);
        }
      },
      (error: unknown) => {
        release?.();
        releaseCost(state);
        const status = recordedStatus(req, socket, 500, state);
        // Not an error of ours: node:http answered the request that did not arrive in time.
        if (status === 500) logger.error({ err: error, method: 'POST', path }, 'request failed');
        record('POST', GRAPHQL_ENDPOINT, path, status, started, state);
        if (res.destroyed || res.writableEnded) return;
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': TEXT_TYPE, [REQUEST_ID_HEADER]: requestId }).end('Unexpected error.\n');
        else res.destroy();
      },
    );
  };

  return {
    fetch: fetchHandler,
    handleNodeRequest,
    registry: metrics.registry,
    config,
    logger,
    startDraining() {
      draining = true;
    },
    async dispose() {
      await graphql.dispose();
      metrics.registry.clear();
    },
  };
}

interface RouteDeps {
  readonly config: CoreConfig;
  readonly sdl: string;
  readonly endpoint: GraphQLEndpoint;
  readonly health: HealthDeps;
  readonly registry: Registry;
}

/** path → methods → handler; a null route is not served in this configuration (404). */
function appRoutes(deps: RouteDeps): RouteTable {
  const pages = queryPages(deps.config, deps.sdl);
  const consolePages = consoleRoutes(deps.config);
  const health = healthRoutes(deps.health);
  return routeTable(
    {
      [GRAPHQL_ENDPOINT]: graphqlRoute(deps.endpoint),
      '/graphql/schema.graphql': pages.schema,
      '/q/graphql-ui': pages.ui,
      '/docs': pages.docs,
      '/': consolePages.page,
      [CONSOLE_PATH]: consolePages.page,
      '/q/health': health.all,
      '/q/health/live': health.live,
      '/q/health/ready': health.ready,
      '/q/metrics': metricsRoute(deps.registry),
    },
    [consolePages.assets],
  );
}
