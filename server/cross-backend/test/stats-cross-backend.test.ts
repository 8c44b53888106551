// The statistics answered identically by PostgreSQL and OpenSearch, and as the plain TypeScript oracle answers them:
// fast-check generates run sets (names, namespaces and versions with nulls, every status, durations with ties, starts
// across minutes, hours and days), each set goes into both backends through their real ingestion paths, and
// workflowStats (every interval, every groupBy), topErrors and topFailingTasks are compared byte for byte; OpenSearch's
// workflowStats also with its durations ranked instead of collected (what requests over COLLECT_LIMIT finished runs do).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleTopErrors, oracleTopFailingTasks, oracleWorkflowStats, servedBuckets, STATS_QUERY, statsRunEvents, statsRunRecords, statsTaskRecords, TOP_ERRORS_QUERY, TOP_TASKS_QUERY } from '@workflow-index/testkit';
import type { StatsRunSpec } from '@workflow-index/testkit';
import { formatMicros, formatTimestampForOutput } from '@workflow-index/core';
import type { StatsGroupField, StatsInterval, WorkflowInstanceStatus } from '@workflow-index/core';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { createTestNamespace, eventLines, openSearchReachable, type TestNamespace } from '@workflow-index/opensearch/testing';
import { Client } from '@opensearch-project/opensearch';
import { createOpenSearchReader } from '@workflow-index/opensearch';
import { OPENSEARCH_URL } from '@workflow-index/opensearch/testing';
import { loadPair, side } from './support/backend-pair.js';

const available = (await openSearchReachable()) && (await postgresReachable());
const BASE = 1_780_272_000_000_000n; // 2026-06-01T00:00:00Z in µs

const run = (i: number): fc.Arbitrary<StatsRunSpec> =>
  fc.record({
    name: fc.constantFrom('a', 'b', 'Z', 'é'),
    namespace: fc.option(fc.constantFrom('ns.x', 'ns.y'), { nil: undefined }),
    version: fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
    status: fc.constantFrom<WorkflowInstanceStatus>('RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'),
    offset: fc.integer({ min: 0, max: 2 * 86_400_000_000 }), // two days of starts
    duration: fc.oneof(fc.constantFrom(1000, 2000), fc.integer({ min: 0, max: 10_000_000 })),
    error: fc.option(fc.record({ type: fc.option(fc.constantFrom('t1', 't2'), { nil: undefined }), title: fc.option(fc.constant('T'), { nil: undefined }), status: fc.option(fc.constantFrom(500, 502), { nil: undefined }) }), { nil: undefined }),
    faults: fc.subarray(['do/0/a', 'do/1/b']),
  }).map((r): StatsRunSpec => ({
    id: `px-${String(i).padStart(3, '0')}`,
    name: r.name,
    ...(r.namespace === undefined ? {} : { namespace: r.namespace }),
    ...(r.version === undefined ? {} : { version: r.version }),
    status: r.status,
    start: formatMicros(BASE + BigInt(r.offset)),
    ...(r.status === 'RUNNING' || r.status === 'SUSPENDED' ? {} : { durationMicros: r.duration }),
    ...(r.status === 'FAULTED' && r.error !== undefined ? { error: r.error } : {}),
    tasks: ['do/0/a', 'do/1/b'].map((position) => ({ position, faulted: r.faults.includes(position) })),
  }));

const runSet = fc.integer({ min: 1, max: 40 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => run(i))));

describe.skipIf(!available)('statistics: PostgreSQL = OpenSearch = oracle on generated runs', () => {
  let ns: TestNamespace;
  beforeAll(() => {
    ns = createTestNamespace();
  });
  afterAll(async () => {
    await ns.drop();
  });

  it('property: workflowStats (every interval and groupBy), topErrors and topFailingTasks', async () => {
    let set = 0;
    await fc.assert(
      fc.asyncProperty(runSet, async (runs) => {
        const name = `p${set++}`;
        const pair = await loadPair(ns, name, eventLines(statsRunEvents(runs)), 'wi_stats_prop');
        // OpenSearch ranking every request's durations (as beyond COLLECT_LIMIT finished runs) from a 2-hit window.
        const ranked = side(createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: `${ns.prefix}${name}-`, statsCollectLimit: 0, maxResultWindow: 2 }), 'opensearch');
        try {
          const records = statsRunRecords(runs);
          const range = { from: '2026-06-01T00:00:00Z', to: '2026-06-03T00:00:00Z' };
          const groupings: StatsGroupField[][] = [[], ['name'], ['namespace', 'version'], ['name', 'namespace', 'version']];
          for (const interval of ['MINUTE', 'HOUR', 'DAY'] as StatsInterval[]) {
            for (const groupBy of groupings) {
              const variables = { interval, ...range, groupBy };
              const expected = { data: { workflowStats: servedBuckets(oracleWorkflowStats(records, { interval, ...range, groupBy })) } };
              expect(await pair.postgresql.client.send(STATS_QUERY, variables)).toMatchObject(expected);
              expect(await pair.opensearch.client.send(STATS_QUERY, variables)).toMatchObject(expected);
              expect(await ranked.client.send(STATS_QUERY, variables)).toMatchObject(expected);
            }
          }
          const errors = { data: { topErrors: oracleTopErrors(records, 100).map((r) => ({ ...r, lastSeen: formatTimestampForOutput(r.lastSeen) })) } };
          const tasks = { data: { topFailingTasks: oracleTopFailingTasks(statsTaskRecords(runs).filter((t) => records.some((r) => r.id === t.workflowInstanceId)), 100) } };
          for (const side of [pair.postgresql, pair.opensearch]) {
            expect(await side.client.send(TOP_ERRORS_QUERY, { limit: 100 })).toMatchObject(errors);
            expect(await side.client.send(TOP_TASKS_QUERY, { limit: 100 })).toMatchObject(tasks);
          }
        } finally {
          await ranked.app.dispose();
          await ranked.reader.close();
          await pair.close();
        }
      }),
      { numRuns: 8 },
    );
  }, 600_000);
});
