// Same answers on both backends: filters nested to GRAPHQL_MAX_FILTER_DEPTH (32) with every kind of leaf at the bottom, and one level deeper
// (BAD_USER_INPUT), on both backends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothAvailable, codes, loadBackendPair, type BackendPair, summary, taskCompleted, taskStarted, workflowStarted } from './backend-pair.js';

const available = await bothAvailable();

const LIST = `query ($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(filter: $filter, orderBy: {id: ASC}) { id } }`;
const COUNT = `query ($filter: WorkflowInstanceFilterInput) { countWorkflowInstances(filter: $filter) { value exact } }`;

function nest(depth: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let f = leaf;
  for (let i = 0; i < depth; i++) f = i % 3 === 0 ? { not: f } : i % 3 === 1 ? { or: [f, { id: 'none' }] } : { and: [f, { not: { id: 'none' } }] };
  return f;
}

describe.skipIf(!available)('deep filters', () => {
  let pair: BackendPair;
  beforeAll(async () => {
    pair = await loadBackendPair('deep', [
      workflowStarted('dp-1', '2026-05-12T09:00:00.000001Z', { input: { a: [1, { b: 'x' }] } }),
      workflowStarted('dp-2', '2026-05-12T09:00:01.000001Z', { input: { a: 'y' } }),
      taskStarted('dp-1', 'do/0/t', '2026-05-12T09:00:02.000001Z'),
      taskCompleted('dp-1', 'do/0/t', '2026-05-12T09:00:03.000001Z'),
    ]);
  }, 180_000);
  afterAll(async () => {
    await pair?.close();
  });

  const leaves: Record<string, unknown>[] = [
    { name: { ne: 'x' } },
    { input: { eq: [{ key: 'a.1.b', value: 'x' }] } },
    { input: { ne: [{ key: 'a', value: 'y' }], exists: [{ key: 'a.0', value: true }] } },
    { endDate: { isNull: true } },
    { taskExecutions: { status: 'COMPLETED' } },
    { name: { like: '*e?i*' } },
  ];
  for (const [i, leaf] of leaves.entries()) {
    it(`depth 32 over leaf ${i}: same list and count`, async () => {
      for (const query of [LIST, COUNT]) {
        const { postgresql, opensearch } = await pair.send(query, { filter: nest(i === 4 ? 31 : 32, leaf) });
        expect(codes(postgresql)).toEqual([]);
        expect(summary(opensearch)).toBe(summary(postgresql));
      }
    });
  }

  it('depth 33: BAD_USER_INPUT on both', async () => {
    const { postgresql, opensearch } = await pair.send(LIST, { filter: nest(33, { id: 'dp-1' }) });
    expect({ postgresql: codes(postgresql), opensearch: codes(opensearch) }).toEqual({ postgresql: ['BAD_USER_INPUT'], opensearch: ['BAD_USER_INPUT'] });
  });
});
