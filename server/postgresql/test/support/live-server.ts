// A PostgreSQL server with live updates for a test: the real reader and the real change feed on the test's database,
// the app served by a real node:http server on a free loopback port.
import { createApp } from '@workflow-index/core';
import type { App } from '@workflow-index/core';
import { MemoryLog, testConfig, serveApp } from '@workflow-index/testkit';
import { PostgresqlChangeFeed } from '../../src/postgresql-change-feed.js';
import { createPool } from '../../src/postgresql-pool.js';
import { createPostgresqlReader } from '../../src/postgresql-reader.js';
import type { TestDatabase } from './test-database.js';

export interface LiveServer {
  readonly app: App;
  readonly baseUrl: string;
  readonly feed: PostgresqlChangeFeed;
  readonly log: MemoryLog;
  close(): Promise<void>;
}

export async function startLiveServer(database: TestDatabase, env: Record<string, string> = {}): Promise<LiveServer> {
  const log = new MemoryLog();
  const logger = log.logger();
  const pool = createPool({ connection: { connectionString: database.url, max: 4 }, queryTimeoutMs: 10_000, connectTimeoutMs: 5000, readOnly: true });
  const reader = createPostgresqlReader({ pool });
  const feed = new PostgresqlChangeFeed({ connection: { connectionString: database.url }, logger });
  const app = createApp({ config: testConfig({ GRAPHQL_SUBSCRIPTION_HEARTBEAT_MS: '200', ...env }), reader, logger, backend: 'postgresql', changeFeed: feed });
  const served = await serveApp(app);
  return {
    app,
    baseUrl: served.baseUrl,
    feed,
    log,
    close: async () => {
      await served.close();
      await app.dispose();
      await reader.close();
    },
  };
}
