// The shared conformance suite on a real OpenSearch node: the events written as Fluent Bit's opensearch output writes
// them (the `_bulk` shape into the daily raw indices, repaired by the ingest pipeline), normalized by the real
// normalizer, read by the OpenSearch Reader, all under a test prefix (support/conformance-store.ts).
import { describe } from 'vitest';
import { runConformanceSuite } from '@workflow-index/testkit';
import { conformanceStore } from './support/conformance-store.js';
import { openSearchReachable } from './support/test-node.js';

const available = await openSearchReachable();

describe.skipIf(!available)('conformance: OpenSearch', () => {
  runConformanceSuite({
    name: 'opensearch',
    // Each request twice, not three times: the hot path sits above the Reader (the PostgreSQL and PGlite suites send
    // three), and a third round of the whole suite tripped the 512 MiB test node's parent circuit breaker once in CI.
    executionsPerRequest: 2,
    setup: conformanceStore,
  });
});
