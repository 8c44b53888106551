// The answers several routes share: plain text for people (404, 405, 500) and GraphQL-shaped errors for clients of
// /graphql, each with a stable extensions.code.

export const TEXT_TYPE = 'text/plain; charset=utf-8';
export const JSON_TYPE = 'application/json; charset=utf-8';

export function text(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { 'Content-Type': TEXT_TYPE, ...headers } });
}

export function notFound(): Response {
  return text(404, 'Not found. GraphQL: POST /graphql. Health: /q/health. Metrics: /q/metrics.\n');
}

/** Any method but GET, HEAD and OPTIONS on a read-only route. */
export function methodNotAllowed(): Response {
  return text(405, 'Method not allowed; this endpoint accepts GET and HEAD.\n', { Allow: 'GET, HEAD, OPTIONS' });
}

/** The details go to the log, never to the client. */
export function unexpectedError(): Response {
  return text(500, 'Unexpected error.\n');
}

export function graphqlError(status: number, message: string, code: string, headers: Record<string, string>): Response {
  const body = { errors: [{ message, extensions: { code } }] };
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': JSON_TYPE, ...headers } });
}
