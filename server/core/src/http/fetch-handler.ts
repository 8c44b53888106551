// Requests as fetch Requests (in-process callers, and node:http off the GraphQL hot path): each gets its request id
// (echoed, and on every log line written while it is handled), POST /graphql goes to the GraphQL endpoint and the
// rest through the route table, and each is recorded once. Every response is built fresh here (never a shared
// one), so its headers can still be set.
import type { CoreConfig } from '../config.js';
import { GRAPHQL_ENDPOINT } from '../graphql-server.js';
import { routeLabel } from '../http-labels.js';
import type { Logger } from '../logger.js';
import { REQUEST_ID_HEADER, requestContext, requestIdOf } from '../request-context.js';
import { newRequestState } from '../request-state.js';
import { finishRoutedResponse } from './finish-routed-response.js';
import type { GraphQLEndpoint } from './graphql-endpoint.js';
import { postGraphQLOverFetch } from './graphql-over-fetch.js';
import { acceptsEventStream, postGraphQLSseOverFetch } from './graphql-sse.js';
import type { GraphQLSseDeps } from './graphql-sse.js';
import type { PerClientLimit } from './per-client-limit.js';
import type { RecordRequest } from './request-log.js';
import { unexpectedError } from './responses.js';
import { dispatch } from './route-table.js';
import type { RouteTable } from './route-table.js';

/** What the transport knows about who sent a request. */
export interface ClientInfo {
  /** The peer address of the connection; counted by HTTP_MAX_REQUESTS_PER_CLIENT (POST /graphql, exports). */
  readonly address?: string | null;
}

export type AppFetch = (request: Request, client?: ClientInfo) => Promise<Response>;

export interface FetchHandlerDeps {
  readonly config: CoreConfig;
  readonly logger: Logger;
  readonly routes: RouteTable;
  readonly endpoint: GraphQLEndpoint;
  readonly perClient: PerClientLimit;
  readonly record: RecordRequest;
  readonly sse: GraphQLSseDeps;
}

export function createFetchHandler(deps: FetchHandlerDeps): AppFetch {
  return (request, client = {}) => {
    const requestId = requestIdOf(request.headers.get(REQUEST_ID_HEADER));
    return requestContext.run({ requestId }, async () => {
      const response = await answer(deps, request, client);
      response.headers.set(REQUEST_ID_HEADER, requestId);
      return response;
    });
  };
}

async function answer(deps: FetchHandlerDeps, request: Request, client: ClientInfo): Promise<Response> {
  const { config } = deps;
  const started = performance.now();
  const url = new URL(request.url);
  const route = routeLabel(url.pathname);
  const state = newRequestState();
  let response: Response;
  try {
    if (request.method === 'POST' && route === GRAPHQL_ENDPOINT && acceptsEventStream(request.headers.get('accept'))) response = await postGraphQLSseOverFetch(deps.sse, request, client.address, state);
    else if (request.method === 'POST' && route === GRAPHQL_ENDPOINT) response = await postGraphQLOverFetch(deps.endpoint, deps.perClient, request, url, client.address, state);
    else response = await finishRoutedResponse(await dispatch(deps.routes, request, url.pathname, state, config.cors, client), request, config);
  } catch (error) {
    deps.logger.error({ err: error, method: request.method, path: url.pathname }, 'request failed');
    response = unexpectedError();
  }
  deps.record(request.method, route, url.pathname, response.status, started, state);
  return response;
}
