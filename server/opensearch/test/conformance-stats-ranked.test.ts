// The statistics conformance cases on OpenSearch with every workflowStats request ranking its durations instead of
// collecting them (what a request over more than COLLECT_LIMIT finished runs does: stats/duration-ranks.ts), and a
// result window of 3 hits, so the walks from the estimates page with search_after, and composite pages of 2 buckets,
// so every request of more than two buckets reads them page by page: the same exact answers.
import { describe } from 'vitest';
import { runStatsConformance } from '@workflow-index/testkit';
import { conformanceStore } from './support/conformance-store.js';
import { openSearchReachable } from './support/test-node.js';

const available = await openSearchReachable();

describe.skipIf(!available)('statistics conformance: OpenSearch, durations ranked', () => {
  runStatsConformance({ name: 'opensearch', setup: (events) => conformanceStore(events, { statsCollectLimit: 0, maxResultWindow: 3, statsPageSize: 2 }) });
});
