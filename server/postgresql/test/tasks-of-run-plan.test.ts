// The tasks of one run (getTaskExecutionsByWorkflowInstance; bench:query's tasks-of-instance) on a table with
// realistic statistics (5,000 runs × 10 task executions, analyzed): its named statement is planned for its values
// five times, then the session reuses one generic plan — re-planning each execution cost more than executing it —
// and that plan reads the run's tasks by their instance_id, checking "not a placeholder" once, not per task.
// Plans and plan counts, not timings.
import { benchInstanceId } from '@workflow-index/testkit';
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import type pg from 'pg';
import type { Reader } from '@workflow-index/core';
import { generateDataset, recordStatements } from './support/bench-dataset.js';
import { createPostgresqlReader } from '../src/postgresql-reader.js';
import { loadEvents } from './support/load-events.js';
import { type TestDatabase, openTestPool } from './support/test-database.js';

const it = postgresTest({ prefix: 'wi_run_tasks' });

const RUNS = 5_000;

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Index Cond'?: string;
  readonly 'One-Time Filter'?: string;
  readonly Plans?: readonly PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describePostgres('the tasks of one run: one plan per session, one index', () => {
  let db: TestDatabase;
  let session: pg.Pool;
  let reader: Reader;
  const recorded: Array<{ text: string; values: readonly unknown[] }> = [];

  it.beforeAll(async ({ database }) => {
    db = database;
    const owner = await db.pool.connect();
    try {
      await generateDataset(owner, RUNS, 10);
      // A placeholder run: known from a task event only (the normalizer's own path), so never served.
      await loadEvents(owner, [{
        instanceId: 'placeholder-1', eventType: 'io.serverlessworkflow.task.started.v1', timestamp: '2026-04-02T00:00:00Z',
        startTime: '2026-04-02T00:00:00Z', taskPosition: 'do/0/t', taskName: 't', status: 'RUNNING',
      }]);
      const stored = await owner.query(`SELECT 1 FROM workflow_index.task_executions WHERE instance_id = 'placeholder-1'`);
      expect(stored.rowCount).toBe(1);
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

  it('serves a run\'s tasks in order, none of a placeholder, from a generic plan reused after five', async () => {
    const executions = 30;
    for (let i = 0; i < executions; i++) {
      const id = benchInstanceId(1 + ((i * 977) % RUNS));
      const tasks = (await reader.tasksOfInstances([id], { payloads: false })).get(id) ?? [];
      expect(tasks).toHaveLength(10);
      const order = tasks.map((t) => `${t.startDate ?? '~'} ${t.endDate ?? '~'} ${t.id}`);
      expect(order).toEqual([...order].sort());
    }
    expect((await reader.tasksOfInstances(['placeholder-1'], { payloads: false })).get('placeholder-1')).toEqual([]);
    const plans = await session.query<{ generic_plans: string; custom_plans: string }>(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`, [recorded[0]?.text],
    );
    // Planned for its values the first five times; every later execution reused the generic plan.
    expect(plans.rows).toEqual([{ generic_plans: String(executions + 1 - 5), custom_plans: '5' }]);
  });

  it('plans one index scan of the run\'s tasks and the placeholder check once, without a join', async () => {
    const statement = recorded[0];
    if (statement === undefined) throw new Error('no statement recorded');
    const client = await session.connect();
    try {
      await client.query(`PREPARE run_tasks AS ${statement.text}`);
      await client.query('SET plan_cache_mode = force_generic_plan');
      const result = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) EXECUTE run_tasks(${statement.values.map((v) => client.escapeLiteral(String(v))).join(', ')})`,
      );
      const nodes = nodesOf(result.rows[0]!['QUERY PLAN'][0].Plan);
      const types = nodes.map((n) => n['Node Type']);
      expect(types).not.toContain('Seq Scan');
      // No join: the run's tasks by their instance_id (a sort of those ten rows at most), and the placeholder check
      // as a one-time filter on one probe of the placeholders' partial index.
      expect(types.filter((t) => /Join|Nested Loop|SubPlan/.test(t))).toEqual([]);
      const taskScans = nodes.filter((n) => n['Index Name']?.startsWith('task_executions_'));
      expect(taskScans.map((n) => n['Index Cond'])).toEqual(['(instance_id = $1)']);
      expect(nodes.filter((n) => n['Relation Name'] === 'workflow_instances').map((n) => [n['Index Name'], n['Index Cond']]))
        .toEqual([['workflow_instances_placeholder_idx', '(id = $1)']]);
      expect(nodes.some((n) => n['One-Time Filter'] !== undefined)).toBe(true);
    } finally {
      await client.query('DEALLOCATE run_tasks').catch(() => undefined);
      await client.query('RESET plan_cache_mode');
      client.release();
    }
  });
});
