// WorkflowInstance.events on a real OpenSearch node: the shared event-history suite over the conformance store (the
// events written as Fluent Bit's opensearch output writes them, normalized by the real normalizer, under a prefix).
import { describe } from 'vitest';
import { runEventHistorySuite } from '@workflow-index/testkit';
import { conformanceStore } from './support/conformance-store.js';
import { openSearchReachable } from './support/test-node.js';

const available = await openSearchReachable();

describe.skipIf(!available)('event history: OpenSearch', () => {
  runEventHistorySuite({ name: 'opensearch', executionsPerRequest: 2, setup: conformanceStore });
});
