export * from './postgresql-twin.js';
