// The route table: path → methods → handler. A path not in it is 404; a method a path does not serve gets the
// path's own 405; OPTIONS advertises only the methods that work (a client told PUT works would get 405).
import type { CoreConfig } from '../config.js';
import { preflightResponse } from '../cors.js';
import type { RequestState } from '../request-state.js';
import type { ClientInfo } from './fetch-handler.js';
import { methodNotAllowed, notFound } from './responses.js';

/** The GraphQL endpoint and the export report through the request's state; the other routes ignore it. `client`: who sent it. */
export type RouteHandler = (request: Request, state: RequestState, client: ClientInfo) => Response | Promise<Response>;

export interface Route {
  /** Method → handler, in the order OPTIONS lists them. */
  readonly methods: ReadonlyMap<string, RouteHandler>;
  /** The answer to any other method but OPTIONS. */
  readonly otherMethods: RouteHandler;
}

/** Paths under a prefix, found by the rest of the path (no trailing-slash trimming); never advertised to OPTIONS. */
export interface PrefixRoutes {
  readonly prefix: string;
  /** The route of `rest`, or undefined: 404. */
  route(rest: string): Route | undefined;
}

export interface RouteTable {
  readonly paths: ReadonlyMap<string, Route>;
  readonly prefixes: readonly PrefixRoutes[];
}

/** A GET and HEAD route. */
export function readRoute(handler: RouteHandler): Route {
  return { methods: new Map([['GET', handler], ['HEAD', handler]]), otherMethods: methodNotAllowed };
}

/** `paths`: a null route is not served in this configuration (404, as an unknown path). */
export function routeTable(paths: Readonly<Record<string, Route | null>>, prefixes: readonly (PrefixRoutes | null)[] = []): RouteTable {
  const served = Object.entries(paths).filter((entry): entry is [string, Route] => entry[1] !== null);
  return { paths: new Map(served), prefixes: prefixes.filter((p) => p !== null) };
}

/** The answer of the route `pathname` names; a trailing slash names the same route. */
export function dispatch(table: RouteTable, request: Request, pathname: string, state: RequestState, cors: CoreConfig['cors'], client: ClientInfo = {}): Promise<Response> | Response {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  if (request.method === 'OPTIONS') {
    const route = table.paths.get(path);
    return route === undefined ? notFound() : preflightResponse(cors, request, [...route.methods.keys()]);
  }
  const prefixed = table.prefixes.find((p) => pathname.startsWith(p.prefix));
  const route = prefixed === undefined ? table.paths.get(path) : prefixed.route(pathname.slice(prefixed.prefix.length));
  if (route === undefined) return notFound();
  return (route.methods.get(request.method) ?? route.otherMethods)(request, state, client);
}
