import type { ExecutionResult, GraphQLError as GraphQLErrorType } from 'graphql';
import { graphql } from './graphql-runtime.js';
import { BackendUnavailableError, QueryTimeoutError } from './reader.js';

/** Stable `extensions.code` values clients can rely on. */
export const ErrorCode = {
  /** An argument is outside what is allowed; the message says what is allowed. */
  BAD_USER_INPUT: 'BAD_USER_INPUT',
  /** The storage backend cannot be reached, or is too busy to answer now; retry later. */
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  /** The query ran past the time the backend allows and was stopped; it would again: narrow it, do not retry it. */
  QUERY_TIMEOUT: 'QUERY_TIMEOUT',
  /** Anything unexpected; details are only in the server log. */
  INTERNAL_SERVER_ERROR: 'INTERNAL_SERVER_ERROR',
  /** The document is not valid GraphQL syntax. */
  GRAPHQL_PARSE_FAILED: 'GRAPHQL_PARSE_FAILED',
  /** The document does not validate against the schema (unknown field, wrong argument type, …). */
  GRAPHQL_VALIDATION_FAILED: 'GRAPHQL_VALIDATION_FAILED',
  MAX_DEPTH_EXCEEDED: 'MAX_DEPTH_EXCEEDED',
  MAX_ALIASES_EXCEEDED: 'MAX_ALIASES_EXCEEDED',
  MAX_TOKENS_EXCEEDED: 'MAX_TOKENS_EXCEEDED',
  MAX_DIRECTIVES_EXCEEDED: 'MAX_DIRECTIVES_EXCEEDED',
  /** GET (or another method than POST) on /graphql. */
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  /** HTTP 429: the client has HTTP_MAX_REQUESTS_PER_CLIENT requests in flight already; retry after Retry-After. */
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  /** HTTP 429: GRAPHQL_MAX_SUBSCRIPTIONS streams are open, or GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT from this client; retry after Retry-After. */
  TOO_MANY_SUBSCRIPTIONS: 'TOO_MANY_SUBSCRIPTIONS',
  /** HTTP 408: the request's headers or body did not arrive within HTTP_HEADERS_TIMEOUT_MS / HTTP_BODY_TIMEOUT_MS; the connection is closed. */
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  /** HTTP 403: a POST that a browser sends cross-site without a preflight (not application/json) and without a CSRF header. */
  CSRF_HEADER_REQUIRED: 'CSRF_HEADER_REQUIRED',
  /** HTTP 401 (AUTH_MODE=oidc): no bearer token, or one that does not verify; nothing ran. */
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  /** The subject's rules do not allow what the request asks (a filter on payloads it may not read). */
  FORBIDDEN: 'FORBIDDEN',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';
export const SERVICE_UNAVAILABLE_MESSAGE = 'The storage backend is unavailable; try again later.';

export function badUserInput(message: string): GraphQLErrorType {
  return new graphql.GraphQLError(message, { extensions: { code: ErrorCode.BAD_USER_INPUT } });
}

/** By name too: a backend compiled separately may carry its own copy of the class. */
export function isBackendUnavailable(error: unknown): boolean {
  return error instanceof BackendUnavailableError || (error instanceof Error && error.name === 'BackendUnavailableError');
}

/** The time limit of a QueryTimeoutError (by name too, as isBackendUnavailable), or null for any other error. */
export function queryTimeoutOf(error: unknown): QueryTimeoutError['limit'] | null {
  if (error instanceof QueryTimeoutError) return error.limit;
  if (error instanceof Error && error.name === 'QueryTimeoutError') return (error as QueryTimeoutError).limit;
  return null;
}

/** Whether a read of the result ran past its time (QueryTimeoutError): running it again would too. */
export function timedOut(result: ExecutionResult): boolean {
  return (result.errors ?? []).some((error) => queryTimeoutOf(error.originalError) !== null);
}

/** What a client reads when its query timed out: why, what it was priced at, and what to do instead of retrying. */
export function queryTimeoutMessage(limit: QueryTimeoutError['limit'], cost: number | null): string {
  const priced = cost === null ? '' : ` It was priced at ${cost} rows (GRAPHQL_MAX_COST).`;
  return (
    `The query ran longer than the backend allows (${limit.setting}: ${limit.ms} ms) and was stopped.${priced} ` +
    'It would time out again: narrow it (a time range, fewer in values, JSON tests, patterns or taskExecutions filters) or lower its limit.'
  );
}

export function errorCodeOf(error: GraphQLErrorType): string | undefined {
  const code = error.extensions['code'];
  return typeof code === 'string' ? code : undefined;
}

/** A copy of `error` (same locations and path) with another message and extensions. */
export function withExtensions(error: GraphQLErrorType, extensions: Record<string, unknown>, message = error.message): GraphQLErrorType {
  return new graphql.GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, ...extensions },
  });
}
