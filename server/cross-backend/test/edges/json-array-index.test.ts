// Same answers on both backends: a JSON filter path segment indexes an array only when it is `0` or digits without a
// leading zero. PostgreSQL's `#>` alone also reads `-1` (from the end), `01`, `+1` and ` 1` as indexes, which the
// OpenSearch leaves and paths (json-leaves.ts, json-paths.ts valueAtPath) cannot; the PostgreSQL reader now gives NULL
// for such a segment meeting an array (postgresql-filter-sql.ts jsonValueAtPath), and its eq (containment prefilter)
// agrees with its own exists/ne.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothAvailable, loadBackendPair, type BackendPair, summary, workflowStarted } from './backend-pair.js';

const available = await bothAvailable();

const LIST = `query ($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $filter, orderBy: {id: ASC}) { id } }`;

describe.skipIf(!available)('JSON filter paths with non-canonical array indexes', () => {
  let pair: BackendPair;
  beforeAll(async () => {
    pair = await loadBackendPair('jsonidx', [
      workflowStarted('inst-a', '2026-05-12T09:00:00.000001Z', { input: { items: [{ sku: 'A1' }, { sku: 'A2' }] } }),
      workflowStarted('inst-b', '2026-05-12T09:00:01.000001Z', { input: { items: { '01': { sku: 'B01' }, '-1': { sku: 'Bm1' } } } }),
    ]);
  }, 180_000);
  afterAll(async () => {
    await pair?.close();
  });

  const cases: [string, Record<string, unknown>][] = [
    ['eq with index 01 (PostgreSQL: array element 1)', { input: { eq: [{ key: 'items.01.sku', value: 'A2' }] } }],
    ['exists with index -1 (PostgreSQL: the last element)', { input: { exists: [{ key: 'items.-1', value: true }] } }],
    ['exists false with index -1', { input: { exists: [{ key: 'items.-1', value: false }] } }],
    ['ne with index -1', { input: { ne: [{ key: 'items.-1.sku', value: 'zzz' }] } }],
    ['gt (text) with index 01', { input: { gt: [{ key: 'items.01.sku', value: 'A' }] } }],
    ['in with index 01', { input: { in: [{ key: 'items.01.sku', values: ['A2', 'B01'] }] } }],
    ['contains with index +1', { input: { contains: [{ key: 'items.+1.sku', value: 'A' }] } }],
  ];
  for (const [name, filter] of cases) {
    it(`${name}: both backends answer the same`, async () => {
      const { postgresql, opensearch } = await pair.send(LIST, { filter });
      expect(postgresql.errors).toEqual([]);
      expect(summary(opensearch)).toBe(summary(postgresql));
    });
  }

  it('PostgreSQL alone: eq and ne disagree on the same path (eq goes through the containment prefilter, ne does not)', async () => {
    const ids = async (filter: unknown): Promise<string[]> =>
      (((await pair.postgresql.client.send(LIST, { filter })).data?.['getWorkflowInstances'] ?? []) as { id: string }[]).map((r) => r.id);
    const path = 'items.-1.sku';
    const eq = await ids({ input: { eq: [{ key: path, value: 'A2' }] } });
    // Where the path exists and is not "ne A2", it is "eq A2".
    const existsNotNe = await ids({ and: [{ input: { exists: [{ key: path, value: true }] } }, { not: { input: { ne: [{ key: path, value: 'A2' }] } } }] });
    expect(eq).toEqual(existsNotNe);
  });
});
