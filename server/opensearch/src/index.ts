export * from './local-node.js';
export * from './local-node-java.js';
export * from './local-node-distribution.js';
