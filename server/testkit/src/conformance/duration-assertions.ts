// durationMs (endDate − startDate, milliseconds with microsecond fractions, null while either is missing) on
// instances and task executions, the duration filter (bounds exact to the microsecond) and orderBy duration (nulls
// last, id tie-breaker, keyset cursors).
import { describe, expect, it } from 'vitest';
import type { GraphQLClient } from './graphql-client.js';
import { ALL_INSTANCES, ALL_TASKS, ID, PAGING_IDS } from './expected-data.js';
import { compareCodePoints } from './expected-order.js';
import { rowsOf } from './served.js';
import { microsOf } from './timestamps.js';

interface Timed {
  readonly id: string;
  readonly startDate: string | null;
  readonly endDate: string | null;
}

const micros = (row: Timed): bigint | null => (row.startDate === null || row.endDate === null ? null : microsOf(row.endDate) - microsOf(row.startDate));
const ms = (row: Timed): number | null => {
  const d = micros(row);
  return d === null ? null : Number(d) / 1000;
};

/** Ids ordered by duration (nulls last in both directions), then id. */
function byDuration(rows: readonly Timed[], direction: 'ASC' | 'DESC'): string[] {
  return [...rows]
    .sort((a, b) => {
      const x = micros(a);
      const y = micros(b);
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * (direction === 'ASC' ? 1 : -1);
      }
      return compareCodePoints(a.id, b.id);
    })
    .map((r) => r.id);
}

const idsWhere = (rows: readonly Timed[], keep: (d: bigint | null) => boolean): string[] =>
  rows
    .filter((r) => keep(micros(r)))
    .map((r) => r.id)
    .sort(compareCodePoints);

