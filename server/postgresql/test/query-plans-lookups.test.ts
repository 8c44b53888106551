// The query plans of counts, relation filters, durations and JSON operators on bench:query's dataset of 100,000 runs × 10 task executions, kept
// apart from test/query-plans.test.ts: the duration orderings (both tables, both directions, cursor, deep offset) and
// the relation filters plan no sequential scan and no sort of a table; every count statement is bounded by its
// LIMIT (COUNT_EXACT_LIMIT + 1) and the estimate is an EXPLAIN. The SQL is the reader's own, captured from its pool.
import { benchInstanceId } from '@workflow-index/testkit';
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import { indexesOf, nodeTypesOf, planProblems } from './support/query-plan.js';
import type { PlanNode } from './support/query-plan.js';
import type pg from 'pg';
import type { InstanceFilter, KeysetPosition, Reader, TaskFilter } from '@workflow-index/core';
import { generateDataset, recordStatements } from './support/bench-dataset.js';
import { PostgresqlReader } from '../src/postgresql-reader.js';
import { type TestDatabase, openTestPool } from './support/test-database.js';

const it = postgresTest({ prefix: 'wi_plans_additions' });

const RUNS = 100_000;
const MAX_SORTED_ROWS = RUNS / 10;
const EXACT_LIMIT = 10_000;

const page = { limit: 20, offset: 0, payloads: false, filter: null } as const;
const at = (...values: (string | null)[]): KeysetPosition => ({ values });
const faultedCharge: TaskFilter = {
  kind: 'and',
  nodes: [
    { kind: 'string', field: 'taskName', predicate: { op: 'eq', value: 'charge' } },
    { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } },
  ],
};
const runsWhereChargeFaulted: InstanceFilter = { kind: 'tasks', node: faultedCharge };
const tasksOfFlow: TaskFilter = { kind: 'instance', node: { kind: 'string', field: 'name', predicate: { op: 'eq', value: 'flow-3' } } };
const chargeOfFlow: TaskFilter = { kind: 'and', nodes: [tasksOfFlow, { kind: 'string', field: 'taskName', predicate: { op: 'eq', value: 'charge' } }] };
const WEEK = { from: '2026-04-10T00:00:00Z', to: '2026-04-17T00:00:00Z' };
const faultedChargeOfFlowInAWeek: TaskFilter = {
  kind: 'and',
  nodes: [faultedCharge, tasksOfFlow, { kind: 'time', field: 'startDate', predicate: { op: 'between', ...WEEK } }],
};

/**
 * The task filters on the run's fields (migrations/0011_task_run_fields.sql): each reads the task rows' own columns
 * from an index of 0011, and never the run of every task (the runs table only through the placeholder index).
 */
const RUN_FIELD_QUERIES: ReadonlyArray<readonly [string, (reader: Reader) => Promise<unknown>]> = [
  ['count of charge tasks of flow-3 runs', (r) => r.countTasks(chargeOfFlow, { exactLimit: EXACT_LIMIT })],
  ['charge tasks of flow-3 runs, newest first', (r) => r.listTasks({ ...page, filter: chargeOfFlow, orderBy: [] })],
  ['faulted charge tasks of flow-3 runs in one week, newest first', (r) => r.listTasks({ ...page, filter: faultedChargeOfFlowInAWeek, orderBy: [] })],
  ['count of faulted charge tasks of flow-3 runs', (r) => r.countTasks({ kind: 'and', nodes: [faultedCharge, tasksOfFlow] }, { exactLimit: EXACT_LIMIT })],
];

