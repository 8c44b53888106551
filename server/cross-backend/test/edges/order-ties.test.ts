// Same answers on both backends: orderings with nulls and ties, the id tie-breaker in both directions, and keyset walks page by page (limit
// 1, and limit 2 with offset 1 after a cursor) in every order, on both backends; tasks filtered on their run's fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothAvailable, loadBackendPair, type BackendPair, summary, taskCompleted, taskStarted, workflowCompleted, workflowStarted } from './backend-pair.js';

const available = await bothAvailable();

const LIST = `query ($orderBy: WorkflowInstanceOrderByInput, $after: String, $limit: Int, $offset: Int) {
  getWorkflowInstances(orderBy: $orderBy, after: $after, limit: $limit, offset: $offset) { id cursor } }`;
const TASKS = `query ($filter: TaskExecutionFilterInput, $orderBy: TaskExecutionOrderByInput, $after: String, $limit: Int, $offset: Int) {
  getTaskExecutions(filter: $filter, orderBy: $orderBy, after: $after, limit: $limit, offset: $offset) { id cursor } }`;

const T = '2026-05-12T09:00:00.000001Z';
const T2 = '2026-05-12T09:00:00.000002Z';

describe.skipIf(!available)('orderings with nulls and ties', () => {
  let pair: BackendPair;
  beforeAll(async () => {
    const lines: string[] = [];
    // Same start for several runs (ties), some ended (endDate) some not (null), ids that sort differently as bytes
    // and as UTF-16 ("\u{1F600}" vs "\uFFFD"), versions null / "" / text.
    const ids = ['r-a', 'r-B', 'r-\u{1F600}', 'r-\uFFFD', 'r-0', 'r-z'];
    ids.forEach((id, i) => {
      lines.push(workflowStarted(id, i % 2 === 0 ? T : T2, { workflowVersion: i % 3 === 0 ? null : i % 3 === 1 ? '' : 'v1', workflowName: i < 3 ? 'same' : 'other' }));
      if (i % 2 === 1) lines.push(workflowCompleted(id, '2026-05-12T09:00:05.000001Z'));
      lines.push(taskStarted(id, 'do/0/t', T2));
      if (i % 3 !== 0) lines.push(taskCompleted(id, 'do/0/t', '2026-05-12T09:00:03.000001Z'));
    });
    pair = await loadBackendPair('ties', lines);
  }, 180_000);
  afterAll(async () => {
    await pair?.close();
  });

  const instanceOrders = [{}, { id: 'DESC' }, { startDate: 'ASC' }, { endDate: 'DESC' }, { endDate: 'ASC' }, { version: 'ASC' }, { version: 'DESC', id: 'DESC' },
    { name: 'DESC', endDate: 'ASC' }, { status: 'ASC', startDate: 'DESC' }, { lastUpdate: 'ASC' }, { namespace: 'DESC' }];
  for (const orderBy of instanceOrders) {
    it(`instances ${JSON.stringify(orderBy)}: first page and every cursor continuation are the same`, async () => {
      const first = await pair.send(LIST, { orderBy, limit: 100 });
      expect(summary(first.opensearch)).toBe(summary(first.postgresql));
      for (const row of (first.postgresql.data?.['getWorkflowInstances'] ?? []) as { cursor: string }[]) {
        for (const page of [{ limit: 1 }, { limit: 2, offset: 1 }]) {
          const next = await pair.send(LIST, { orderBy, after: row.cursor, ...page });
          expect(summary(next.opensearch)).toBe(summary(next.postgresql));
        }
      }
    });
  }

  const taskOrders = [{}, { id: 'DESC' }, { endDate: 'ASC' }, { endDate: 'DESC', id: 'DESC' }, { status: 'DESC' }, { taskName: 'ASC', startDate: 'ASC' }, { duration: 'DESC' }];
  const taskFilters = [undefined, { workflowName: 'same' }, { not: { workflowVersion: { isNull: true } } }, { workflowVersion: { eq: '' } }, { workflowVersion: { ne: 'v1' } }];
  for (const orderBy of taskOrders) {
    for (const filter of taskFilters) {
      it(`tasks ${JSON.stringify(orderBy)} ${JSON.stringify(filter)}: same pages`, async () => {
        const first = await pair.send(TASKS, { orderBy, filter, limit: 100 });
        expect(summary(first.opensearch)).toBe(summary(first.postgresql));
        for (const row of (first.postgresql.data?.['getTaskExecutions'] ?? []) as { cursor: string }[]) {
          const next = await pair.send(TASKS, { orderBy, filter, after: row.cursor, limit: 2, offset: 1 });
          expect(summary(next.opensearch)).toBe(summary(next.postgresql));
        }
      });
    }
  }
});
