// `@workflow-index/opensearch/admin`: the write and administration side of the backend, for processes that do not
// serve GraphQL (the init job, the ingest and freshness benchmarks): connection settings, setup and status of every
// object, the raw event pipeline and Fluent Bit bulk bodies, the normalizer and its documents, retention and prune.
// Nothing reachable from here imports the server (the reader, the HTTP server, its configuration) or
// @workflow-index/core, so importing it does not load the GraphQL stack (test/light-entry-points.test.ts holds this).
// The package's main entry re-exports all of it.
export * from './opensearch-connection-settings.js';
export * from './raw-event-pipeline.js';
export * from './raw-index-templates.js';
export * from './apply-raw-schema.js';
export * from './fluent-bit-bulk.js';
export * from './index-layout.js';
export * from './normalized-indices.js';
export * from './workflow-instance-document.js';
export * from './task-execution-document.js';
export * from './normalize-instance.js';
export * from './raw-event-parse.js';
export * from './normalizer-job.js';
export * from './normalizer-metrics.js';
export * from './normalizer-checkpoint.js';
export * from './normalizer-late-arrivals.js';
export * from './normalizer-lease.js';
export * from './normalizer-slots.js';
export * from './event-store.js';
export * from './json-leaves.js';
export * from './json-paths.js';
export * from './normalizer-rules-version.js';
export * from './opensearch-document.js';
export * from './raw-event-source.js';
export * from './retention/retention-rule.js';
export * from './retention/retention-run.js';
export * from './retention/retention-prune.js';
export * from './setup/opensearch-setup.js';
export * from './setup/opensearch-status.js';
