// The ranked durations of big buckets (stats/duration-ranks.ts) are exact whatever the estimate: fast-check writes
// durations with many ties into a real index, gives every percentile an arbitrary estimate between the bucket's min
// and max (a TDigest is close; this is the worst case) and a result window of 1 to 4 hits (so walks page with
// search_after), and the answers must be the nearest ranks of the sorted durations.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeSortedDurations } from '@workflow-index/core';
import { applyNormalizedIndices, normalizedIndexNames } from '../src/normalized-indices.js';
import { SearchRequests } from '../src/reader/search-requests.js';
import { DurationRanks } from '../src/reader/stats/duration-ranks.js';
import { term } from '../src/reader/query-dsl.js';
import { createTestNamespace, openSearchReachable, type TestNamespace } from './support/test-node.js';

const available = await openSearchReachable();

describe.skipIf(!available)('DurationRanks: exact nearest ranks from any estimate', () => {
  let ns: TestNamespace;
  let index: string;
  beforeAll(async () => {
    ns = createTestNamespace();
    await applyNormalizedIndices(ns.client, ns.prefix);
    index = normalizedIndexNames(ns.prefix).workflowInstances;
  });
  afterAll(async () => {
    await ns.drop();
  });

  it('property: p50, p90, p99 and max equal the sorted durations at their nearest ranks', async () => {
    let set = 0;
    const durations = fc.array(fc.oneof(fc.constantFrom(1000, 2000, 2001), fc.integer({ min: 0, max: 5_000_000 })), { minLength: 1, maxLength: 60 });
    const fraction = fc.double({ min: 0, max: 1, noNaN: true });
    await fc.assert(
      fc.asyncProperty(durations, fc.tuple(fraction, fraction, fraction), fc.integer({ min: 1, max: 4 }), async (values, [f50, f90, f99], window) => {
        const bucket = `b${set++}`;
        const body = values.flatMap((d, i) => [
          { index: { _index: index, _id: `${bucket}-${i}` } },
          { id: `${bucket}-${i}`, name: bucket, start_time_us: 1_000_000, end_time_us: 1_000_000 + d, duration_us: d, placeholder: false },
        ]);
        await ns.client.transport.request({ method: 'POST', path: '/_bulk', querystring: { refresh: 'true' }, bulkBody: body });
        const sorted = [...values].sort((a, b) => a - b);
        const [min, max] = [sorted[0]!, sorted.at(-1)!];
        const at = (f: number): number => min + f * (max - min);
        const ranks = new DurationRanks(new SearchRequests(ns.client, 10_000), index, window);
        const [summary] = await ranks.summaries([{ query: term('name', bucket), count: values.length, min, max, estimates: { p50: at(f50), p90: at(f90), p99: at(f99) } }]);
        expect(summary).toEqual(summarizeSortedDurations(sorted));
      }),
      { numRuns: 40 },
    );
  }, 300_000);

});
