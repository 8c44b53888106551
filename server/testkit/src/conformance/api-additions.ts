// The queries beyond the contract (issue 9), each group behind a feature a backend lists in
// ConformanceBackend.features once it implements it (PostgreSQL and PGlite: all of them). A backend without a
// feature must answer its queries with BAD_USER_INPUT "… not supported by the <backend> backend yet", never wrongly.
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { describeCounts } from './counts-assertions.js';
import { describeDurations } from './duration-assertions.js';
import { describeIndexStatus } from './index-status-assertions.js';
import { describeJsonOperators } from './json-operator-assertions.js';
import { describeRelations } from './relation-assertions.js';

export const ALL_CONFORMANCE_FEATURES = ['counts', 'durations', 'relations', 'jsonOperators', 'indexStatus'] as const;
export type ConformanceFeature = (typeof ALL_CONFORMANCE_FEATURES)[number];

/** The COUNT_EXACT_LIMIT of the suite's second app: below the data's 122 instances, so their count is an estimate. */
export const ESTIMATING_COUNT_LIMIT = 10;

/** One query per feature that a backend without it must refuse clearly. */
const PROBES: Readonly<Record<ConformanceFeature, string | null>> = {
  counts: '{ countWorkflowInstances { value exact } }',
  durations: '{ getWorkflowInstances(orderBy: {duration: DESC}) { id } }',
  relations: '{ getWorkflowInstances(filter: {taskExecutions: {status: "FAULTED"}}) { id } }',
  jsonOperators: '{ getWorkflowInstances(filter: {input: {exists: [{key: "orderId", value: true}]}}) { id } }',
  // answered from the contract's ingestion statistics: every backend has it
  indexStatus: null,
};

export function describeApiAdditions(client: GraphQLClient, estimating: GraphQLClient, features: readonly ConformanceFeature[]): void {
  const on = (feature: ConformanceFeature): boolean => features.includes(feature);
  describe.runIf(on('counts'))('counts', () => describeCounts(client, estimating));
  describe.runIf(on('durations'))('durations', () => describeDurations(client));
  describe.runIf(on('relations'))('tasks and their runs', () => describeRelations(client));
  describe.runIf(on('jsonOperators'))('JSON filter operators', () => describeJsonOperators(client));
  // Through the second client, whose requests are not recorded: the answer names the backend and depends on the
  // clock, so a cross-backend replay (server/opensearch/test/cross-backend.test.ts) could never match it.
  describe('index status', () => describeIndexStatus(estimating));

  const missing = ALL_CONFORMANCE_FEATURES.filter((f) => !on(f) && PROBES[f] !== null);
  describe.runIf(missing.length > 0)('features this backend does not implement yet', () => {
    it.each(missing)('%s: BAD_USER_INPUT saying it is not supported yet', async (feature) => {
      const errors = await client.errors(PROBES[feature]!);
      expect(errors[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
      expect(errors[0]?.message).toMatch(/not supported by .* backend yet/);
    });
  });
}
