// POST /graphql, what its two transports (graphql-over-fetch.ts, graphql-over-node.ts) share: yoga, the hot path,
// the budget of rows in flight, and its entry in the route table. GET would execute queries from links and bypass
// CSRF protections: any method but POST is refused and nothing runs.
import type { Authenticator } from '../auth/authenticator.js';
import type { CoreConfig } from '../config.js';
import type { CostBudget } from '../cost-budget.js';
import { ErrorCode } from '../errors.js';
import type { GraphQLServer } from '../graphql-server.js';
import type { HotAnswer } from '../hot-operations.js';
import type { RequestState } from '../request-state.js';
import { graphqlError } from './responses.js';
import type { Route } from './route-table.js';

export interface GraphQLEndpoint {
  readonly config: CoreConfig;
  readonly yoga: GraphQLServer;
  /** The answer of hot requests without yoga (hot-operations.ts); null when compiled execution is off or tracing on. */
  readonly hot: HotAnswer | null;
  /** GRAPHQL_MAX_COST_IN_FLIGHT: a request holds its cost until its response is written. */
  readonly costBudget: CostBudget;
  /** AUTH_MODE=oidc: verifies the request's bearer token before anything of it runs; null with AUTH_MODE=none. */
  readonly auth: Authenticator | null;
}

/** The answer refusing the request's credentials, or null: it may run (AUTH_MODE=none, or a token that verified). */
export function refusedCredentials(endpoint: GraphQLEndpoint, authorization: string | null | undefined, state: RequestState): Promise<Response | null> {
  return endpoint.auth === null ? Promise.resolve(null) : endpoint.auth.authenticate(authorization, state);
}

/** Gives back the rows of GRAPHQL_MAX_COST_IN_FLIGHT the request held (once: the count is zeroed). */
export function releaseCost(endpoint: GraphQLEndpoint, state: RequestState): void {
  endpoint.costBudget.release(state.costHeld);
  state.costHeld = 0;
}

/** /graphql in the route table: POST (which the transports answer before any route) and the 405 of other methods. */
export function graphqlRoute(endpoint: GraphQLEndpoint): Route {
  return {
    methods: new Map([['POST', async (request: Request, state: RequestState) => (await refusedCredentials(endpoint, request.headers.get('authorization'), state)) ?? endpoint.yoga.fetch(request, { requestState: state })]]),
    otherMethods: (request) =>
      graphqlError(
        405,
        `${request.method} is not supported on /graphql: send the query with POST and Content-Type: application/json (body {"query": …, "variables": …}). The interactive UI is at /q/graphql-ui.`,
        ErrorCode.METHOD_NOT_ALLOWED,
        { Allow: 'POST, OPTIONS' },
      ),
  };
}
