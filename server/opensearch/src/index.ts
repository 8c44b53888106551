export * from './local-node.js';
export * from './local-node-java.js';
export * from './local-node-distribution.js';
export * from './raw-event-pipeline.js';
export * from './raw-index-templates.js';
export * from './apply-raw-schema.js';
export * from './fluent-bit-json.js';
export * from './fluent-bit-bulk.js';
