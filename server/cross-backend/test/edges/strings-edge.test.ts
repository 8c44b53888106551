// Same answers on both backends: string filters with unusual values on both backends — empty strings (a stored "" namespace), very long
// operands, and sorting/cursors over "". (Short LIKE patterns whose Lucene automaton explodes moved to
// cross-backend.test.ts, "wide filters and short explosive like patterns".)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bothAvailable, codes, loadBackendPair, type BackendPair, summary, taskCompleted, taskStarted, workflowStarted } from './backend-pair.js';

const available = await bothAvailable();

const LIST = `query ($filter: WorkflowInstanceFilterInput, $orderBy: WorkflowInstanceOrderByInput, $after: String) {
  getWorkflowInstances(filter: $filter, orderBy: $orderBy, after: $after) { id namespace cursor } }`;

describe.skipIf(!available)('string filters with unusual values', () => {
  let pair: BackendPair;
  beforeAll(async () => {
    pair = await loadBackendPair('strings', [
      workflowStarted('inst-empty', '2026-05-12T09:00:00.000001Z', { workflowNamespace: '', workflowName: 'abcXdefghijklmnopqrstuvw' }),
      workflowStarted('inst-null', '2026-05-12T09:00:01.000001Z', { workflowNamespace: null, workflowName: 'aXbcdefghijklmnopqrstuvwxyz' }),
      workflowStarted('inst-astral', '2026-05-12T09:00:02.000001Z', { workflowNamespace: '\u{1F600}', workflowName: 'a\u{1F600}' }),
      workflowStarted('inst-bmp', '2026-05-12T09:00:03.000001Z', { workflowNamespace: '\uFFFD', workflowName: 'a\uFFFD' }),
      workflowStarted('inst-upper', '2026-05-12T09:00:04.000001Z', { workflowNamespace: 'A%_\\', workflowName: 'ABC' }),
      taskStarted('inst-empty', 'do/0/t', '2026-05-12T09:00:05.000001Z'),
      taskCompleted('inst-empty', 'do/0/t', '2026-05-12T09:00:06.000001Z'),
    ]);
  }, 180_000);
  afterAll(async () => {
    await pair?.close();
  });

  const filters: [string, Record<string, unknown>][] = [
    ['namespace eq ""', { namespace: { eq: '' } }],
    ['namespace ne ""', { namespace: { ne: '' } }],
    ['namespace startsWith ""', { namespace: { startsWith: '' } }],
    ['namespace endsWith ""', { namespace: { endsWith: '' } }],
    ['namespace contains ""', { namespace: { contains: '' } }],
    ['namespace like ""', { namespace: { like: '' } }],
    ['namespace like "*"', { namespace: { like: '*' } }],
    ['namespace like "?"', { namespace: { like: '?' } }],
    ['namespace in [""]', { namespace: { in: [''] } }],
    ['namespace isNull', { namespace: { isNull: true } }],
    ['not namespace eq ""', { not: { namespace: { eq: '' } } }],
    ['namespace like with % _ \\ literal', { namespace: { like: 'A%_\\' } }],
    ['namespace like "a*" is case-sensitive', { namespace: { like: 'a*' } }],
    ['name eq 40,000 characters', { name: { eq: 'x'.repeat(40_000) } }],
    ['name in two 40,000-character values', { name: { in: ['x'.repeat(40_000), 'y'.repeat(40_000)] } }],
    ['name eq 20,000 astral characters', { name: { eq: '\u{1F600}'.repeat(20_000) } }],
    ['name ne 40,000 characters', { name: { ne: 'x'.repeat(40_000) } }],
    ['name startsWith 40,000 characters', { name: { startsWith: 'x'.repeat(40_000) } }],
    ['name contains 300 characters', { name: { contains: 'x'.repeat(300) } }],
    ['name like of 40,000 characters with a ?', { name: { like: `${'x'.repeat(40_000)}?` } }],
    ['name like "a?" with an astral character', { name: { like: 'a?' } }],
  ];
  for (const [name, filter] of filters) {
    it(`${name}: same answer`, async () => {
      const { postgresql, opensearch } = await pair.send(LIST, { filter, orderBy: { namespace: 'ASC' } });
      expect(codes(postgresql)).toEqual([]);
      expect(summary(opensearch)).toBe(summary(postgresql));
    });
  }

  for (const direction of ['ASC', 'DESC']) {
    it(`order by namespace ${direction} ("" and non-BMP vs U+FFFD) and every cursor continue the same`, async () => {
      const { postgresql, opensearch } = await pair.send(LIST, { orderBy: { namespace: direction } });
      expect(summary(opensearch)).toBe(summary(postgresql));
      const rows = (postgresql.data?.['getWorkflowInstances'] ?? []) as { cursor: string }[];
      for (const row of rows) {
        const next = await pair.send(LIST, { orderBy: { namespace: direction }, after: row.cursor });
        expect(summary(next.opensearch)).toBe(summary(next.postgresql));
      }
    });
  }
});
