export * from './bench-dataset.js';
export * from './load-events.js';
export * from './raw-statement.js';
export * from './test-database.js';
export * from './normalizer-rules.js';
export * from './database-fixture.js';
export { startLiveServer as startPostgresqlLiveServer } from './live-server.js';
