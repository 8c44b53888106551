// The lookup filters on OpenSearch where the conformance suite and the cross-backend comparison do not reach:
//  - the order-preserving number form behind gt/lt on JSON numbers (exact, any digits and exponents);
//  - JSON operators on documents the keyword fields cannot decide: a payload capped at MAX_LEAVES and a document
//    normalized before the paths existed (its new fields removed) answer exactly as their small, current twin;
//  - the bound of the `taskExecutions` instance filter (a clear BAD_USER_INPUT beyond it), and its negation;
//  - counts: exact values always, `exact` false above the limit.
import { Client } from '@opensearch-project/opensearch';
import fc from 'fast-check';
import { afterAll, describe, expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import type { InstanceFilter, JsonPredicate } from '@workflow-index/core';
import { MAX_LEAVES } from '../src/json-leaves.js';
import { sortableNumber } from '../src/json-paths.js';
import { createOpenSearchReader, type OpenSearchReader } from '../src/reader/opensearch-reader.js';
import { eventLines, loadNormalized } from './support/normalized-store.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

/** A decimal token's exact value as (integer, power of ten). */
function exactValue(token: string): { n: bigint; scale: number } {
  const [mantissa = '', exponent = '0'] = token.toLowerCase().split('e');
  const [int = '', fraction = ''] = mantissa.split('.');
  return { n: BigInt(`${int}${fraction}`), scale: fraction.length - Number(exponent) };
}
function compareExact(a: string, b: string): number {
  const x = exactValue(a);
  const y = exactValue(b);
  const scale = Math.max(x.scale, y.scale);
  const xs = x.n * 10n ** BigInt(scale - x.scale);
  const ys = y.n * 10n ** BigInt(scale - y.scale);
  return xs < ys ? -1 : xs > ys ? 1 : 0;
}
const compareText = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

const numberToken = fc
  .tuple(fc.boolean(), fc.stringMatching(/^(0|[1-9]\d{0,25})$/), fc.option(fc.stringMatching(/^\d{1,12}$/), { nil: undefined }), fc.option(fc.integer({ min: -40, max: 40 }), { nil: undefined }))
  .map(([negative, int, fraction, exponent]) => `${negative ? '-' : ''}${int}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : `e${exponent}`}`);

describe('sortableNumber: text order is the numbers\' order', () => {
  it('any two JSON numbers compare as their exact values', () => {
    fc.assert(fc.property(numberToken, numberToken, (a, b) => {
      expect(Math.sign(compareText(sortableNumber(a), sortableNumber(b)))).toBe(compareExact(a, b));
    }), { numRuns: 2000 });
  });
  it('equal values are one form (1000 = 1E3 = 1000.0; -0 = 0), neighbours differ', () => {
    expect(new Set(['1000', '1E3', '1000.0', '1e+3', '10000e-1']).size).toBe(5);
    expect(new Set(['1000', '1E3', '1000.0', '1e+3', '10000e-1'].map(sortableNumber))).toEqual(new Set([sortableNumber('1000')]));
    expect(sortableNumber('-0')).toBe(sortableNumber('0'));
    expect(sortableNumber('12345678901234567890')).not.toBe(sortableNumber('12345678901234567891'));
    expect(compareText(sortableNumber('-0.5'), sortableNumber('-0.51'))).toBeGreaterThan(0);
  });
});

const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';
const T0 = 1778577243;

const LONG = `${'ab😀'.repeat(300)}-end`;
const HUGE = 'h'.repeat(9000);
const PAYLOAD = { amount: 1500, label: 'hello', nothing: null, nested: { x: 2.5, list: [1, 'two'] }, when: '2026-06-01T00:00:00Z', long: `x${LONG}y` };
// The same keys after more leaves than the normalizer indexes: they are only in the payload text.
const CAPPED = { ...Object.fromEntries(Array.from({ length: MAX_LEAVES + 50 }, (_, k) => [`k${String(k).padStart(4, '0')}`, k])), ...PAYLOAD };

const runEvents = (id: string, input: unknown, tasks: number, faulted: boolean, endAfter: number | null = 50): Record<string, unknown>[] => [
  { instanceId: id, eventType: `${WF}started.v1`, timestamp: T0, startTime: T0, workflowName: 'ext', workflowNamespace: 'ns', status: 'RUNNING', input },
  ...Array.from({ length: tasks }, (_, k) => [
    { instanceId: id, eventType: `${TASK}started.v1`, timestamp: T0 + k, startTime: T0 + k, taskPosition: `do/${k}/t`, taskName: `t${k}`, status: 'RUNNING' },
    { instanceId: id, eventType: `${TASK}${faulted && k === 0 ? 'faulted' : 'completed'}.v1`, timestamp: T0 + k + 0.25, endTime: T0 + k + 0.25, taskPosition: `do/${k}/t`, taskName: `t${k}`, status: faulted && k === 0 ? 'FAULTED' : 'COMPLETED' },
  ]).flat(),
  ...(endAfter === null ? [] : [{ instanceId: id, eventType: `${WF}completed.v1`, timestamp: T0 + endAfter, endTime: T0 + endAfter, status: 'COMPLETED' }]),
];

const TWINS = ['ext-current', 'ext-capped', 'ext-legacy'] as const;
const EVENTS = [
  ...runEvents('ext-current', PAYLOAD, 2, false),
  ...runEvents('ext-capped', CAPPED, 2, false),
  ...runEvents('ext-legacy', PAYLOAD, 2, false),
  ...Array.from({ length: 8 }, (_, i) => runEvents(`ext-run-${i}`, { i }, 3, i % 2 === 0)).flat(),
  // durations repeating, and missing (still running), for the duration order across result windows
  ...Array.from({ length: 9 }, (_, i) => runEvents(`ext-dur-${i}`, null, 0, false, i % 3 === 0 ? null : 60 + (i % 4))).flat(),
];

describeOpenSearch('OpenSearch lookup filter edges', () => {
  let ns: TestNamespace;
  let reader: OpenSearchReader;
  let bounded: OpenSearchReader;
  let smallWindow: OpenSearchReader;

  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    await loadNormalized(ns.client, ns.prefix, eventLines(EVENTS));
    // A document normalized before this release: without the paths and numbers of the JSON operators.
    await ns.client.transport.request({
      method: 'POST',
      path: `/${ns.prefix}workflow-instances/_update/ext-legacy`,
      querystring: { refresh: 'true' },
      body: { script: { source: "ctx._source.remove('input_paths'); ctx._source.remove('input_numbers'); ctx._source.remove('input_paths_complete')" } },
    });
    reader = createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: ns.prefix });
    bounded = createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: ns.prefix, maxTaskFilterRuns: 3 });
    // A 4-row result window stands for OpenSearch's 10,000 (offsets beyond it are walked window by window).
    smallWindow = createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: ns.prefix, maxResultWindow: 4 });
  }, 180_000);

  afterAll(async () => {
    await reader?.close();
    await bounded?.close();
    await smallWindow?.close();
  });

  const ids = async (r: OpenSearchReader, filter: InstanceFilter): Promise<string[]> =>
    (await r.listInstances({ filter, orderBy: [{ field: 'id', direction: 'ASC' }], limit: 1000, offset: 0, payloads: false })).map((i) => i.id);

  const twinsMatching = (filter: InstanceFilter): Promise<string[]> =>
    ids(reader, { kind: 'and', nodes: [{ kind: 'string', field: 'id', predicate: { op: 'in', values: [...TWINS] } }, filter] });

  it('by hand: capped and legacy documents are checked on their payload text', async () => {
    const op = (path: string, predicate: JsonPredicate): InstanceFilter => ({ kind: 'jsonOp', field: 'input', path: path.split('.'), predicate });
    const all = [...TWINS].sort();
    expect(await twinsMatching(op('amount', { op: 'gt', value: '1E3' }))).toEqual(all);
    expect(await twinsMatching(op('nothing', { op: 'exists', value: true }))).toEqual(all);
    expect(await twinsMatching(op('nested.list.1', { op: 'contains', value: 'w' }))).toEqual(all);
    expect(await twinsMatching(op('when', { op: 'gte', value: '2026-06-01' }))).toEqual(all);
    expect(await twinsMatching({ kind: 'not', node: op('label', { op: 'ne', value: 'hello' }) })).toEqual(all);
    expect(await twinsMatching(op('amount', { op: 'lt', value: '1500' }))).toEqual([]);
    // operands the keywords cannot express: a contains text beyond the wildcard limit, ne/in values beyond the keyword limit
    expect(await twinsMatching(op('long', { op: 'contains', value: LONG }))).toEqual(all);
    expect(await twinsMatching(op('long', { op: 'contains', value: `${LONG}z` }))).toEqual([]);
    expect(await twinsMatching(op('label', { op: 'ne', value: HUGE }))).toEqual(all);
    expect(await twinsMatching(op('label', { op: 'in', values: [HUGE, 'hello'] }))).toEqual(all);
    expect(await twinsMatching(op('label', { op: 'in', values: [HUGE] }))).toEqual([]);
  });

  const KEYS = ['amount', 'label', 'nothing', 'nested', 'nested.x', 'nested.list', 'nested.list.0', 'nested.list.1', 'when', 'missing'];
  const VALUES = ['1500', '1500.0', '1e3', '2', '2.5', '-1', 'hello', 'hel', '', 'two', 'true', '2026-06-01', 'Z'];
  const predicate: fc.Arbitrary<JsonPredicate> = fc.oneof(
    fc.tuple(fc.constantFrom('ne', 'gt', 'gte', 'lt', 'lte', 'contains') as fc.Arbitrary<'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains'>, fc.constantFrom(...VALUES)).map(([op, value]) => ({ op, value })),
    fc.array(fc.constantFrom(...VALUES), { maxLength: 3 }).map((values) => ({ op: 'in' as const, values })),
    fc.boolean().map((value) => ({ op: 'exists' as const, value })),
  );

  it('any operator, negated or not: the capped and the legacy twin match exactly when the current one does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...KEYS), predicate, fc.boolean(), async (key, p, negate) => {
        const leaf: InstanceFilter = { kind: 'jsonOp', field: 'input', path: key.split('.'), predicate: p };
        const matched = await twinsMatching(negate ? { kind: 'not', node: leaf } : leaf);
        expect(matched.length === 0 || matched.length === TWINS.length, `${JSON.stringify({ key, p, negate })}: ${matched.join(',')}`).toBe(true);
      }),
      { numRuns: 150, seed: 11 },
    );
  }, 120_000);

  it('taskExecutions: runs with a matching task, and not: the others; on status alone from the task states, otherwise beyond the bound a clear BAD_USER_INPUT', async () => {
    const faultedTask: InstanceFilter = { kind: 'tasks', node: { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } } };
    const faulted = ['ext-run-0', 'ext-run-2', 'ext-run-4', 'ext-run-6'];
    expect(await ids(reader, faultedTask)).toEqual(faulted);
    const everyId = await ids(reader, null as unknown as InstanceFilter);
    expect(await ids(reader, { kind: 'not', node: faultedTask })).toEqual(everyId.filter((id) => !faulted.includes(id)));
    // On status (and name) alone it is one search of the runs' task states: no bound (4 runs > the bound of 3).
    expect(await ids(bounded, faultedTask)).toEqual(faulted);
    // Any other task filter takes two steps, bounded: 4 runs > the bound of 3.
    const anyPosition = { kind: 'string', field: 'taskPosition', predicate: { op: 'contains', value: '/' } } as const;
    const twoSteps: InstanceFilter = { kind: 'tasks', node: { kind: 'and', nodes: [faultedTask.node, anyPosition] } };
    expect(await ids(reader, twoSteps)).toEqual(faulted);
    const refused = await ids(bounded, twoSteps).then(() => null, (error: unknown) => error);
    // (the GraphQL layer serves the error as it is: code and message)
    expect((refused as { extensions?: Record<string, unknown> }).extensions?.['code']).toBe('BAD_USER_INPUT');
    expect((refused as Error).message).toContain('filter.taskExecutions matches task executions of more than 3 workflow instances');
    // within the bound it answers
    const narrow: InstanceFilter = { kind: 'tasks', node: { kind: 'and', nodes: [faultedTask.node, anyPosition, { kind: 'string', field: 'workflowInstanceId', predicate: { op: 'in', values: ['ext-run-0', 'ext-run-2'] } }] } };
    expect(await ids(bounded, narrow)).toEqual(['ext-run-0', 'ext-run-2']);
    // The bound holds for a filter's taskExecutions conditions together: two of 2 runs each pass 3.
    const onRuns = (runs: readonly string[]): InstanceFilter => ({
      kind: 'tasks',
      node: { kind: 'and', nodes: [faultedTask.node, anyPosition, { kind: 'string', field: 'workflowInstanceId', predicate: { op: 'in', values: runs } }] },
    });
    const together = await ids(bounded, { kind: 'or', nodes: [onRuns(['ext-run-0', 'ext-run-2']), onRuns(['ext-run-4', 'ext-run-6'])] }).then(() => null, (error: unknown) => error);
    expect((together as Error).message).toContain('filter.taskExecutions matches task executions of more than 3 workflow instances (its taskExecutions conditions together)');
    expect(await ids(bounded, { kind: 'or', nodes: [onRuns(['ext-run-0']), onRuns(['ext-run-4', 'ext-run-6'])] })).toEqual(['ext-run-0', 'ext-run-4', 'ext-run-6']);
  });

  it('orderBy duration beyond the result window (nulls last, repeated values): the same rows as one plain page', async () => {
    const page = (r: OpenSearchReader, direction: 'ASC' | 'DESC', offset: number, limit: number) =>
      r.listInstances({ filter: null, orderBy: [{ field: 'duration', direction }], limit, offset, payloads: false }).then((rows) => rows.map((i) => i.id));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<'ASC' | 'DESC'>('ASC', 'DESC'), fc.integer({ min: 0, max: 22 }), fc.integer({ min: 1, max: 9 }), async (direction, offset, limit) => {
        expect(await page(smallWindow, direction, offset, limit)).toEqual(await page(reader, direction, offset, limit));
      }),
      { numRuns: 60, seed: 12 },
    );
    // the running ones (no duration) last in both directions
    for (const direction of ['ASC', 'DESC'] as const) expect((await page(reader, direction, 0, 1000)).slice(-3)).toEqual(['ext-dur-0', 'ext-dur-3', 'ext-dur-6']);
  }, 120_000);

  it('counts: the exact value, exact while at most the limit match', async () => {
    const total = EVENTS.filter((e) => e['eventType'] === `${WF}started.v1`).length;
    const running = 3;
    expect(await reader.countInstances(null, { exactLimit: total })).toEqual({ value: total, exact: true });
    expect(await reader.countInstances(null, { exactLimit: total - 1 })).toEqual({ value: total, exact: false });
    const byStatus = await reader.countInstancesByStatus(null, { exactLimit: 5 });
    expect(byStatus).toEqual({
      RUNNING: { value: running, exact: true }, COMPLETED: { value: total - running, exact: false }, FAULTED: { value: 0, exact: true }, CANCELLED: { value: 0, exact: true }, SUSPENDED: { value: 0, exact: true },
    });
    expect(await reader.countTasks({ kind: 'duration', predicate: { op: 'gte', value: 250 } }, { exactLimit: 1000 })).toEqual({ value: 2 * 3 + 8 * 3, exact: true });
  });
});
