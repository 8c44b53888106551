// The statistics conformance cases on a real OpenSearch node (Fluent Bit's `_bulk` shape, the real normalizer).
import { describe } from 'vitest';
import { runStatsConformance } from '@workflow-index/testkit';
import { conformanceStore } from './support/conformance-store.js';
import { openSearchReachable } from './support/test-node.js';

const available = await openSearchReachable();

describe.skipIf(!available)('statistics conformance: OpenSearch', () => {
  runStatsConformance({ name: 'opensearch', setup: conformanceStore });
});
