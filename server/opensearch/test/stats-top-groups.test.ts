// topErrors on OpenSearch reads at most maxTopGroups groups (MAX_TOP_GROUPS in production): within the bound it answers
// the first `limit` groups in the contract's order; past it, BAD_USER_INPUT saying how to narrow the filter, instead of
// reading and holding every group.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyNormalizedIndices, normalizedIndexNames } from '../src/normalized-indices.js';
import { SearchRequests } from '../src/reader/search-requests.js';
import { OpenSearchStats } from '../src/reader/stats/opensearch-stats.js';
import { term } from '../src/reader/query-dsl.js';
import { createTestNamespace, openSearchReachable, type TestNamespace } from './support/test-node.js';

const available = await openSearchReachable();

describe.skipIf(!available)('topErrors on OpenSearch: a bounded number of groups', () => {
  let ns: TestNamespace;
  const stats = (maxTopGroups: number) =>
    new OpenSearchStats({ requests: new SearchRequests(ns.client, 10_000), names: normalizedIndexNames(ns.prefix), served: async () => term('placeholder', false), maxResultWindow: 10_000, maxTopGroups });

  beforeAll(async () => {
    ns = createTestNamespace();
    await applyNormalizedIndices(ns.client, ns.prefix);
    const index = normalizedIndexNames(ns.prefix).workflowInstances;
    // Three error groups: t1 twice, t2 and t3 once each.
    const runs = [['r1', 't1'], ['r2', 't1'], ['r3', 't2'], ['r4', 't3']] as const;
    const body = runs.flatMap(([id, type], i) => [
      { index: { _index: index, _id: id } },
      { id, status: 'FAULTED', placeholder: false, start_time_us: 1_000_000, end_time_us: 2_000_000 + i, last_update_us: 2_000_000 + i, error: { type, title: 'T', status: 500 } },
    ]);
    await ns.client.transport.request({ method: 'POST', path: '/_bulk', querystring: { refresh: 'true' }, bulkBody: body });
  });
  afterAll(async () => {
    await ns.drop();
  });

  it('answers the first groups when they are within the bound', async () => {
    expect(await stats(3).topErrors({ filter: null, limit: 2 })).toEqual([
      { type: 't1', title: 'T', status: 500, count: 2, lastSeen: '1970-01-01T00:00:02.000001Z' },
      { type: 't2', title: 'T', status: 500, count: 1, lastSeen: '1970-01-01T00:00:02.000002Z' },
    ]);
  });

  it('refuses a filter matching more groups than the bound, saying how to narrow it', async () => {
    await expect(stats(2).topErrors({ filter: null, limit: 1 })).rejects.toMatchObject({
      message: expect.stringContaining('topErrors counts at most 2 distinct (error.type, error.title, error.status) groups') as string,
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});
