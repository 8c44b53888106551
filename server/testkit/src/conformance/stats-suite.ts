// The statistics conformance cases (workflowStats, topErrors, topFailingTasks), run by each backend's binding on its
// own store of STATS_RUNS: hand-computed answers where the rule is the point (nearest-rank percentiles of 1, 2, 3 and
// 100 durations, tie-breaks, nulls, range edges), the oracle (stats-oracle.ts) for every other shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createApp, defaultCoreConfig, formatTimestampForOutput, INSTANCE_STATUSES } from '@workflow-index/core';
import type { App, StatsBucketRecord, StatsGroupField, StatsInterval, WorkflowInstanceRecord } from '@workflow-index/core';
import { GraphQLClient } from './graphql-client.js';
import type { ConformanceBackend } from './conformance-suite.js';
import { STATS_RUNS } from './stats-runs-data.js';
import { statsRunEvents, statsRunRecords, statsTaskRecords } from '../stats-runs.js';
import { oracleTopErrors, oracleTopFailingTasks, oracleWorkflowStats } from '../stats-oracle.js';

export const STATS_QUERY = `query ($filter: WorkflowInstanceFilterInput, $interval: StatsInterval!, $from: String!, $to: String!, $groupBy: [String!]) {
  workflowStats(filter: $filter, interval: $interval, from: $from, to: $to, groupBy: $groupBy) {
    start name namespace version statusCounts { status count } durationMs { p50 p90 p99 max count } } }`;
export const TOP_ERRORS_QUERY = `query ($filter: WorkflowInstanceFilterInput, $limit: Int) { topErrors(filter: $filter, limit: $limit) { type title status count lastSeen } }`;
export const TOP_TASKS_QUERY = `query ($filter: TaskExecutionFilterInput, $limit: Int) { topFailingTasks(filter: $filter, limit: $limit) { taskName taskPosition workflowName count } }`;

const ms = (micros: number | null): number | null => (micros === null ? null : micros / 1000);

/** Buckets as the API serves them. */
export function servedBuckets(buckets: readonly StatsBucketRecord[]): unknown[] {
  return buckets.map((b) => ({
    start: formatTimestampForOutput(b.start),
    name: b.group.name ?? null,
    namespace: b.group.namespace ?? null,
    version: b.group.version ?? null,
    statusCounts: INSTANCE_STATUSES.map((status) => ({ status, count: b.statusCounts[status] })),
    durationMs: { p50: ms(b.durations.p50), p90: ms(b.durations.p90), p99: ms(b.durations.p99), max: ms(b.durations.max), count: b.durations.count },
  }));
}

interface OracleCase {
  readonly title: string;
  readonly filter?: Record<string, unknown>;
  readonly keep: (run: WorkflowInstanceRecord) => boolean;
  readonly interval: StatsInterval;
  readonly from: string;
  readonly to: string;
  readonly groupBy: readonly StatsGroupField[];
}

const DAY = { from: '2026-06-01T00:00:00Z', to: '2026-06-02T00:00:00Z' };
const ORACLE_CASES: readonly OracleCase[] = [
  { title: 'a day of hourly buckets', keep: () => true, interval: 'HOUR', ...DAY, groupBy: [] },
  { title: 'a day of hourly buckets by name', keep: () => true, interval: 'HOUR', ...DAY, groupBy: ['name'] },
  { title: 'by namespace and version (nulls last)', keep: () => true, interval: 'DAY', ...DAY, groupBy: ['version', 'namespace'] },
  { title: 'minutes of one hour by name, namespace, version', keep: () => true, interval: 'MINUTE', from: '2026-06-01T10:00:00Z', to: '2026-06-01T11:00:00Z', groupBy: ['name', 'namespace', 'version'] },
  { title: 'from inclusive, to exclusive', keep: () => true, interval: 'DAY', from: '2026-06-01T00:00:00Z', to: '2026-06-01T23:00:00Z', groupBy: ['name'] },
  { title: 'a range starting mid-interval with an offset', keep: () => true, interval: 'HOUR', from: '2026-06-01T12:30:00+02:00', to: '2026-06-01T12:00:02.000001Z', groupBy: [] },
  {
    title: 'filters combined',
    filter: { namespace: { in: ['ns.b', 'ns.c'] }, status: { ne: 'CANCELLED' }, not: { name: { eq: 'errs' } } },
    keep: (r) => (r.namespace === 'ns.b' || r.namespace === 'ns.c') && r.status !== 'CANCELLED' && r.name !== 'errs',
    interval: 'HOUR', ...DAY, groupBy: ['name'],
  },
  { title: 'a filter on a missing field', filter: { namespace: { isNull: true } }, keep: (r) => r.namespace === null, interval: 'DAY', ...DAY, groupBy: ['version'] },
];

