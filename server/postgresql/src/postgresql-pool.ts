// The server's connection pool: bounded waits everywhere, so a dead or unreachable database gives a prompt
// error instead of a hang, and a pool that heals by itself (broken clients are dropped, new ones are opened
// on demand once the database answers again).
import pg from 'pg';

export interface PoolTimeouts {
  /** Server-side statement_timeout (ms); the client-side read timeout is a little longer as a backstop. */
  readonly queryTimeoutMs: number;
  /** Bound on opening a connection and on waiting for a free pooled client (ms). */
  readonly connectTimeoutMs: number;
  /** Idle pooled clients are closed after this (ms). */
  readonly idleTimeoutMs?: number;
}

export interface CreatePoolOptions extends PoolTimeouts {
  /** Connection and sizing settings (e.g. from connection-settings.ts): host, port, user, password, ssl, max, min… */
  readonly connection: pg.PoolConfig;
  readonly applicationName?: string;
  /**
   * Sessions start read-only (`default_transaction_read_only`), a second line of defence behind the reader
   * role's privileges. Off for pools that write (demo data loading, migrations).
   */
  readonly readOnly?: boolean;
  /** Errors of idle clients (e.g. the server terminated the connection); without a listener they would crash the process. */
  readonly onIdleError?: (error: Error) => void;
}

/**
 * Extra margin of the client-side read timeout over statement_timeout, so the server's cancel wins normally: a busy
 * server can take seconds to stop a heavy statement and send its error (seen at load 20: over 1 s), and a client timer
 * that fires first destroys the connection and reports an outage (SERVICE_UNAVAILABLE) for a slow query.
 */
const CLIENT_TIMEOUT_MARGIN_MS = 5000;

export function createPool(options: CreatePoolOptions): pg.Pool {
  const startupOptions = [options.connection.options, options.readOnly === false ? undefined : '-c default_transaction_read_only=on']
    .filter((o): o is string => typeof o === 'string' && o.trim() !== '')
    .join(' ');
  const pool = new pg.Pool({
    ...options.connection,
    application_name: options.connection.application_name ?? options.applicationName ?? 'workflow-index',
    ...(startupOptions !== '' ? { options: startupOptions } : {}),
    statement_timeout: options.queryTimeoutMs,
    // A statement waiting for a lock (a schema change holds the table) gives up first, as unavailability (55P03):
    // statement_timeout then means the query itself was too slow (QUERY_TIMEOUT).
    lock_timeout: Math.max(1, Math.floor(options.queryTimeoutMs / 2)),
    query_timeout: options.queryTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS,
    connectionTimeoutMillis: options.connectTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs ?? options.connection.idleTimeoutMillis ?? 30_000,
    keepAlive: true,
  });
  pool.on('error', (error) => options.onIdleError?.(error));
  // A connection that breaks while checked out but between queries emits 'error' on its client, which would crash
  // the process without a listener; the next query on it fails instead, and the reader discards it.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
