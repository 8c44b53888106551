// The graphql module instance that graphql-yoga, envelop and graphql-tools use. They import
// 'graphql' through Node's resolution, which picks its CommonJS main (the package has no exports
// map); tools that prefer the "module" field (vitest/vite) would give our own imports the .mjs
// copy instead, and graphql-js refuses schema objects and types from "another module or realm".
// Loading it with require() gives every environment the same single instance.
import { createRequire } from 'node:module';
import type * as GraphQL from 'graphql';
import type { GraphQLError as GraphQLErrorType } from 'graphql';

const require = createRequire(import.meta.url);

export const graphql = require('graphql') as typeof GraphQL;

/** Duck-typed: errors may come from any copy of graphql-js. */
export function isGraphQLError(value: unknown): value is GraphQLErrorType {
  return value instanceof Error && value.name === 'GraphQLError' && 'extensions' in value;
}
