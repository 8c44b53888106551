// The request id: taken from X-Request-Id when the caller (a gateway, a client) sent a sane one, so one id follows
// a request across services; else generated. Every log line written while the request is handled carries it: the
// logger reads it from this async context (logger.ts), which reaches lines written by code that only holds the
// process logger (GraphQL plugins, the backend's reader) as well as the request's own lines.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'x-request-id';

export interface RequestContext {
  readonly requestId: string;
}

export const requestContext = new AsyncLocalStorage<RequestContext>();

/**
 * A token of at most 128 characters from [A-Za-z0-9._:/+=@-]: what gateways and tracing systems send (UUIDs,
 * hex trace ids, base64), and nothing that could forge a log field, split a header or grow the log.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:/+=@-]{1,128}$/;

export function requestIdOf(header: string | null | undefined): string {
  return header !== null && header !== undefined && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** What the logger adds to a line: the request id inside a request, nothing outside. */
export function requestLogFields(): { requestId?: string } {
  const context = requestContext.getStore();
  return context === undefined ? {} : { requestId: context.requestId };
}
