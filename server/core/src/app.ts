// app.ts builds, main.ts runs: this factory takes a frozen config and a Reader, opens no sockets
// and reads no process.env. Tests drive it in-process through fetch().
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Registry } from 'prom-client';
import { bufferResponse, finishResponse, toFetchResponse, writeBufferedResponse } from './buffered-response.js';
import type { BufferedResponse, RequestFacts } from './buffered-response.js';
import { compressResponse } from './compression.js';
import { CONSOLE_ASSETS_PREFIX, CONSOLE_PATH, consoleNotBuilt, loadConsoleAssets } from './console-assets.js';
import type { ConsoleAssets } from './console-assets.js';
import type { CoreConfig } from './config.js';
import { ClientRequestLimit, clientKey } from './client-limit.js';
import { CostBudget } from './cost-budget.js';
import { applyCors, preflightResponse } from './cors.js';
import { renderDocsPage } from './docs-page/render-docs-page.js';
import { ErrorCode } from './errors.js';
import { renderGraphQLUi } from './graphiql-page.js';
import { GRAPHQL_ENDPOINT, buildSchema, createGraphQLServer } from './graphql-server.js';
import { hotRequestAnswerType } from './hot-operations.js';
import { livenessChecks, readinessChecks, report } from './health.js';
import type { HealthCheck } from './health.js';
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
import { StaticAsset } from './static-asset.js';

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

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
/** Probes and scrapes arrive every few seconds; their request logs go to debug. */
const QUIET_ROUTES = new Set(['/q/health', '/q/health/live', '/q/health/ready', '/q/metrics']);

function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'Content-Type': TEXT, ...headers } });
}

const READ_METHODS = ['GET', 'HEAD'] as const;

function methodNotAllowed(): Response {
  return text(405, 'Method not allowed; this endpoint accepts GET and HEAD.\n', { Allow: 'GET, HEAD, OPTIONS' });
}

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

