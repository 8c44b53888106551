// workflowStats on a table with realistic statistics (the bench dataset, 20,000 runs over 30 days, analyzed): a day of
// hourly buckets — without a group, grouped by name, namespace and version, filtered by status or name — reads each
// interval from the start-time index alone (an index-only scan without a heap fetch: migration 0017 put every column
// a bucket needs into it), and never sorts or scans the table. Plans, not timings.
import { afterAll, expect } from 'vitest';
import type pg from 'pg';
import type { InstanceFilter, Reader, StatsGroupField } from '@workflow-index/core';
import { describePostgres, postgresTest } from './support/fixtures.js';
import { generateDataset, recordStatements } from './support/bench-dataset.js';
import { createPostgresqlReader } from '../src/postgresql-reader.js';
import { type TestDatabase, openTestPool } from './support/test-database.js';

const it = postgresTest({ prefix: 'wi_stats_plan' });

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Heap Fetches'?: number;
  readonly Plans?: readonly PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

const DAY = { from: '2026-04-15T00:00:00Z', to: '2026-04-16T00:00:00Z' };
const SHAPES: [string, StatsGroupField[], InstanceFilter | null][] = [
  ['no group', [], null],
  ['groupBy name', ['name'], null],
  ['groupBy name, namespace, version', ['name', 'namespace', 'version'], null],
  ['status FAULTED', [], { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }],
  ['name flow-3, groupBy version', ['version'], { kind: 'string', field: 'name', predicate: { op: 'eq', value: 'flow-3' } }],
];

describePostgres('workflowStats: index-only scans of the start-time index', () => {
  let db: TestDatabase;
  let session: pg.Pool;
  let reader: Reader;
  const recorded: Array<{ text: string; values: readonly unknown[] }> = [];

  it.beforeAll(async ({ database }) => {
    db = database;
    const owner = await db.pool.connect();
    try {
      await generateDataset(owner, 20_000, 1);
    } finally {
      owner.release();
    }
    session = openTestPool({ connectionString: db.url, max: 1 });
    recordStatements(session, (statement) => recorded.push(statement));
    reader = createPostgresqlReader({ pool: session, ownsPool: false });
  }, 120_000);

  afterAll(async () => {
    await reader?.close();
    await session?.end();
  });

  it.each(SHAPES)('%s', async (_, groupBy, filter) => {
    recorded.length = 0;
    const buckets = await reader.workflowStats({ filter, interval: 'HOUR', ...DAY, groupBy, maxBuckets: 10_000 });
    expect(buckets.length).toBeGreaterThanOrEqual(24);
    const statement = recorded.find((s) => s.text.includes('workflow_instances'))!;
    const explained = await session.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, [...statement.values]);
    const nodes = nodesOf(explained.rows[0]!['QUERY PLAN'][0].Plan);
    const onTable = nodes.filter((n) => n['Relation Name'] === 'workflow_instances');
    expect(onTable.map((n) => [n['Node Type'], n['Index Name'], n['Heap Fetches']])).toEqual([['Index Only Scan', 'workflow_instances_start_idx', 0]]);
  });
});
