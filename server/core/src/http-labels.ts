// Label values of http_server_requests_seconds, named as Micrometer (Quarkus) names them so dashboards written
// for the Java Data Index keep working: method, uri (the route, never the raw path), status, outcome. Every label
// takes a bounded set of values, whatever clients send.

/** Routes reported as themselves; any other path is `other` in logs and collapses to one uri value in metrics. */
export const METRIC_ROUTES = [
  '/graphql',
  '/graphql/schema.graphql',
  '/q/graphql-ui',
  '/q/graphql-ui/assets',
  '/q/health',
  '/q/health/live',
  '/q/health/ready',
  '/q/metrics',
  '/docs',
  '/',
  '/q/console',
  '/q/console/assets',
  '/export/workflow-instances',
] as const;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);

/** The route of a path (a trailing slash is the same route), or `other`. */
export function routeLabel(pathname: string): string {
  // Hashed file names change with every build: one route for all of them.
  if (pathname.startsWith('/q/console/assets/')) return '/q/console/assets';
  if (pathname.startsWith('/q/graphql-ui/assets/')) return '/q/graphql-ui/assets';
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  return (METRIC_ROUTES as readonly string[]).includes(trimmed) ? trimmed : 'other';
}

export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}

/**
 * Micrometer's uri: the route template; a request that matched no route is `NOT_FOUND` when answered 404,
 * `REDIRECTION` for a 3xx, else `UNKNOWN` (its WebMvc/Vert.x binders' constants).
 */
export function uriLabel(route: string, status: number): string {
  if (route !== 'other') return route;
  if (status === 404) return 'NOT_FOUND';
  if (status >= 300 && status < 400) return 'REDIRECTION';
  return 'UNKNOWN';
}

/** Micrometer's Outcome of a status code. */
export function outcomeLabel(status: number): string {
  if (status >= 100 && status < 200) return 'INFORMATIONAL';
  if (status >= 200 && status < 300) return 'SUCCESS';
  if (status >= 300 && status < 400) return 'REDIRECTION';
  if (status >= 400 && status < 500) return 'CLIENT_ERROR';
  if (status >= 500 && status < 600) return 'SERVER_ERROR';
  return 'UNKNOWN';
}

/** Status codes are ours, but an out-of-range one must not become a new series per value. */
export function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status < 600 ? String(status) : 'UNKNOWN';
}