export function describeDurations(client: GraphQLClient): void {
  it('durationMs of every instance and task execution: exact to the microsecond, null while running', async () => {
    const data = await client.data('{ getWorkflowInstances(limit: 1000) { id durationMs } getTaskExecutions(limit: 1000) { id durationMs } }');
    const instances = Object.fromEntries(rowsOf(data, 'getWorkflowInstances').map((r) => [r['id'], r['durationMs']]));
    expect(instances).toEqual(Object.fromEntries(ALL_INSTANCES.map((i) => [i.id, ms(i)])));
    const tasks = Object.fromEntries(rowsOf(data, 'getTaskExecutions').map((r) => [r['id'], r['durationMs']]));
    expect(tasks).toEqual(Object.fromEntries(ALL_TASKS.map((t) => [t.id, ms(t)])));
  });

  it('by hand: order-intake ran 3.572 ms, manual-review 47510.334 ms, the waiting run has none; a loop iteration 12.87 ms', async () => {
    const data = await client.data(`{
      a: getWorkflowInstance(id: "${ID.orderIntake}") { durationMs }
      b: getWorkflowInstance(id: "${ID.manualReview}") { durationMs }
      c: getWorkflowInstance(id: "${ID.waiting}") { durationMs taskExecutions { durationMs } }
      d: getTaskExecution(id: "${ID.orderFulfilment}:do/0/pickItems/do/0/pickItem@1778577255133240") { durationMs }
    }`);
    expect(data).toEqual({ a: { durationMs: 3.572 }, b: { durationMs: 47510.334 }, c: { durationMs: null, taskExecutions: [{ durationMs: null }, { durationMs: null }] }, d: { durationMs: 12.87 } });
  });

  describe('duration filter (milliseconds)', () => {
    const cases: readonly (readonly [filter: string, keep: (d: bigint | null) => boolean])[] = [
      ['{gt: 1000}', (d) => d !== null && d > 1_000_000n],
      ['{gte: 3.572}', (d) => d !== null && d >= 3572n],
      ['{gt: 3.572}', (d) => d !== null && d > 3572n],
      ['{lte: 3.572}', (d) => d !== null && d <= 3572n],
      ['{lt: 3.572}', (d) => d !== null && d < 3572n],
      // between two microseconds: 3.5715 ms is 3571.5 µs
      ['{gt: 3.5715}', (d) => d !== null && d >= 3572n],
      ['{lt: 3.5725}', (d) => d !== null && d <= 3572n],
      ['{gte: 300, lt: 500}', (d) => d !== null && d >= 300_000n && d < 500_000n],
      ['{isNull: true}', (d) => d === null],
      ['{isNull: false}', (d) => d !== null],
    ];
    it.each(cases)('instances: duration: %s', async (filter, keep) => {
      const data = await client.data(`{ getWorkflowInstances(limit: 1000, orderBy: {id: ASC}, filter: {duration: ${filter}}) { id } }`);
      expect(rowsOf(data, 'getWorkflowInstances').map((r) => r['id'])).toEqual(idsWhere(ALL_INSTANCES, keep));
    });
    it.each(cases)('task executions: duration: %s', async (filter, keep) => {
      const data = await client.data(`{ getTaskExecutions(limit: 1000, orderBy: {id: ASC}, filter: {duration: ${filter}}) { id } }`);
      expect(rowsOf(data, 'getTaskExecutions').map((r) => r['id'])).toEqual(idsWhere(ALL_TASKS, keep));
    });
    it('by hand: runs longer than a second, and not (missing durations included)', async () => {
      const data = await client.data(`{
        slow: getWorkflowInstances(orderBy: {id: ASC}, filter: {duration: {gt: 1000}}) { id }
        notSlow: getWorkflowInstances(limit: 1000, orderBy: {id: ASC}, filter: {not: {duration: {gt: 1000}}}) { id }
      }`);
      const slow = [ID.paymentCapture, ID.ledgerSync, ID.manualReview, ID.timeForms].sort(compareCodePoints);
      expect(rowsOf(data, 'slow').map((r) => r['id'])).toEqual(slow);
      expect(rowsOf(data, 'notSlow')).toHaveLength(ALL_INSTANCES.length - 4);
      expect(rowsOf(data, 'notSlow').map((r) => r['id'])).toEqual(expect.arrayContaining([ID.waiting, ID.suspended, ...PAGING_IDS]));
    });
    it('a bound beyond 9e12 ms is BAD_USER_INPUT naming the range', async () => {
      const errors = await client.errors('{ getWorkflowInstances(filter: {duration: {gt: 1e13}}) { id } }');
      expect(errors[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
      expect(errors[0]?.message).toContain('filter.duration.gt must be a number of milliseconds between');
    });
  });

  describe('orderBy duration', () => {
    it.each(['ASC', 'DESC'] as const)('instances {duration: %s}: nulls last, then id', async (direction) => {
      const data = await client.data(`{ getWorkflowInstances(limit: 1000, orderBy: {duration: ${direction}}) { id } }`);
      expect(rowsOf(data, 'getWorkflowInstances').map((r) => r['id'])).toEqual(byDuration(ALL_INSTANCES, direction));
    });
    it.each(['ASC', 'DESC'] as const)('task executions {duration: %s}: nulls last, then id', async (direction) => {
      const data = await client.data(`{ getTaskExecutions(limit: 1000, orderBy: {duration: ${direction}}) { id } }`);
      expect(rowsOf(data, 'getTaskExecutions').map((r) => r['id'])).toEqual(byDuration(ALL_TASKS, direction));
    });
    it('the slowest runs first, by hand', async () => {
      const data = await client.data('{ getWorkflowInstances(limit: 3, orderBy: {duration: DESC}) { id durationMs } }');
      expect(rowsOf(data, 'getWorkflowInstances')).toEqual([
        { id: ID.manualReview, durationMs: 47510.334 },
        { id: ID.paymentCapture, durationMs: 5006.43 },
        { id: ID.ledgerSync, durationMs: 2081.614 },
      ]);
    });
    it.each([
      ['getWorkflowInstances', 'ASC'],
      ['getWorkflowInstances', 'DESC'],
      ['getTaskExecutions', 'ASC'],
      ['getTaskExecutions', 'DESC'],
    ] as const)('%s {duration: %s} walked with after: cursor and with offset pages equals the whole list', async (query, direction) => {
      const whole = byDuration(query === 'getWorkflowInstances' ? ALL_INSTANCES : ALL_TASKS, direction);
      const walked: string[] = [];
      let after: string | null = null;
      for (let guard = 0; guard < 100; guard++) {
        const data = await client.data(`query ($after: String) { ${query}(limit: 9, orderBy: {duration: ${direction}}, after: $after) { id cursor } }`, { after });
        const rows = rowsOf(data, query);
        walked.push(...rows.map((r) => String(r['id'])));
        if (rows.length < 9) break;
        after = String(rows.at(-1)?.['cursor']);
      }
      expect(walked).toEqual(whole);
      const offsetPage = await client.data(`{ ${query}(limit: 9, offset: 9, orderBy: {duration: ${direction}}) { id } }`);
      expect(rowsOf(offsetPage, query).map((r) => r['id'])).toEqual(whole.slice(9, 18));
    });
    it('a cursor with a duration that is not whole microseconds is BAD_USER_INPUT', async () => {
      const forged = Buffer.from(JSON.stringify(['wi1', 'instances', ['duration:DESC', 'id:ASC'], ['1.5', 'x']]), 'utf8').toString('base64url');
      const errors = await client.errors(`{ getWorkflowInstances(orderBy: {duration: DESC}, after: "${forged}") { id } }`);
      expect(errors[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
      expect(errors[0]?.message).toContain('the duration value is not a number of microseconds');
    });
  });
}
