// Same answers on both backends: date filters at microsecond precision and with offsets, limits/offsets at their bounds, the cost limit and
// the cursor checks, on both backends (same answers; errors BAD_USER_INPUT, never INTERNAL_SERVER_ERROR).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCoreConfig } from '@workflow-index/core';
import { side } from '../support/backend-pair.js';
import { bothAvailable, codes, loadBackendPair, type BackendPair, summary, taskCompleted, taskStarted, workflowCompleted, workflowStarted } from './backend-pair.js';

const available = await bothAvailable();

const LIST = `query ($filter: WorkflowInstanceFilterInput, $limit: Int, $offset: Int, $after: String, $orderBy: WorkflowInstanceOrderByInput) {
  getWorkflowInstances(filter: $filter, limit: $limit, offset: $offset, after: $after, orderBy: $orderBy) { id startDate endDate cursor } }`;
const TASKS = `query ($filter: TaskExecutionFilterInput, $after: String) { getTaskExecutions(filter: $filter, after: $after) { id startDate cursor } }`;

describe.skipIf(!available)('dates, bounds, cost and cursor checks', () => {
  let pair: BackendPair;
  beforeAll(async () => {
    pair = await loadBackendPair('dates', [
      workflowStarted('d-1', '2026-05-12T09:00:00.000001Z'),
      workflowStarted('d-2', '2026-05-12T11:00:00.000002+02:00'),
      workflowCompleted('d-2', '2026-05-12T09:00:00.5Z'),
      workflowStarted('d-3', '2026-05-12T09:00:00.0000025Z'),
      workflowStarted('d-4', '1969-12-31T23:59:59.999999Z'),
      taskStarted('d-1', 'do/0/t', '2026-05-12T09:00:00.000003Z'),
      taskCompleted('d-1', 'do/0/t', '2026-05-12T09:00:00.000004Z'),
    ]);
  }, 180_000);
  afterAll(async () => {
    await pair?.close();
  });

  const filters: [string, Record<string, unknown>][] = [
    ['eq to the microsecond', { startDate: { eq: '2026-05-12T09:00:00.000001Z' } }],
    ['eq with a +02:00 offset', { startDate: { eq: '2026-05-12T11:00:00.000002+02:00' } }],
    ['eq with -00:00 and hhmm', { startDate: { eq: '2026-05-12T09:00:00.000001-0000' } }],
    ['eq with 7 fraction digits (half-to-even)', { startDate: { eq: '2026-05-12T09:00:00.0000015Z' } }],
    ['gt with 9 fraction digits', { startDate: { gt: '2026-05-12T09:00:00.000001499Z' } }],
    ['between inclusive, from = to', { startDate: { between: { from: '2026-05-12T09:00:00.000002Z', to: '2026-05-12T09:00:00.000002Z' } } }],
    ['between from > to', { startDate: { between: { from: '2026-05-13T00:00:00Z', to: '2026-05-12T00:00:00Z' } } }],
    ['before 1970', { startDate: { lt: '1970-01-01T00:00:00Z' } }],
    ['far bounds', { startDate: { gte: '0001-01-01T00:00:00Z', lte: '9999-12-31T23:59:59.999999Z' } }],
    ['endDate ne on a running run (null never matches ne)', { endDate: { ne: '2026-05-12T09:00:00.5Z' } }],
    ['not endDate eq (nulls included)', { not: { endDate: { eq: '2026-05-12T09:00:00.5Z' } } }],
    ['endDate isNull', { endDate: { isNull: true } }],
    ['lastUpdate lowercase t and z', { lastUpdate: { gte: '2026-05-12t09:00:00z' } }],
    ['space separator', { startDate: { lte: '2026-05-12 09:00:00+00:00' } }],
  ];
  for (const [name, filter] of filters) {
    it(`${name}: same answer, no error`, async () => {
      const { postgresql, opensearch } = await pair.send(LIST, { filter });
      expect(codes(postgresql)).toEqual([]);
      expect(summary(opensearch)).toBe(summary(postgresql));
    });
  }

  const refused: [string, Record<string, unknown>][] = [
    ['a DateTime without offset', { filter: { startDate: { eq: '2026-05-12T09:00:00' } } }],
    ['a DateTime 9999-12-31T23:59:59.9999995Z (rounds beyond the range)', { filter: { startDate: { eq: '9999-12-31T23:59:59.9999995Z' } } }],
    ['a DateTime with offset +24:00', { filter: { startDate: { eq: '2026-05-12T09:00:00+24:00' } } }],
    ['limit 1001', { limit: 1001 }],
    ['limit -1', { limit: -1 }],
    ['offset -1', { offset: -1 }],
    ['an empty cursor', { after: '' }],
    ['a cursor that is not base64url', { after: 'a+b/' }],
    ['a cursor of another order', { after: 'WyJ3aTEiLCJpbnN0YW5jZXMiLFsiaWQ6QVNDIl0sWyJkLTEiXV0', orderBy: { startDate: 'DESC' } }],
  ];
  for (const [name, variables] of refused) {
    it(`${name}: BAD_USER_INPUT on both`, async () => {
      const { postgresql, opensearch } = await pair.send(LIST, variables);
      expect({ postgresql: codes(postgresql), opensearch: codes(opensearch) }).toEqual({ postgresql: ['BAD_USER_INPUT'], opensearch: ['BAD_USER_INPUT'] });
    });
  }

  it('a task cursor passed to getWorkflowInstances, and the reverse: BAD_USER_INPUT', async () => {
    const tasks = await pair.send(TASKS, {});
    const cursor = ((tasks.postgresql.data?.['getTaskExecutions'] ?? []) as { cursor: string }[])[0]!.cursor;
    const { postgresql, opensearch } = await pair.send(LIST, { after: cursor });
    expect({ postgresql: codes(postgresql), opensearch: codes(opensearch) }).toEqual({ postgresql: ['BAD_USER_INPUT'], opensearch: ['BAD_USER_INPUT'] });
  });

  /** Both readers behind apps with the default budget (the pair's apps have the cost out of the way). */
  async function withDefaultBudget(run: (send: BackendPair['send']) => Promise<void>): Promise<void> {
    const postgresql = side(pair.postgresql.reader, 'postgresql', defaultCoreConfig('production'));
    const opensearch = side(pair.opensearch.reader, 'opensearch', defaultCoreConfig('production'));
    try {
      await run(async (query, variables) => {
        const [p, o] = await Promise.all([postgresql.client.send(query, variables), opensearch.client.send(query, variables)]);
        return { postgresql: p, opensearch: o };
      });
    } finally {
      await postgresql.app.dispose();
      await opensearch.app.dispose();
    }
  }

  it('offsets at the bounds: the window edges and the deepest the cost allows answer the same; 2147483647 is BAD_USER_INPUT on both', async () => {
    await withDefaultBudget(async (send) => {
      // limit 1000 + 189,000 / 10 skipped + a statement (25 on PostgreSQL, 60 on OpenSearch) fits the default 20,000.
      for (const [limit, offset] of [[1000, 189_000], [1000, 9_999], [1, 10_000], [0, 0], [1000, 3], [0, 2_147_483_647]]) {
        const { postgresql, opensearch } = await send(LIST, { limit, offset });
        expect(codes(postgresql)).toEqual([]);
        expect(summary(opensearch)).toBe(summary(postgresql));
      }
      const { postgresql, opensearch } = await send(LIST, { limit: 1000, offset: 2_147_483_647 });
      expect({ postgresql: codes(postgresql), opensearch: codes(opensearch) }).toEqual({ postgresql: ['BAD_USER_INPUT'], opensearch: ['BAD_USER_INPUT'] });
      // The same rows; the statement at each backend's own price.
      expect(postgresql.errors[0]!.message).toMatch(/^Query cost 214749390 exceeds the budget of 20000 rows .*Largest: getWorkflowInstances \(214749390, of which 25 its statement and filter\)/);
      expect(opensearch.errors[0]!.message).toMatch(/^Query cost 214749425 exceeds the budget of 20000 rows .*Largest: getWorkflowInstances \(214749425, of which 60 its statement and filter\)/);
    });
  });

  it('the cost limit is BAD_USER_INPUT naming the budget', async () => {
    await withDefaultBudget(async (send) => {
      const query = `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: getWorkflowInstances(limit: 1000) { id taskExecutions { id } }`).join(' ')} }`;
      const { postgresql, opensearch } = await send(query);
      expect({ postgresql: codes(postgresql), opensearch: codes(opensearch) }).toEqual({ postgresql: ['BAD_USER_INPUT'], opensearch: ['BAD_USER_INPUT'] });
      expect(postgresql.errors[0]!.message).toMatch(/20000/);
    });
  });
});
