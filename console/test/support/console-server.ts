// The server the browser suite talks to: the real app in-process on 127.0.0.1 (random port), the PostgreSQL
// backend on a fresh test database loaded with the conformance events (the demo fixture plus the extra runs:
// 122 instances, a loop, faults, a 105-run paging set) the way Fluent Bit writes them.
import { CONFORMANCE_EVENTS, graphqlData } from '@workflow-index/testkit';
import { createApp } from '@workflow-index/core';
import { loadCoreConfig } from '@workflow-index/core';
import { startHttpServer } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
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

export async function startConsoleServer(): Promise<ConsoleServer> {
  const db = await createTestDatabase({ prefix: 'wi_console' });
  try {
    await loadEvents(db.pool, CONFORMANCE_EVENTS, { batchSizes: [100] });
    const postgresql = createPostgresqlReader({ pool: createPool({ connection: { connectionString: db.url, max: 4 }, queryTimeoutMs: 30_000, connectTimeoutMs: 10_000 }) });
    const reader = postgresql;
    const config = loadCoreConfig({ NODE_ENV: 'production', HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0', HTTP_SHUTDOWN_TIMEOUT_MS: '2000' });
    const logger = createLogger({ log: { level: 'warn', format: 'json' } });
    const app = createApp({ config, reader, logger, backend: 'postgresql' });
    const server = await startHttpServer(app, config, logger);
    const baseUrl = `http://127.0.0.1:${server.httpPort}`;
    return {
      baseUrl,
      graphql: (query, variables) => graphqlData(baseUrl, query, variables),
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