function notFound(): Response {
  return text(404, 'Not found. GraphQL: POST /graphql. Health: /q/health. Metrics: /q/metrics.\n');
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
  return { status: 400, statusText: '', headers: { 'content-type': TEXT }, body: Buffer.from('Bad request: the client went away before its request was read.\n') };
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

function lazyAsset(render: () => string | Promise<string>): () => Promise<StaticAsset> {
  let asset: StaticAsset | undefined;
  return async () => (asset ??= new StaticAsset(await render(), 'text/html; charset=utf-8'));
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
  const queryPagesOn = config.graphql.introspection !== 'NO_INTROSPECTION_OR_QUERY';
  // Built on first request: most instances (tests, API-only clients) never serve them.
  const ui = queryPagesOn ? lazyAsset(() => renderGraphQLUi()) : null;
  const docs = queryPagesOn && config.mode === 'development' ? lazyAsset(() => renderDocsPage({ config, sdl })) : null;
  // The console is a /graphql client: off with CONSOLE_ENABLED=false, and with the query pages (it runs queries).
  const consoleOn = config.console.enabled && queryPagesOn;
  let consoleAssets: ConsoleAssets | null = null;
  // Read on first use and kept once found: a server started before `npm run build` picks the build up.
  const consoleFiles = (): ConsoleAssets | null => (consoleAssets ??= loadConsoleAssets());
  let draining = false;
  const perClient = new ClientRequestLimit(config.http.maxRequestsPerClient);
  const addressHeader = config.http.clientAddressHeader;

  const health = async (kind: 'live' | 'ready' | 'all'): Promise<Response> => {
    const checks: HealthCheck[] = [];
    if (kind !== 'ready') checks.push(...livenessChecks(startedAt));
    if (kind !== 'live') checks.push(...(await readinessChecks({ reader, config, backend, draining })));
    const body = report(checks);
    if (kind !== 'live') metrics.observeReadiness(body.status === 'UP');
    return new Response(JSON.stringify(body), {
      status: body.status === 'UP' ? 200 : 503,
      headers: { 'Content-Type': JSON_TYPE, 'Cache-Control': 'no-store' },
    });
  };

  const graphqlEndpoint = async (request: Request, state: RequestState): Promise<Response> => {
    if (request.method !== 'POST') {
      // GET would execute queries from links and bypass CSRF protections; nothing runs here.
      const body = {
        errors: [
          {
            message: `${request.method} is not supported on /graphql: send the query with POST and Content-Type: application/json (body {"query": …, "variables": …}). The interactive UI is at /q/graphql-ui.`,
            extensions: { code: ErrorCode.METHOD_NOT_ALLOWED },
          },
        ],
      };
      return new Response(JSON.stringify(body), { status: 405, headers: { 'Content-Type': JSON_TYPE, Allow: 'POST, OPTIONS' } });
    }
    return graphql.fetch(request, { requestState: state });
  };

  /** The methods a path serves; null for a path that does not exist (in this configuration). */
  const methodsOf = (path: string): readonly string[] | null => {
    switch (path) {
      case GRAPHQL_ENDPOINT:
        return ['POST'];
      case '/graphql/schema.graphql':
        return queryPagesOn ? READ_METHODS : null;
      case '/q/graphql-ui':
        return ui === null ? null : READ_METHODS;
      case '/docs':
        return docs === null ? null : READ_METHODS;
      case '/':
      case CONSOLE_PATH:
        return consoleOn ? READ_METHODS : null;
      case '/q/health':
      case '/q/health/live':
      case '/q/health/ready':
      case '/q/metrics':
        return READ_METHODS;
      default:
        return null;
    }
  };

  const route = async (request: Request, pathname: string, state: RequestState): Promise<Response> => {
    const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
    if (request.method === 'OPTIONS') {
      const methods = methodsOf(path);
      return methods === null ? notFound() : preflightResponse(config.cors, request, methods);
    }
    if (path === GRAPHQL_ENDPOINT) return graphqlEndpoint(request, state);
    const readOnly = request.method === 'GET' || request.method === 'HEAD';
    if (consoleOn && pathname.startsWith(CONSOLE_ASSETS_PREFIX)) {
      const file = consoleFiles()?.files.get(pathname.slice(CONSOLE_ASSETS_PREFIX.length));
      if (file === undefined) return notFound();
      return readOnly ? file.respond(request, config.http.compression) : methodNotAllowed();
    }
    switch (path) {
      case '/':
      case CONSOLE_PATH: {
        if (!consoleOn) return notFound();
        if (!readOnly) return methodNotAllowed();
        const assets = consoleFiles();
        return assets === null ? consoleNotBuilt() : assets.page.respond(request, config.http.compression);
      }
      case '/graphql/schema.graphql':
        if (!queryPagesOn) return notFound();
        return readOnly ? text(200, sdl) : methodNotAllowed();
      case '/q/graphql-ui':
        if (ui === null) return notFound();
        return readOnly ? (await ui()).respond(request, config.http.compression) : methodNotAllowed();
      case '/docs':
        if (docs === null) return notFound();
        return readOnly ? (await docs()).respond(request, config.http.compression) : methodNotAllowed();
      case '/q/health':
        return readOnly ? health('all') : methodNotAllowed();
      case '/q/health/live':
        return readOnly ? health('live') : methodNotAllowed();
      case '/q/health/ready':
        return readOnly ? health('ready') : methodNotAllowed();
      case '/q/metrics':
        return readOnly ? text(200, await metrics.registry.metrics(), { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' }) : methodNotAllowed();
      default:
        return notFound();
    }
  };

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
        response = await route(request, url.pathname, state);
        // Copy: responses from elsewhere may carry immutable headers.
        response = new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
        applyCors(config.cors, request, response.headers);
        if (config.http.compression) response = await compressResponse(request, response);
      }
    } catch (error) {
      logger.error({ err: error, method: request.method, path: url.pathname }, 'request failed');
      response = text(500, 'Unexpected error.\n');
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
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': TEXT, [REQUEST_ID_HEADER]: requestId }).end('Unexpected error.\n');
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
