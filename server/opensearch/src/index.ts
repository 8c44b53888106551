// `@workflow-index/opensearch`: the server (reader, configuration, HTTP server), the local node for development and
// tests, the events package and, re-exported, the write and administration side (admin.ts, also its own light entry
// point `@workflow-index/opensearch/admin`).
export * from './admin.js';
export * from './local-node.js';
export * from './local-node-java.js';
export * from './local-node-distribution.js';
export * from '@workflow-index/events';
export * from './reader/opensearch-reader.js';
export * from './opensearch-server-config.js';
export * from './opensearch-server.js';
export { OpenSearchChangeFeed, POLL_INTERVAL_MS, OVERLAP_MS } from './opensearch-change-feed.js';
