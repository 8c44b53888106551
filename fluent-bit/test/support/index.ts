export * from './deployed-environment.js';
export * from './opensearch-environment.js';
export * from './unparsable-lines.js';
