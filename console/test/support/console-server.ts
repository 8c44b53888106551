// The server the browser suite talks to: the real app in-process on 127.0.0.1 (random port) loaded with the
// conformance events (the demo fixture plus the extra runs: 122 instances, a loop, faults, a 105-run paging set) the
// way Fluent Bit writes them — on PostgreSQL a fresh test database (the triggers normalize), on OpenSearch a test
// prefix of the real node (the raw indices, the real normalizer run to quiescence, the change feed polling its
// stamps). Options add settings (sign-in), a fixed port (a redirect URI registered at an issuer before the server
// starts; PostgreSQL only), the header of `graphql`, live updates (on PostgreSQL the change feed's LISTEN session; the
// OpenSearch server always has its feed) and more events.
import { CONFORMANCE_EVENTS, postGraphQL } from '@workflow-index/testkit';
import { createApp } from '@workflow-index/core';
import { loadCoreConfig } from '@workflow-index/core';
import { startHttpServer } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
import { createPool, PostgresqlChangeFeed } from '@workflow-index/postgresql';
import { createPostgresqlReader } from '@workflow-index/postgresql';
import { loadEvents } from '@workflow-index/postgresql/testing';
import { createTestDatabase } from '@workflow-index/postgresql/testing';
import { createTestNamespace, startOpenSearchLiveServer } from '@workflow-index/opensearch/testing';
import type { Event } from '@workflow-index/testkit';

/** The backends a console suite runs on. */
export type ConsoleBackend = 'postgresql' | 'opensearch';

export interface ConsoleServer {
  readonly baseUrl: string;
  /** POSTs a query to /graphql (the expected values of the browser assertions come from the API itself). */
  graphql<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  /** Writes more events as Fluent Bit does (the trigger normalizes them and notifies the live feed). */
  load(events: readonly Readonly<Record<string, unknown>>[]): Promise<void>;
  close(): Promise<void>;
}

export interface ConsoleServerOptions {
  /** Further settings, e.g. AUTH_MODE=oidc and its keys. */
  readonly env?: Readonly<Record<string, string>>;
  /** Default 0: a free port. */
  readonly port?: number;
  /** The Authorization header of `graphql` (an admin's token with AUTH_MODE=oidc). */
  readonly authorization?: string;
  /** Serve subscriptions (the PostgreSQL change feed); without it they answer SERVICE_UNAVAILABLE, as on PGlite. */
  readonly live?: boolean;
  /** Events loaded after the conformance events. */
  readonly events?: readonly Readonly<Record<string, unknown>>[];
  /** Default postgresql. */
  readonly backend?: ConsoleBackend;
}

export async function startConsoleServer(options: ConsoleServerOptions = {}): Promise<ConsoleServer> {
  return options.backend === 'opensearch' ? startOnOpenSearch(options) : startOnPostgresql(options);
}

async function startOnPostgresql(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const db = await createTestDatabase({ prefix: 'wi_console' });
  try {
    await loadEvents(db.pool, CONFORMANCE_EVENTS, { batchSizes: [100] });
    if (options.events !== undefined) await loadEvents(db.pool, options.events, { batchSizes: [100] });
    const postgresql = createPostgresqlReader({ pool: createPool({ connection: { connectionString: db.url, max: 4 }, queryTimeoutMs: 30_000, connectTimeoutMs: 10_000 }) });
    const reader = postgresql;
    const config = loadCoreConfig({ NODE_ENV: 'production', HTTP_HOST: '127.0.0.1', HTTP_PORT: String(options.port ?? 0), HEALTH_DISK_MIN_FREE_BYTES: '0', HTTP_SHUTDOWN_TIMEOUT_MS: '2000', ...options.env });
    const logger = createLogger({ log: { level: 'warn', format: 'json' } });
    const changeFeed = options.live === true ? new PostgresqlChangeFeed({ connection: { connectionString: db.url }, logger }) : null;
    const app = createApp({ config, reader, logger, backend: 'postgresql', changeFeed });
    const server = await startHttpServer(app, config, logger);
    const baseUrl = `http://127.0.0.1:${server.httpPort}`;
    return {
      baseUrl,
      graphql: (query, variables) => data(baseUrl, query, variables, options.authorization),
      load: (events) => loadEvents(db.pool, events),
      async close() {
        await server.close();
        await app.dispose();
        await reader.close();
        await db.drop();
      },
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}

async function startOnOpenSearch(options: ConsoleServerOptions): Promise<ConsoleServer> {
  if (options.port !== undefined) throw new Error('a fixed port is served on PostgreSQL only');
  const ns = createTestNamespace();
  try {
    const live = await startOpenSearchLiveServer(ns.client, ns.prefix, options.env ?? {});
    const load = (events: readonly Readonly<Record<string, unknown>>[]): Promise<void> => live.deliver(events as readonly Event[]);
    await load(CONFORMANCE_EVENTS);
    if (options.events !== undefined) await load(options.events);
    return {
      baseUrl: live.baseUrl,
      graphql: (query, variables) => data(live.baseUrl, query, variables, options.authorization),
      load,
      async close() {
        await live.close();
        await ns.drop();
      },
    };
  } catch (error) {
    await ns.drop();
    throw error;
  }
}

async function data<T>(baseUrl: string, query: string, variables: Record<string, unknown> | undefined, authorization: string | undefined): Promise<T> {
  const { status, body } = await postGraphQL<T>(baseUrl, query, variables, authorization === undefined ? {} : { authorization });
  if (status !== 200 || body.errors !== undefined || body.data === undefined || body.data === null) throw new Error(`query failed (HTTP ${status}): ${JSON.stringify(body).slice(0, 2000)}\n${query}`);
  return body.data;
}
