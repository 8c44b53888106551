// The run's namespace, name and version on its task rows (migrations/0011_task_run_fields.sql,
// normalizer/075-task-run-fields.sql): NULL while the run is a placeholder, its run's once workflow.started arrives
// (before or after the tasks, in any flush), following a run whose identity an earlier workflow.started replaces,
// the same after rebuild_normalized(); the reader's workflowName/Namespace/Version task filters read them.
import { afterAll, expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import type { InstanceFilter, TaskFilter } from '@workflow-index/core';
import { PostgresqlReader } from '../src/postgresql-reader.js';
import type { TestDatabase } from './support/test-database.js';
import { loadEvents, snapshot, type Event } from './support/load-events.js';

const T0 = 1778577243.5; // 2026-05-12T09:14:03.5Z
const P = 'io.serverlessworkflow.';

const started = (id: string, t: number, name: string, version = '1.0'): Event => ({
  eventType: `${P}workflow.started.v1`, instanceId: id, timestamp: t, status: 'RUNNING', startTime: t,
  workflowName: name, workflowNamespace: 'payments', workflowVersion: version,
});
const task = (id: string, action: 'started' | 'faulted', t: number, pos: string): Event => ({
  eventType: `${P}task.${action}.v1`, instanceId: id, timestamp: t, taskName: pos.split('/').pop(), taskPosition: pos,
  taskExecutionId: '00000000-0000-3000-8000-000000000000',
  ...(action === 'started' ? { startTime: t, status: 'RUNNING' } : { endTime: t, status: 'FAILED' }),
});

const runFields = async (db: TestDatabase, id: string): Promise<unknown[][]> =>
  (await snapshot(db.pool, [id])).tasks.map((t) => [t.task_position, t.workflow_namespace, t.workflow_name, t.workflow_version]);

const byName = (name: string): TaskFilter => ({ kind: 'instance', node: { kind: 'string', field: 'name', predicate: { op: 'eq', value: name } } });
const notByName = (name: string): TaskFilter => ({ kind: 'not', node: byName(name) });
const faultedCharge = (name: string): TaskFilter => ({
  kind: 'and',
  nodes: [
    byName(name),
    { kind: 'string', field: 'taskName', predicate: { op: 'eq', value: 'charge' } },
    { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } },
  ],
});

describePostgres("the run's fields on its task executions (real PostgreSQL)", () => {
  let db: TestDatabase;
  let reader: PostgresqlReader;
  it.beforeAll(async ({ database }) => {
    db = database;
    reader = new PostgresqlReader({ pool: db.pool, ownsPool: false });
  });
  afterAll(async () => {
    await reader?.close();
  });

  const ids = async (filter: TaskFilter): Promise<string[]> =>
    (await reader.listTasks({ filter, orderBy: [], limit: 50, offset: 0, payloads: false })).map((t) => t.id).sort();
  const count = (filter: TaskFilter): Promise<unknown> => reader.countTasks(filter, { exactLimit: 10_000 });

  it('tasks before their run: NULL (not served, matched by no filter); the later workflow.started fills them in its own flush', async () => {
    await loadEvents(db.pool, [task('A', 'started', T0 + 1, 'do/0/reserve'), task('A', 'faulted', T0 + 2, 'do/1/charge')]);
    expect(await runFields(db, 'A')).toEqual([['do/0/reserve', null, null, null], ['do/1/charge', null, null, null]]);
    expect(await ids(notByName('payment-capture'))).toEqual([]); // a placeholder's tasks are never served
    expect(await count(notByName('payment-capture'))).toEqual({ value: 0, exact: true });

    await loadEvents(db.pool, [started('A', T0, 'payment-capture')]);
    expect(await runFields(db, 'A')).toEqual([['do/0/reserve', 'payments', 'payment-capture', '1.0'], ['do/1/charge', 'payments', 'payment-capture', '1.0']]);
    expect(await ids(faultedCharge('payment-capture'))).toEqual(['A:do/1/charge']);
    expect(await count(faultedCharge('payment-capture'))).toEqual({ value: 1, exact: true });
    expect(await count(notByName('payment-capture'))).toEqual({ value: 0, exact: true });
  });

  it('tasks after their run carry its fields; tasks delivered just before it (a flush of their own) follow', async () => {
    await loadEvents(db.pool, [started('B', T0, 'refund', '2.0')]);
    await loadEvents(db.pool, [task('B', 'started', T0 + 1, 'do/0/reserve')]);
    await loadEvents(db.pool, [task('C', 'faulted', T0 + 2, 'do/1/charge'), started('C', T0, 'refund', '2.0')], { batchSizes: [2] });
    expect(await runFields(db, 'B')).toEqual([['do/0/reserve', 'payments', 'refund', '2.0']]);
    expect(await runFields(db, 'C')).toEqual([['do/1/charge', 'payments', 'refund', '2.0']]);
    expect(await ids(byName('refund'))).toEqual(['B:do/0/reserve', 'C:do/1/charge']);
    expect(await ids(notByName('refund'))).toEqual(['A:do/0/reserve', 'A:do/1/charge']);
    expect(await count({ kind: 'instance', node: { kind: 'string', field: 'version', predicate: { op: 'eq', value: '2.0' } } })).toEqual({ value: 2, exact: true });
  });

  it("an earlier workflow.started replaces the run's identity: its tasks follow", async () => {
    await loadEvents(db.pool, [started('D', T0, 'late-name'), task('D', 'started', T0 + 1, 'do/0/reserve')]);
    expect(await runFields(db, 'D')).toEqual([['do/0/reserve', 'payments', 'late-name', '1.0']]);
    await loadEvents(db.pool, [started('D', T0 - 1, 'early-name', '0.9')]);
    expect((await snapshot(db.pool, ['D'])).instances[0]).toMatchObject({ name: 'early-name', version: '0.9' });
    expect(await runFields(db, 'D')).toEqual([['do/0/reserve', 'payments', 'early-name', '0.9']]);
    expect(await ids(byName('late-name'))).toEqual([]);
  });

  it('rebuild_normalized() gives the same rows', async () => {
    const before = await snapshot(db.pool);
    expect(before.tasks.filter((t) => t.workflow_name !== null)).toHaveLength(5);
    await db.pool.query('SELECT workflow_index.rebuild_normalized()');
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it('runs counted by their tasks: exactly the served runs the same filter lists (a placeholder with a matching task is not counted)', async () => {
    await loadEvents(db.pool, [task('E', 'faulted', T0 + 2, 'do/1/charge')]); // E stays a placeholder
    const runsWhere: InstanceFilter = { kind: 'tasks', node: faultedCharge('payment-capture') };
    const chargeFaulted: InstanceFilter = {
      kind: 'tasks',
      node: { kind: 'and', nodes: [{ kind: 'string', field: 'taskName', predicate: { op: 'eq', value: 'charge' } }, { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }] },
    };
    for (const filter of [runsWhere, chargeFaulted, { kind: 'not', node: chargeFaulted } satisfies InstanceFilter]) {
      const listed = await reader.listInstances({ filter, orderBy: [], limit: 50, offset: 0, payloads: false });
      expect(await reader.countInstances(filter, { exactLimit: 10_000 })).toEqual({ value: listed.length, exact: true });
    }
    expect((await reader.listInstances({ filter: chargeFaulted, orderBy: [], limit: 50, offset: 0, payloads: false })).map((i) => i.id).sort()).toEqual(['A', 'C']);
  });
});
