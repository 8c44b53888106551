// The server the browser suite talks to: the real app in-process on 127.0.0.1 (random port), the PostgreSQL
// backend on a fresh test database loaded with the conformance events (the demo fixture plus the extra runs:
// 122 instances, a loop, faults, a 105-run paging set) the way Fluent Bit writes them.
import { CONFORMANCE_EVENTS } from '@workflow-index/testkit';
import { createApp } from '@workflow-index/core';
import { loadCoreConfig } from '@workflow-index/core';
import { startHttpServer } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
import type { Reader } from '@workflow-index/core';
import { createPool } from '@workflow-index/postgresql';
import { createPostgresqlReader } from '@workflow-index/postgresql';
import { loadEvents } from '@workflow-index/postgresql/testing';
import { createTestDatabase } from '@workflow-index/postgresql/testing';

export interface ConsoleServer {
  readonly baseUrl: string;
  /** POSTs a query to /graphql (the expected values of the browser assertions come from the API itself). */
  graphql<T>(query: string, variables?: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

/**
 * `extended: false` serves the same PostgreSQL reader without its optional `extended` part (the API additions of
 * issue 9), as a backend that has not implemented them yet is: the console must fall back to the contract's queries.
 */
export async function startConsoleServer(options: { extended?: boolean } = {}): Promise<ConsoleServer> {
  const db = await createTestDatabase({ prefix: 'wi_console' });
  try {
    await loadEvents(db.pool, CONFORMANCE_EVENTS, { batchSizes: [100] });
    const postgresql = createPostgresqlReader({ pool: createPool({ connection: { connectionString: db.url, max: 4 }, queryTimeoutMs: 30_000, connectTimeoutMs: 10_000 }) });
    const reader = options.extended === false ? withoutExtended(postgresql) : postgresql;
    const config = loadCoreConfig({ NODE_ENV: 'production', HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0', HTTP_SHUTDOWN_TIMEOUT_MS: '2000' });
    const logger = createLogger({ log: { level: 'warn', format: 'json' } });
    const app = createApp({ config, reader, logger, backend: 'postgresql' });
    const server = await startHttpServer(app, config, logger);
    const baseUrl = `http://127.0.0.1:${server.httpPort}`;
    return {
      baseUrl,
      async graphql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
        const response = await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query, variables }) });
        const body = (await response.json()) as { data?: T; errors?: unknown[] };
        if (body.errors !== undefined) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
        return body.data as T;
      },
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

/** The reader as a backend without the optional API additions sees it: every contract method, no `extended`. */
function withoutExtended(reader: Reader): Reader {
  return new Proxy(reader, {
    get(target, property) {
      if (property === 'extended') return undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
