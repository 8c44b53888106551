import type { CoreConfig } from './config.js';

export const CORS_HEADERS = 'Content-Type, Authorization';
/** Response headers a browser client may read: the request id of its answer (to quote it in a bug report). */
export const CORS_EXPOSED_HEADERS = 'X-Request-Id';

/**
 * The Access-Control-Allow-Origin value for a request origin: the origin itself when configured,
 * `*` when `*` is configured (never the echoed origin), null otherwise.
 */
export function allowedOrigin(cors: CoreConfig['cors'], origin: string | null): string | null {
  if (!cors.enabled || origin === null) return null;
  if (cors.origins.includes(origin)) return origin;
  if (cors.origins.includes('*')) return '*';
  return null;
}

/** Adds CORS headers to a response of a (non-preflight) request. */
export function applyCors(cors: CoreConfig['cors'], request: Request, headers: Headers): void {
  if (!cors.enabled) return;
  headers.append('Vary', 'Origin');
  const allowed = allowedOrigin(cors, request.headers.get('origin'));
  if (allowed !== null) {
    headers.set('Access-Control-Allow-Origin', allowed);
    headers.set('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
  }
}

export function isPreflight(request: Request): boolean {
  return request.method === 'OPTIONS' && request.headers.has('access-control-request-method');
}

/**
 * Answers an OPTIONS request for a path that serves `methods`: a CORS preflight when CORS is on, otherwise
 * just Allow. Only methods that work on that path are advertised (a client told PUT works would get 405).
 */
export function preflightResponse(cors: CoreConfig['cors'], request: Request, methods: readonly string[]): Response {
  const headers = new Headers({ Allow: [...methods, 'OPTIONS'].join(', ') });
  if (!cors.enabled || !isPreflight(request)) return new Response(null, { status: 204, headers });
  headers.set('Vary', 'Origin');
  const allowed = allowedOrigin(cors, request.headers.get('origin'));
  if (allowed === null) {
    headers.set('Content-Type', 'text/plain; charset=utf-8');
    return new Response('Origin not allowed by CORS_ORIGINS.\n', { status: 403, headers });
  }
  headers.set('Access-Control-Allow-Origin', allowed);
  headers.set('Access-Control-Allow-Methods', methods.join(', '));
  headers.set('Access-Control-Allow-Headers', CORS_HEADERS);
  headers.set('Access-Control-Max-Age', '86400');
  return new Response(null, { status: 204, headers });
}