const LISTS: ReadonlyArray<readonly [string, (reader: Reader) => Promise<unknown>]> = [
  ...(['ASC', 'DESC'] as const).flatMap((direction) => [
    [`runs by duration ${direction}`, (r: Reader) => r.listInstances({ ...page, orderBy: [{ field: 'duration', direction }] })] as const,
    [`tasks by duration ${direction}`, (r: Reader) => r.listTasks({ ...page, orderBy: [{ field: 'duration', direction }] })] as const,
    [`runs by duration ${direction}, offset 5000`, (r: Reader) => r.listInstances({ ...page, offset: 5000, orderBy: [{ field: 'duration', direction }] })] as const,
    [`runs by duration ${direction}, after a cursor`, (r: Reader) => r.listInstances({ ...page, orderBy: [{ field: 'duration', direction }], after: at('2000000', benchInstanceId(50_000)) })] as const,
    [`tasks by duration ${direction}, after a cursor without a duration`, (r: Reader) => r.listTasks({ ...page, orderBy: [{ field: 'duration', direction }], after: at(null, `${benchInstanceId(50_002)}:do/9/close`) })] as const,
  ]),
  ['runs longer than 1.5 s, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'duration', predicate: { op: 'gt', value: 1500 } }, orderBy: [] })],
  ['runs where charge faulted, newest first', (r) => r.listInstances({ ...page, filter: runsWhereChargeFaulted, orderBy: [] })],
  ['runs where charge faulted, by status, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'and', nodes: [{ kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }, runsWhereChargeFaulted] }, orderBy: [] })],
  ['tasks of flow-3 runs, newest first', (r) => r.listTasks({ ...page, filter: tasksOfFlow, orderBy: [] })],
  ['faulted charge tasks of flow-3 runs, newest first', (r) => r.listTasks({ ...page, filter: { kind: 'and', nodes: [faultedCharge, tasksOfFlow] }, orderBy: [] })],
  ...RUN_FIELD_QUERIES.filter(([name]) => !name.startsWith('count')),
  ['runs by JSON input gt, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'jsonOp', field: 'input', path: ['amount'], predicate: { op: 'gt', value: '990' } }, orderBy: [] })],
  ['runs by JSON input in, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'jsonOp', field: 'input', path: ['customer', 'id'], predicate: { op: 'in', values: ['C-7', 'C-70', 'C-700'] } }, orderBy: [] })],
  ['runs by JSON input exists, newest first', (r) => r.listInstances({ ...page, filter: { kind: 'jsonOp', field: 'input', path: ['coupon'], predicate: { op: 'exists', value: true } }, orderBy: [] })],
];

const COUNTS: ReadonlyArray<readonly [string, (reader: Reader) => Promise<unknown>]> = [
  ['all runs', (r) => r.countInstances(null, { exactLimit: EXACT_LIMIT })],
  ['FAULTED runs of one namespace (exact)', (r) => r.countInstances({ kind: 'and', nodes: [{ kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }, { kind: 'string', field: 'namespace', predicate: { op: 'eq', value: 'com.acme.ns3' } }] }, { exactLimit: EXACT_LIMIT })],
  ['all tasks', (r) => r.countTasks(null, { exactLimit: EXACT_LIMIT })],
  ['runs where charge faulted', (r) => r.countInstances(runsWhereChargeFaulted, { exactLimit: EXACT_LIMIT })],
  ['runs per status', (r) => r.countInstancesByStatus(null, { exactLimit: EXACT_LIMIT })],
  ...RUN_FIELD_QUERIES.filter(([name]) => name.startsWith('count')),
];

interface Statement { readonly text: string; readonly values: readonly unknown[] }

describePostgres('query plans of counts, relation filters, durations and JSON operators at 100,000 runs × 10 tasks', () => {
  let db: TestDatabase;
  let explain: pg.Pool;
  let reader: PostgresqlReader;
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
    reader = new PostgresqlReader({ pool, countTimeoutMs: 60_000 });
  }, 300_000);

  afterAll(async () => {
    await reader?.close();
    await explain?.end();
  });

  const planOf = async (statement: Statement): Promise<PlanNode> => {
    const text = statement.text.startsWith('EXPLAIN (FORMAT JSON) ') ? statement.text.slice('EXPLAIN (FORMAT JSON) '.length) : statement.text;
    const result = await explain.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${text}`, [...statement.values]);
    return result.rows[0]!['QUERY PLAN'][0].Plan;
  };

  it('lists: duration orderings and relation filters without a sequential scan or a sort of a table', async () => {
    const failures: string[] = [];
    for (const [name, call] of LISTS) {
      recording = [];
      await call(reader);
      expect(recording.length, name).toBeGreaterThan(0);
      for (const statement of recording) {
        const plan = await planOf(statement);
        const problems = planProblems(plan, MAX_SORTED_ROWS);
        if (problems.length > 0 || indexesOf(plan).length === 0) failures.push(`${name}: ${problems.length > 0 ? problems.join(', ') : 'no index used'}\n  ${statement.text}`);
        // (after a row without a duration only rows without one follow: those need no duration index)
        const durationIndex = (table: string): string => `${table}_duration_${name.includes(' ASC') ? 'asc_' : ''}idx`;
        if (/^runs by duration/.test(name) && !indexesOf(plan).includes(durationIndex('workflow_instances'))) failures.push(`${name}: not read from ${durationIndex('workflow_instances')}`);
        if (/^tasks by duration/.test(name) && !name.includes('without a duration') && !indexesOf(plan).includes(durationIndex('task_executions'))) {
          failures.push(`${name}: not read from ${durationIndex('task_executions')}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 180_000);

  it("task filters on the run's fields read the task rows' own columns from the indexes of migration 0011", async () => {
    const failures: string[] = [];
    const placeholderIndex = 'workflow_instances_placeholder_idx';
    for (const [name, call] of RUN_FIELD_QUERIES) {
      recording = [];
      await call(reader);
      for (const statement of recording.filter((s) => s.text.startsWith('SELECT'))) {
        const plan = await planOf(statement);
        const indexes = indexesOf(plan);
        const problems = planProblems(plan, MAX_SORTED_ROWS);
        if (problems.length > 0) failures.push(`${name}: ${problems.join(', ')}`);
        if (!indexes.some((index) => index.startsWith('task_executions_run_name_'))) failures.push(`${name}: no index of 0011 in ${indexes.join(', ')}`);
        const runLookups = indexes.filter((index) => index.startsWith('workflow_instances_') && index !== placeholderIndex);
        if (runLookups.length > 0) failures.push(`${name}: reads the runs (${runLookups.join(', ')})`);
      }
    }
    expect(failures).toEqual([]);
    // by construction of the dataset: flow-3 is one run in 17 (g % 17 = 3: 5,883 of the 100,000), each with one charge task
    expect(await reader.countTasks(chargeOfFlow, { exactLimit: EXACT_LIMIT })).toEqual({ value: 5883, exact: true });
  }, 180_000);

  it('a count of runs by their tasks reads the tasks index, not every run', async () => {
    recording = [];
    expect(await reader.countInstances(runsWhereChargeFaulted, { exactLimit: EXACT_LIMIT })).toEqual({ value: 1000, exact: true });
    const [statement] = recording;
    const plan = await planOf(statement!);
    expect(planProblems(plan, MAX_SORTED_ROWS)).toEqual([]);
    expect(indexesOf(plan).filter((index) => index.startsWith('workflow_instances_') && index !== 'workflow_instances_placeholder_idx')).toEqual([]);
    expect(indexesOf(plan)).toContain('task_executions_faulted_instance_idx');
  }, 60_000);

  it('a JSON value that is in the payload histogram is not estimated at 1 % of the runs (migration 0014): the planner keeps the GIN index for it', async () => {
    // Every customer has 20 of the 100,000 runs (0.02 %). With the default statistics target the containment estimate
    // of a customer found among the histogram's 100 entries is 1 % of the runs, which at 1,000,000 runs made the
    // planner walk the start-time index instead (bench:query instances-json-in: p99 at 100 req/s 126 ms).
    const bounds = await explain.query<{ value: string }>(
      "SELECT unnest(histogram_bounds::text::jsonb[]) ->> 'customer' AS value FROM pg_stats WHERE schemaname = 'workflow_index' AND tablename = 'workflow_instances' AND attname = 'input'",
    );
    const customers = [...new Set(bounds.rows.map((row) => (JSON.parse(row.value) as { id: string }).id))].slice(0, 20);
    expect(customers.length).toBeGreaterThan(0);
    const estimates: Record<string, number> = {};
    for (const customer of customers) {
      const result = await explain.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        'EXPLAIN (FORMAT JSON) SELECT 1 FROM workflow_index.workflow_instances WHERE input @> $1::jsonb',
        [JSON.stringify({ customer: { id: customer } })],
      );
      estimates[customer] = result.rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'];
    }
    expect(Object.entries(estimates).filter(([, rows]) => rows > RUNS / 200)).toEqual([]);
  }, 60_000);

  it('counts: every exact count is bounded by LIMIT COUNT_EXACT_LIMIT + 1; above it the answer is an estimate from EXPLAIN', async () => {
    const failures: string[] = [];
    for (const [name, call] of COUNTS) {
      recording = [];
      const result = await call(reader);
      const counted = recording.filter((s) => s.text.startsWith('SELECT'));
      expect(counted.length, name).toBeGreaterThan(0);
      for (const statement of counted) {
        const plan = await planOf(statement);
        if (!nodeTypesOf(plan).includes('Limit')) failures.push(`${name}: not bounded by a LIMIT\n  ${statement.text}`);
        if (!statement.values.includes(EXACT_LIMIT + 1)) failures.push(`${name}: the limit is not COUNT_EXACT_LIMIT + 1`);
      }
      const estimated = recording.filter((s) => s.text.startsWith('EXPLAIN'));
      const inexact = JSON.stringify(result).includes('"exact":false');
      if (inexact !== estimated.length > 0) failures.push(`${name}: exact:false ${inexact} but ${estimated.length} estimates`);
    }
    expect(failures).toEqual([]);
    // by construction of the dataset: 100,000 runs (estimated), 10 % FAULTED of which one namespace in ten (exact 1,000)
    expect(await reader.countInstances({ kind: 'and', nodes: [{ kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }, { kind: 'string', field: 'namespace', predicate: { op: 'eq', value: 'com.acme.ns3' } }] }, { exactLimit: EXACT_LIMIT })).toEqual({ value: 1000, exact: true });
    const all = await reader.countInstances(null, { exactLimit: EXACT_LIMIT });
    expect(all.exact).toBe(false);
    // the planner's estimate of an unfiltered count is the analyzed row count
    expect(all.value).toBeGreaterThan(90_000);
    expect(all.value).toBeLessThan(110_000);
  }, 180_000);
});
