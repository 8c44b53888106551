// The query plans of bench:query's mix on a database of 100,000 runs × 10 task executions: no query may plan a
// sequential scan, nor a sort of (a large part of) a table. The SQL is the reader's own (captured from its pool),
// EXPLAINed with the same bind values, so a change to the statements or the indexes that loses an index path fails
// here, before any benchmark. Plans, not timings: nothing here depends on the machine's speed.
import { benchInstanceId } from '@workflow-index/testkit';
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import { indexesOf, nodeTypesOf, planProblems } from './support/query-plan.js';
import type { PlanNode } from './support/query-plan.js';
import type pg from 'pg';
import { DEFAULT_COUNT_EXACT_LIMIT } from '@workflow-index/core';
import type { SimpleInstanceFilter, KeysetPosition, Reader, SimpleTaskFilter } from '@workflow-index/core';
import { generateDataset, recordStatements } from './support/bench-dataset.js';
import { createPostgresqlReader } from '../src/postgresql-reader.js';
import { type TestDatabase, openTestPool } from './support/test-database.js';

const it = postgresTest({ prefix: 'wi_plans' });

const RUNS = 100_000;
/** A sort whose input the planner expects above this many rows sorts a table, not a page (10 % of the runs). */
const MAX_SORTED_ROWS = RUNS / 10;

interface Statement { readonly text: string; readonly values: readonly unknown[] }

const eq = (field: 'status' | 'namespace' | 'name', value: string): SimpleInstanceFilter => ({ kind: 'string', field, predicate: { op: 'eq', value } });
const taskName = (value: string): SimpleTaskFilter => ({ kind: 'string', field: 'taskName', predicate: { op: 'eq', value } });
const faulted: SimpleTaskFilter = { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } };
const page = { limit: 20, offset: 0, payloads: false, filter: null } as const;
const at = (...values: (string | null)[]): KeysetPosition => ({ values });

const COUNT = { exactLimit: DEFAULT_COUNT_EXACT_LIMIT };

