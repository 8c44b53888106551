export * from './flb-json-parser.js';
export * from './load-config.js';
export * from './opensearch-output.js';
export * from './pgsql-output.js';
export * from './pipeline.js';
export * from './tail-input.js';
