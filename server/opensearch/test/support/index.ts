export * from './bench-dataset.js';
export * from './generated-events.js';
export * from './leased-normalizer.js';
export * from './normalized-store.js';
export * from './opensearch-state.js';
export * from './test-node.js';
export * from './rules-fingerprint.js';
export * from './namespace-fixture.js';
export { startLiveServer as startOpenSearchLiveServer } from './live-server.js';
