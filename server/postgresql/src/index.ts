export * from './migrator.js';
export * from './fluent-bit-statement.js';
export { createPostgresqlReader, PostgresqlReader } from './postgresql-reader.js';
export type { PostgresqlReaderOptions } from './postgresql-reader.js';
export { createPool } from './postgresql-pool.js';
export type { CreatePoolOptions, PoolTimeouts } from './postgresql-pool.js';
export { classifyError, isUnavailable } from './postgresql-errors.js';
export { loadPostgresqlConfig, parseServerFlags, POSTGRESQL_CONFIG_KEYS } from './postgresql-config.js';
export type { DatabaseConfig, DevConfig, DevServices, PostgresqlServerConfig, ServerFlags } from './postgresql-config.js';
