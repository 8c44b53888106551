// `@workflow-index/postgresql/admin`: the administration side of the backend, for processes that do not serve GraphQL
// (the init job, the ingest benchmarks): migrations and the normalizer's definitions, login roles, connection
// settings, ingest of event logs, prune and status. Nothing reachable from here imports the server (the reader, the
// HTTP server, its configuration) or @workflow-index/core, so importing it does not load the GraphQL stack
// (test/light-entry-points.test.ts holds this). The package's main entry re-exports all of it.
export * from './migrator.js';
export * from './fluent-bit-statement.js';
export * from './connection-settings.js';
export * from './event-log-ingest.js';
export * from './login-roles.js';
export * from './schema-version.js';
export * from './postgresql-prune.js';
export * from './postgresql-status.js';
