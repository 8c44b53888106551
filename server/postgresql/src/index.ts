export * from './migrator.js';
export * from './fluent-bit-statement.js';
