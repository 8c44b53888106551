// sendBulk (normalizer-recompute.ts) cuts what it writes into bodies of at most BULK_BODY_BYTES: a node refuses one
// bulk over its indexing-pressure limit (10 % of the heap, 53 MB on the 512 MiB test node) with a 429 that no retry
// cures, which stalled the re-normalization walk (and a cycle) on a run with many large documents. Real node.
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { BULK_BODY_BYTES, type BulkLine, sendBulk } from '../src/normalizer-recompute.js';
import { type TestNamespace, requestPathsOf } from './support/test-node.js';

describeOpenSearch('bulk bodies (real OpenSearch node)', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  it('writes every document of a recomputation larger than one body, in several bodies of at most BULK_BODY_BYTES', async () => {
    const index = `${ns.prefix}bulk-bodies`;
    await ns.client.transport.request({ method: 'PUT', path: `/${index}`, body: { mappings: { properties: { blob: { type: 'text', index: false } } } } });
    const blob = 'x'.repeat(3 * 1024 * 1024);
    const lines: BulkLine[] = Array.from({ length: 7 }, (_, i) => ({ action: { index: { _index: index, _id: `d${i}`, version: 5, version_type: 'external_gte' } }, document: { blob, i } }));
    let failures: unknown;
    const paths = await requestPathsOf(ns, async () => {
      failures = await sendBulk(ns.client, lines, true);
    });
    expect(failures).toEqual([]);
    // 7 × 3 MiB in bodies of at most 8 MiB: two documents a body, so four bodies
    expect(BULK_BODY_BYTES).toBe(8 * 1024 * 1024);
    expect(paths.filter((p) => p === '/_bulk')).toHaveLength(4);
    const count = await ns.client.transport.request({ method: 'GET', path: `/${index}/_count` });
    expect((count.body as { count: number }).count).toBe(7);
  }, 120_000);
});
