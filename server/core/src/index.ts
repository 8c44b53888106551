export * from './reader.js';
