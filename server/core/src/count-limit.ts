// COUNT_EXACT_LIMIT (graphql.countExactLimit): counts are exact up to this many matching rows, estimated above.
import type { CoreConfig } from './config.js';

/** The default of COUNT_EXACT_LIMIT. */
export const DEFAULT_COUNT_EXACT_LIMIT = 10_000;

export function countExactLimitOf(config: CoreConfig): number {
  return config.graphql.countExactLimit;
}

/**
 * What one count costs in the query cost (rows of GRAPHQL_MAX_COST): it reads at most limit + 1 index entries, which
 * cost far less than rows with payloads, so a hundredth of the limit (100 by default, a default page).
 */
export function countCostOf(exactLimit: number): number {
  return Math.max(1, Math.ceil(exactLimit / 100));
}

/** `config` with another COUNT_EXACT_LIMIT (tests and benchmarks that need estimates on small data). */
export function withCountExactLimit(config: CoreConfig, countExactLimit: number): CoreConfig {
  return { ...config, graphql: { ...config.graphql, countExactLimit } };
}