/** The mix: every query of bench:query and every indexed ordering in both directions, deep offsets and cursors. */
const MIX: ReadonlyArray<readonly [string, (reader: Reader) => Promise<unknown>]> = [
  ['runs by status and namespace, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'and', nodes: [eq('status', 'FAULTED'), eq('namespace', 'com.acme.ns3')] }, orderBy: [{ field: 'startDate', direction: 'DESC' }] })],
  ['runs, newest first (default)', (r) => r.listInstances({ ...page, orderBy: [] })],
  ['runs, oldest first', (r) => r.listInstances({ ...page, orderBy: [{ field: 'startDate', direction: 'ASC' }] })],
  ['runs, oldest first, offset 5000', (r) => r.listInstances({ ...page, offset: 5000, orderBy: [{ field: 'startDate', direction: 'ASC' }] })],
  ['runs, newest first, offset 5000', (r) => r.listInstances({ ...page, offset: 5000, orderBy: [] })],
  ...(['id', 'name', 'status', 'startDate', 'endDate', 'lastUpdate'] as const).flatMap((field) =>
    (['ASC', 'DESC'] as const).map((direction) => [`runs by ${field} ${direction}`, (r: Reader) => r.listInstances({ ...page, orderBy: [{ field, direction }] })] as const),
  ),
  ['runs, newest first, after a cursor', (r) => r.listInstances({ ...page, orderBy: [], after: at('2026-04-15T00:00:00.000000Z', benchInstanceId(50_000)) })],
  ['runs, oldest first, after a cursor', (r) => r.listInstances({ ...page, orderBy: [{ field: 'startDate', direction: 'ASC' }], after: at('2026-04-15T00:00:00.000000Z', benchInstanceId(50_000)) })],
  ['runs by endDate DESC, after a cursor with an end', (r) => r.listInstances({ ...page, orderBy: [{ field: 'endDate', direction: 'DESC' }], after: at('2026-04-15T00:00:02.000000Z', benchInstanceId(50_000)) })],
  ['runs by endDate ASC, after a cursor without an end', (r) => r.listInstances({ ...page, orderBy: [{ field: 'endDate', direction: 'ASC' }], after: at(null, benchInstanceId(50_001)) })],
  ['runs by name ASC, after a cursor', (r) => r.listInstances({ ...page, orderBy: [{ field: 'name', direction: 'ASC' }], after: at('flow-3', benchInstanceId(50_000)) })],
  ['runs by status DESC, after a cursor', (r) => r.listInstances({ ...page, orderBy: [{ field: 'status', direction: 'DESC' }], after: at('FAULTED', benchInstanceId(50_000)) })],
  ['runs by status, newest first, after a cursor', (r) => r.listInstances({ ...page, filter: eq('status', 'RUNNING'), orderBy: [], after: at('2026-04-15T00:00:00.000000Z', benchInstanceId(50_000)) })],
  ['runs by name like, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'string', field: 'name', predicate: { op: 'like', pattern: [{ kind: 'literal', text: 'flow-1' }, { kind: 'any' }] } }, orderBy: [] })],
  ['runs by name eq, oldest first', (r) => r.listInstances({ ...page, filter: eq('name', 'flow-7'), orderBy: [{ field: 'startDate', direction: 'ASC' }] })],
  ['runs by JSON input', (r) => r.listInstances({ ...page, filter: { kind: 'json', field: 'input', path: ['customer', 'id'], value: 'C-1234' }, orderBy: [] })],
  ['one run by id', (r) => r.getInstance(benchInstanceId(4242), { payloads: true })],
  ['the tasks of runs (taskExecutions)', (r) => r.tasksOfInstances([benchInstanceId(4242), benchInstanceId(777)], { payloads: false })],
  ['tasks of a run through the filter', (r) => r.listTasks({ ...page, filter: { kind: 'string', field: 'workflowInstanceId', predicate: { op: 'eq', value: benchInstanceId(4242) } }, orderBy: [{ field: 'startDate', direction: 'ASC' }] })],
  ['tasks by name and time range', (r) => r.listTasks({ ...page, filter: { kind: 'and', nodes: [taskName('charge'), { kind: 'time', field: 'startDate', predicate: { op: 'between', from: '2026-04-10T00:00:00Z', to: '2026-04-10T01:00:00Z' } }] }, orderBy: [] })],
  ['tasks by name, newest first', (r) => r.listTasks({ ...page, filter: taskName('ship'), orderBy: [] })],
  ['tasks, newest first, offset 5000', (r) => r.listTasks({ ...page, offset: 5000, orderBy: [] })],
  // taskPosition is left out on purpose (migrations/0004: an index led by it misleads the normalizer's lookups).
  ...(['id', 'taskName', 'status', 'startDate', 'endDate'] as const).flatMap((field) =>
    (['ASC', 'DESC'] as const).map((direction) => [`tasks by ${field} ${direction}`, (r: Reader) => r.listTasks({ ...page, orderBy: [{ field, direction }] })] as const),
  ),
  ['tasks by taskName DESC, after a cursor', (r) => r.listTasks({ ...page, orderBy: [{ field: 'taskName', direction: 'DESC' }], after: at('pack', `${benchInstanceId(50_000)}:do/5/pack`) })],
  ['tasks by status ASC, offset 5000', (r) => r.listTasks({ ...page, offset: 5000, orderBy: [{ field: 'status', direction: 'ASC' }] })],
  ['tasks by status, newest first', (r) => r.listTasks({ ...page, filter: { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }, orderBy: [] })],
  ['tasks, oldest first, after a cursor', (r) => r.listTasks({ ...page, orderBy: [{ field: 'startDate', direction: 'ASC' }], after: at('2026-04-15T00:00:00.000000Z', `${benchInstanceId(50_000)}:do/0/validate`) })],
  // Counts read at most COUNT_EXACT_LIMIT + 1 rows, from an index (migration 0007 for namespace and status).
  ['count runs by status and namespace', (r) => r.countInstances({ kind: 'and', nodes: [eq('status', 'COMPLETED'), eq('namespace', 'com.acme.ns3')] }, COUNT)],
  ['status counts of a namespace', (r) => r.countInstancesByStatus(eq('namespace', 'com.acme.ns3'), COUNT)],
  ['count every run', (r) => r.countInstances(null, COUNT)],
  ['tasks by JSON input', (r) => r.listTasks({ ...page, filter: { kind: 'json', field: 'input', path: ['step'], value: '3' }, orderBy: [] })],
  // bench:query's mix beyond lists: task counts, relation filters, durations, JSON operators.
  ['count tasks by name', (r) => r.countTasks(taskName('charge'), COUNT)],
  ['count faulted tasks of a name', (r) => r.countTasks({ kind: 'and', nodes: [taskName('validate'), faulted] }, COUNT)],
  ['runs where a task of a name faulted, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'tasks', node: { kind: 'and', nodes: [taskName('validate'), faulted] } }, orderBy: [] })],
  ['faulted tasks of a workflow in a day, newest first', (r) => r.listTasks({
    ...page,
    filter: { kind: 'and', nodes: [{ kind: 'instance', node: eq('name', 'flow-3') }, faulted, { kind: 'time', field: 'startDate', predicate: { op: 'between', from: '2026-04-10T00:00:00Z', to: '2026-04-11T00:00:00Z' } }] },
    orderBy: [],
  })],
  ['runs longer than 50 s, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'duration', predicate: { op: 'gt', value: 50_000 } }, orderBy: [] })],
  ['slowest runs of a workflow', (r) => r.listInstances({ ...page, filter: eq('name', 'flow-3'), orderBy: [{ field: 'duration', direction: 'DESC' }] })],
  ['runs by JSON input gt', (r) => r.listInstances({ ...page, filter: { kind: 'jsonOp', field: 'input', path: ['amount'], predicate: { op: 'gt', value: '990' } }, orderBy: [] })],
  ['runs by JSON input contains', (r) => r.listInstances({ ...page, filter: { kind: 'jsonOp', field: 'input', path: ['customer', 'id'], predicate: { op: 'contains', value: 'C-42' } }, orderBy: [] })],
];

/** Queries of the mix that must read a given index (migration 0010: the failure queries' partial indexes). */
const READS_INDEX: Readonly<Record<string, string>> = {
  'count faulted tasks of a name': 'task_executions_faulted_name_idx',
  'runs where a task of a name faulted, newest first': 'task_executions_faulted_instance_idx',
  // the workflow's faulted tasks (the run's name on the task row, migration 0011), the day checked in the index
  'faulted tasks of a workflow in a day, newest first': 'task_executions_run_name_faulted_idx',
};

describePostgres('query plans at 100,000 runs × 10 tasks', () => {
  let db: TestDatabase;
  let explain: pg.Pool;
  let reader: Reader;
  let recording: Statement[] = [];

  it.beforeAll(async ({ database }) => {
    db = database;
    const owner = await db.pool.connect();
    try {
      await generateDataset(owner, RUNS, 10);
    } finally {
      owner.release();
    }
    explain = openTestPool({ connectionString: db.url, max: 1 });
    const pool = openTestPool({ connectionString: db.url, max: 1 });
    recordStatements(pool, (statement) => recording.push(statement));
    reader = createPostgresqlReader({ pool });
  }, 180_000);

  afterAll(async () => {
    await reader?.close();
    await explain?.end();
  });

  it('plans every query of the mix without a sequential scan or a sort of a table', async () => {
    const failures: string[] = [];
    for (const [name, call] of MIX) {
      recording = [];
      await call(reader);
      expect(recording.length, name).toBeGreaterThan(0);
      for (const statement of recording) {
        // A count's estimate is itself an EXPLAIN: it plans, it reads no rows.
        if (/^EXPLAIN /.test(statement.text)) continue;
        const result = await explain.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${statement.text}`, [...statement.values]);
        const plan = result.rows[0]!['QUERY PLAN'][0].Plan;
        const problems = planProblems(plan, MAX_SORTED_ROWS);
        if (problems.length > 0 || indexesOf(plan).length === 0) {
          failures.push(`${name}: ${problems.length > 0 ? problems.join(', ') : 'no index used'}\n  ${statement.text}`);
        }
        // A count reads up to COUNT_EXACT_LIMIT + 1 entries of an index, never the rows (0007 for namespace and status).
        if (/^(count|status counts)/.test(name) && !nodeTypesOf(plan).includes('Index Only Scan')) {
          failures.push(`${name}: not counted by an index-only scan\n  ${statement.text}`);
        }
        // A task count reads the filter's index alone: no look at the run of every task (placeholders are subtracted).
        if (/^count (faulted )?tasks/.test(name) && indexesOf(plan).includes('workflow_instances_pkey')) {
          failures.push(`${name}: reads the run of every task\n  ${statement.text}`);
        }
        const index = READS_INDEX[name];
        if (index !== undefined && !indexesOf(plan).includes(index)) failures.push(`${name}: not read from ${index}\n  ${statement.text}`);
        // Oldest first merges the backward branch and the rows without a time in order, never sorts them again.
        if (/oldest first/.test(name) && !nodeTypesOf(plan).includes('Merge Append')) {
          failures.push(`${name}: the two branches are not merged in order\n  ${statement.text}`);
        }
        // A deep offset is counted on the index alone (partial served-rows index, deferred join).
        if (/^runs, (newest|oldest) first, offset/.test(name) && !nodeTypesOf(plan).includes('Index Only Scan')) {
          failures.push(`${name}: the skipped rows are not counted by an index-only scan\n  ${statement.text}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('the newest event time of the metrics (ingest_stats) still reads max(last_update) from an index', async () => {
    const result = await explain.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>('EXPLAIN (FORMAT JSON) SELECT max(last_update) FROM workflow_index.workflow_instances');
    const plan = result.rows[0]!['QUERY PLAN'][0].Plan;
    expect(planProblems(plan, MAX_SORTED_ROWS)).toEqual([]);
    expect(indexesOf(plan)).toEqual(['workflow_instances_last_update_idx']);
  });

  it('the check itself: a sort of the table and a sequential scan are caught', async () => {
    const sorted = await explain.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      'EXPLAIN (FORMAT JSON) SELECT id FROM workflow_index.workflow_instances ORDER BY namespace, id LIMIT 20',
    );
    const problems = planProblems(sorted.rows[0]!['QUERY PLAN'][0].Plan, MAX_SORTED_ROWS);
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) expect(problem).toMatch(/^(Incremental )?Sort of \d+ rows$|^Seq Scan on workflow_instances$/);
  });
});
