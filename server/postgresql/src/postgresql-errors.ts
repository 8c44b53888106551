// Which failures mean "the database cannot be reached (now)" — served as SERVICE_UNAVAILABLE and retried by
// clients — as opposed to bugs, which are masked as INTERNAL_SERVER_ERROR.
import { BackendUnavailableError, QueryTimeoutError } from '@workflow-index/core';

const NETWORK_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  'ECONNABORTED', 'EADDRNOTAVAIL',
]);

// SQLSTATEs of an unusable server or session: connection exceptions (08), resources (53), operator
// intervention (57: shutdown, cannot connect now, statement_timeout's query_canceled), and the connection
// refusals PostgreSQL reports at login (database missing or not accepting connections, authentication).
const UNAVAILABLE_SQLSTATE_PREFIXES = ['08', '53', '57', '28'];
const UNAVAILABLE_SQLSTATES = new Set(['3D000', '55000', '55P03']);
// Class 08 except protocol_violation: the server refused a message of this request (e.g. a statement with more than
// 65,535 bind parameters, which the driver cannot encode), not a connection problem. Served as an internal error,
// never as "the database is down" (the filter width limits of filter-translation.ts keep clients from causing it).
const REQUEST_SQLSTATES = new Set(['08P01']);

// pg reports its own client-side timeouts and broken sockets as plain Errors.
const PG_CLIENT_MESSAGES = [
  'timeout exceeded when trying to connect',
  'Connection terminated',
  'Query read timeout',
  'connection timeout',
  'is not queryable',
  'Client was closed',
  'Cannot use a pool after calling end',
];

export function isUnavailable(error: unknown): boolean {
  if (error instanceof BackendUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) {
      if (REQUEST_SQLSTATES.has(code)) return false;
      return UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SQLSTATE_PREFIXES.some((p) => code.startsWith(p));
    }
  }
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  return PG_CLIENT_MESSAGES.some((m) => error.message.includes(m));
}

/** query_canceled with this message: the statement ran past statement_timeout (not an administrator's cancel). */
const QUERY_CANCELED = '57014';
const STATEMENT_TIMEOUT_MESSAGE = 'statement timeout';

/** The statement_timeout (ms) a pool's sessions run with (postgresql-pool.ts sets it), if it sets one. */
export function statementTimeoutOf(pool: { readonly options: { readonly statement_timeout?: unknown } }): number | undefined {
  const value = pool.options.statement_timeout;
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** Whether PostgreSQL stopped the statement because it ran past statement_timeout. */
export function isStatementTimeout(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === QUERY_CANCELED && error.message.includes(STATEMENT_TIMEOUT_MESSAGE);
}

/**
 * A statement stopped by statement_timeout as QueryTimeoutError (the database answers: the query is too slow, retrying
 * it would not help), a connection-level failure as BackendUnavailableError; other errors are returned unchanged.
 * A statement that waited for a lock past lock_timeout (55P03: a schema change holds the table) is unavailability.
 */
export function classifyError(error: unknown, what: string, statementTimeoutMs?: number): unknown {
  if (error instanceof BackendUnavailableError) return error;
  if (statementTimeoutMs !== undefined && isStatementTimeout(error)) {
    return new QueryTimeoutError(`PostgreSQL stopped the statement after statement_timeout (${what}): ${(error as Error).message}`, { ms: statementTimeoutMs, setting: 'DATABASE_QUERY_TIMEOUT_MS' }, { cause: error });
  }
  if (!isUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);
  return new BackendUnavailableError(`PostgreSQL unavailable (${what}): ${reason}`, { cause: error });
}
