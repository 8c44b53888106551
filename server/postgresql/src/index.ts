// `@workflow-index/postgresql`: the server (reader, configuration, HTTP server) and, re-exported, the administration
// side (admin.ts, also its own light entry point `@workflow-index/postgresql/admin`).
export * from './admin.js';
export { createPostgresqlReader, PostgresqlReader, preparedStatementName } from './postgresql-reader.js';
export type { PostgresqlReaderOptions } from './postgresql-reader.js';
export { EVENTS_OF_INSTANCES_SQL } from './postgresql-events.js';
export { createPool } from './postgresql-pool.js';
export type { CreatePoolOptions, PoolTimeouts } from './postgresql-pool.js';
export { classifyError, isUnavailable } from './postgresql-errors.js';
export { loadPostgresqlConfig, parseServerFlags, POSTGRESQL_CONFIG_KEYS } from './postgresql-config.js';
export type { DatabaseConfig, DevConfig, DevServices, PostgresqlServerConfig, ServerFlags } from './postgresql-config.js';
export * from './postgresql-filter-sql.js';
export { batchOf, CHANGES_CHANNEL, LISTEN_APPLICATION_NAME, PostgresqlChangeFeed } from './postgresql-change-feed.js';
export type { PostgresqlChangeFeedOptions } from './postgresql-change-feed.js';