/** Declares the statistics cases for one backend; the store is loaded once. */
export function runStatsConformance(backend: ConformanceBackend): void {
  describe(`statistics conformance (${backend.name})`, () => {
    const client = new GraphQLClient(backend.recordQuery, 2);
    let app: App | null = null;
    let teardown: (() => Promise<void>) | null = null;
    const records = statsRunRecords(STATS_RUNS);

    beforeAll(async () => {
      const store = await backend.setup(statsRunEvents(STATS_RUNS));
      teardown = () => store.teardown();
      app = createApp({ config: defaultCoreConfig('production'), reader: store.reader, logger: pino({ level: 'silent' }), backend: backend.name });
      client.attach(app);
    });
    afterAll(async () => {
      client.attach(null);
      try {
        await app?.dispose();
      } finally {
        await teardown?.();
      }
    });

    const stats = async (variables: Record<string, unknown>): Promise<unknown> => {
      const result = await client.send(STATS_QUERY, variables);
      expect(result.errors).toEqual([]);
      return result.data?.['workflowStats'];
    };

    it('percentiles are exact nearest rank over 1, 2, 3 and 100 durations (ms, µs fractions)', async () => {
      const buckets = (await stats({ interval: 'HOUR', from: '2026-06-01T10:00:00Z', to: '2026-06-01T11:00:00Z', groupBy: ['name'] })) as { name: string; durationMs: unknown }[];
      expect(buckets.map((b) => [b.name, b.durationMs])).toEqual([
        ['hundred', { p50: 50.007, p90: 90.007, p99: 99.007, max: 100.007, count: 100 }],
        ['one', { p50: 1.5, p90: 1.5, p99: 1.5, max: 1.5, count: 1 }],
        ['three', { p50: 2, p90: 3, p99: 3, max: 3, count: 3 }],
        ['two', { p50: 1, p90: 3, p99: 3, max: 3, count: 2 }],
      ]);
    });

    it('runs without an endDate are counted by status but have no duration (null percentiles, count 0)', async () => {
      const buckets = await stats({ filter: { name: 'open' }, interval: 'DAY', ...DAY });
      expect(buckets).toEqual([
        {
          start: '2026-06-01T00:00:00Z', name: null, namespace: null, version: null,
          statusCounts: INSTANCE_STATUSES.map((status) => ({ status, count: status === 'RUNNING' || status === 'SUSPENDED' ? 1 : 0 })),
          durationMs: { p50: null, p90: null, p99: null, max: null, count: 0 },
        },
      ]);
    });

    for (const c of ORACLE_CASES) {
      it(`workflowStats: ${c.title} (as the oracle)`, async () => {
        const expected = servedBuckets(oracleWorkflowStats(records.filter(c.keep), c));
        expect(expected.length).toBeGreaterThan(0);
        expect(await stats({ ...(c.filter === undefined ? {} : { filter: c.filter }), interval: c.interval, from: c.from, to: c.to, groupBy: c.groupBy })).toEqual(expected);
      });
    }

    it('topErrors: count descending, ties by type, title, status (nulls last); lastSeen the newest endDate', async () => {
      const result = await client.send(TOP_ERRORS_QUERY, {});
      expect(result.errors).toEqual([]);
      const rows = result.data?.['topErrors'] as { type: string | null; title: string | null; status: number | null; count: number }[];
      expect(rows.map((r) => [r.type, r.title, r.status, r.count])).toEqual([
        ['communication', 'Bad gateway', 502, 5],
        ['timeout', 'Timed out', 504, 5],
        ['communication', 'Bad gateway', null, 2],
        [null, 'Bad gateway', 502, 1],
        [null, null, null, 1],
      ]);
      expect(rows).toEqual(oracleTopErrors(records, 10).map((r) => ({ ...r, lastSeen: formatTimestampForOutput(r.lastSeen) })));
      const limited = await client.send(TOP_ERRORS_QUERY, { limit: 2, filter: { namespace: 'ns.c' } });
      expect(limited.data?.['topErrors']).toEqual(oracleTopErrors(records.filter((r) => r.namespace === 'ns.c'), 2).map((r) => ({ ...r, lastSeen: formatTimestampForOutput(r.lastSeen) })));
    });

    it('topFailingTasks: FAULTED executions by position, name and workflow; count descending, then workflowName', async () => {
      const result = await client.send(TOP_TASKS_QUERY, {});
      expect(result.data?.['topFailingTasks']).toEqual([
        { taskName: 'charge', taskPosition: 'do/0/charge', workflowName: 'hundred', count: 10 },
        { taskName: 'ship', taskPosition: 'do/1/ship', workflowName: 'errs', count: 2 },
        { taskName: 'charge', taskPosition: 'do/0/charge', workflowName: 'errs', count: 1 },
      ]);
      const tasks = statsTaskRecords(STATS_RUNS);
      expect((await client.send(TOP_TASKS_QUERY, { filter: { taskName: 'charge' }, limit: 1 })).data?.['topFailingTasks']).toEqual(
        oracleTopFailingTasks(tasks.filter((t) => t.taskName === 'charge'), 1),
      );
    });

    it('bad arguments are BAD_USER_INPUT saying what is allowed', async () => {
      const code = async (query: string, variables: Record<string, unknown>): Promise<[unknown, string]> => {
        const result = await client.send(query, variables);
        return [result.errors[0]?.extensions?.['code'], result.errors[0]?.message ?? ''];
      };
      expect(await code(STATS_QUERY, { interval: 'HOUR', ...DAY, groupBy: ['status'] })).toEqual(['BAD_USER_INPUT', expect.stringContaining('name, namespace, version') as string]);
      expect(await code(STATS_QUERY, { interval: 'HOUR', from: DAY.to, to: DAY.from })).toEqual(['BAD_USER_INPUT', expect.stringContaining('from before to') as string]);
      expect(await code(STATS_QUERY, { interval: 'HOUR', from: '2026-06-01T00:00:00', to: DAY.to })).toEqual(['BAD_USER_INPUT', expect.stringContaining('offset') as string]);
      expect(await code(STATS_QUERY, { interval: 'MINUTE', from: '2026-06-01T00:00:00Z', to: '2026-06-08T00:00:01Z' })).toEqual(['BAD_USER_INPUT', expect.stringContaining('at most 10000 buckets') as string]);
      expect(await code(TOP_ERRORS_QUERY, { limit: 0 })).toEqual(['BAD_USER_INPUT', expect.stringContaining('1 to 100') as string]);
      expect(await code(TOP_TASKS_QUERY, { limit: 101 })).toEqual(['BAD_USER_INPUT', expect.stringContaining('1 to 100') as string]);
    });
  });
}
