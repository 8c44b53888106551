// No login can stall or skew ingestion: the normalizer serializes on instance-row locks that only the owner can
// take (no advisory keys another login could guess), a flush that waits too long gives up with a retryable error
// instead of wedging the ones behind it, and the forwarder writes (tag, time, data) and nothing else.
import { afterAll, expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { ADMIN_URL, ensureLoginRole, type TestDatabase } from './support/test-database.js';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';
import type { Event } from './support/load-events.js';

const T0 = 1778577243.5;
const started = (id: string): Event => ({
  eventType: 'io.serverlessworkflow.workflow.started.v1', instanceId: id, timestamp: T0, startTime: T0, status: 'RUNNING',
  workflowName: 'wf', workflowNamespace: 'ns', workflowVersion: '1',
});
const task = (id: string, action: string, t: number): Event => ({
  eventType: `io.serverlessworkflow.task.${action}.v1`, instanceId: id, timestamp: t, taskName: 'step', taskPosition: 'do/0/step',
  status: action === 'started' ? 'RUNNING' : 'COMPLETED', ...(action === 'started' ? { startTime: t } : { endTime: t }),
});

describePostgres('locks and grants no login can abuse (real PostgreSQL, real logins)', () => {
  let db: TestDatabase;
  const suffix = randomBytes(4).toString('hex');
  const forwarderRole = `wi_fwd_lk_${suffix}`;
  const readerRole = `wi_read_lk_${suffix}`;
  const clients: pg.Client[] = [];
  const connect = async (role: string, statementTimeoutMs = 60_000): Promise<pg.Client> => {
    // A statement timeout on every test connection: a regression that blocks fails the test instead of hanging it.
    const client = new pg.Client({ connectionString: db.urlAs(role, 'test-password'), statement_timeout: statementTimeoutMs });
    await client.connect();
    clients.push(client);
    return client;
  };
  it.beforeAll(async ({ database }) => {
    db = database;
    await ensureLoginRole(forwarderRole, 'workflow_index_forwarder');
    await ensureLoginRole(readerRole, 'workflow_index_reader');
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    for (const r of [forwarderRole, readerRole]) await admin.query(`DROP ROLE IF EXISTS ${r}`).catch(() => undefined);
    await admin.end();
  });

  it('the reader cannot lock the rows the normalizer serializes on', async () => {
    const forwarder = await connect(forwarderRole);
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [started('LK1')]));
    const reader = await connect(readerRole);
    for (const mode of ['FOR UPDATE', 'FOR NO KEY UPDATE', 'FOR SHARE', 'FOR KEY SHARE']) {
      await expect(reader.query(`SELECT id FROM workflow_index.workflow_instances WHERE id = 'LK1' ${mode}`), mode).rejects.toThrow(/permission denied/);
    }
    await reader.query('BEGIN');
    await expect(reader.query('LOCK TABLE workflow_index.workflow_instances IN SHARE MODE')).rejects.toThrow(/permission denied/);
    await reader.query('ROLLBACK');
  });

  it('advisory locks of any login, including the keys the v1 normalizer used, do not block a flush', async () => {
    const reader = await connect(readerRole);
    const forwarder = await connect(forwarderRole);
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [started('LK2')]));
    // The key v1 derived from (instance, position), and a transaction holding a snapshot of the normalized tables.
    await reader.query('BEGIN');
    await reader.query(`SELECT pg_advisory_xact_lock(hashtextextended('LK2' || chr(31) || 'do/0/step', 1597))`);
    await reader.query(`SELECT count(*) FROM workflow_index.workflow_instances`);
    await forwarder.query(fluentBitInsertStatement('task_events_raw', 'workflow.task', [task('LK2', 'started', T0 + 1), task('LK2', 'completed', T0 + 2)]));
    await reader.query('ROLLBACK');
    const tasks = await db.pool.query(`SELECT status FROM workflow_index.task_executions WHERE instance_id = 'LK2'`);
    expect(tasks.rows).toEqual([{ status: 'COMPLETED' }]);
  });

  it('a flush waiting behind a stuck transaction gives up with lock_not_available (Fluent Bit retries it) instead of waiting forever', async () => {
    const forwarder = await connect(forwarderRole);
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [started('LK3')]));
    // Another forwarder connection that inserted and never commits holds the instance row.
    const stuck = await connect(forwarderRole);
    await stuck.query('BEGIN');
    await stuck.query(fluentBitInsertStatement('task_events_raw', 'workflow.task', [task('LK3', 'started', T0 + 1)]));
    const error = await forwarder.query(fluentBitInsertStatement('task_events_raw', 'workflow.task', [task('LK3', 'completed', T0 + 2)])).then(
      () => null,
      (e: unknown) => e as { code?: string },
    );
    expect(error?.code).toBe('55P03');
    await stuck.query('ROLLBACK');
    // The retry, once the stuck transaction is gone, goes through.
    await forwarder.query(fluentBitInsertStatement('task_events_raw', 'workflow.task', [task('LK3', 'completed', T0 + 2)]));
    const tasks = await db.pool.query(`SELECT status FROM workflow_index.task_executions WHERE instance_id = 'LK3'`);
    expect(tasks.rows).toEqual([{ status: 'COMPLETED' }]);
  });

  it("a task flush and a workflow flush over the same runs, one new to each, do not deadlock (Fluent Bit's two outputs)", async () => {
    // Run A exists, B is new. A task flush for A and B that created B's placeholder and only later locked A held B
    // while waiting for A, while a workflow flush that upserted A (in id order) waited for B: 40P01. The test pins
    // the task flush inside its placeholder pass: a gate transaction holds an uncommitted row for a third run C
    // (> B), so the flush waits at C, after B, until the gate rolls back.
    const workflows = await connect(forwarderRole);
    await workflows.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [started('DL-A')]));
    const gate = new pg.Client({ connectionString: db.url, statement_timeout: 60_000 });
    await gate.connect();
    clients.push(gate);
    await gate.query('BEGIN');
    await gate.query(`INSERT INTO workflow_index.workflow_instances (id, status, status_terminal, status_event_time, status_rank) VALUES ('DL-C', 'RUNNING', false, '-infinity', 0)`);

    const tasks = await connect(forwarderRole);
    const pidOf = async (c: pg.Client): Promise<number> => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const waitingOnLock = async (pid: number): Promise<boolean> => (await db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [pid])).rowCount === 1;
    const settle = (p: Promise<unknown>, done: () => void): Promise<{ code?: string } | null> => p.then(() => null, (e: unknown) => e as { code?: string }).finally(done);
    const poll = async (until: () => Promise<boolean>): Promise<void> => {
      for (let i = 0; i < 600 && !(await until()); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    const taskPid = await pidOf(tasks);
    const workflowPid = await pidOf(workflows);
    let taskDone = false;
    const taskResult = settle(tasks.query(fluentBitInsertStatement('task_events_raw', 'workflow.task', ['DL-A', 'DL-B', 'DL-C'].map((id) => task(id, 'started', T0 + 1)))), () => {
      taskDone = true;
    });
    await poll(async () => taskDone || (await waitingOnLock(taskPid)));
    expect(taskDone).toBe(false); // waiting at C, B's placeholder created
    await workflows.query('BEGIN');
    let upsertedA = false;
    const completeA = settle(workflows.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [{ ...started('DL-A'), eventType: 'io.serverlessworkflow.workflow.completed.v1', timestamp: T0 + 5, status: 'COMPLETED', endTime: T0 + 5 }])), () => {
      upsertedA = true;
    });
    // The task flush holds A already and the workflow flush waits for it; the old order let the workflow flush take A.
    await poll(async () => upsertedA || (await waitingOnLock(workflowPid)));
    const startB = settle(workflows.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [started('DL-B')])), () => undefined);
    await gate.query('ROLLBACK'); // the task flush goes on: C's placeholder, then its locks and executions
    const errors = { task: (await taskResult)?.code, completeA: (await completeA)?.code, startB: (await startB)?.code };
    await workflows.query(errors.completeA === undefined && errors.startB === undefined ? 'COMMIT' : 'ROLLBACK');
    expect(errors).toEqual({ task: undefined, completeA: undefined, startB: undefined });
    const runs = await db.pool.query(`SELECT id, status, name FROM workflow_index.workflow_instances WHERE id IN ('DL-A', 'DL-B', 'DL-C') ORDER BY id`);
    expect(runs.rows).toEqual([{ id: 'DL-A', status: 'COMPLETED', name: 'wf' }, { id: 'DL-B', status: 'RUNNING', name: 'wf' }, { id: 'DL-C', status: 'RUNNING', name: null }]);
    const executions = await db.pool.query(`SELECT instance_id, status FROM workflow_index.task_executions WHERE instance_id IN ('DL-A', 'DL-B', 'DL-C') ORDER BY instance_id`);
    expect(executions.rows.map((r: { instance_id: string }) => r.instance_id)).toEqual(['DL-A', 'DL-B', 'DL-C']);
  });

  it('the forwarder inserts (tag, time, data) and cannot choose raw ids', async () => {
    const forwarder = await connect(forwarderRole);
    await forwarder.query(`INSERT INTO workflow_raw.workflow_events_raw (tag, time, data) VALUES ('t', now(), $1)`, [JSON.stringify(started('LK4'))]);
    const before = await db.pool.query(`SELECT max(id)::int AS id FROM workflow_raw.workflow_events_raw`);
    for (const sql of [
      `INSERT INTO workflow_raw.workflow_events_raw (tag, time, data, id) OVERRIDING SYSTEM VALUE VALUES ('t', now(), '{}', 999999999)`,
      `INSERT INTO workflow_raw.task_events_raw (id, tag, time, data) OVERRIDING SYSTEM VALUE VALUES (5, 't', now(), '{}')`,
    ]) {
      await expect(forwarder.query(sql), sql).rejects.toThrow(/permission denied/);
    }
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [started('LK5')]));
    const after = await db.pool.query(`SELECT max(id)::int AS id FROM workflow_raw.workflow_events_raw`);
    expect(after.rows[0].id).toBe(before.rows[0].id + 1);
  });

  it("a forwarder that breaks its own search_path only fails its own statements, which succeed again once it is restored; the normalizer is unaffected", async () => {
    const forwarder = await connect(forwarderRole);
    await forwarder.query('SET search_path = public');
    await expect(forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [started('LK6')]))).rejects.toThrow(/does not exist/);
    await forwarder.query('SET search_path = workflow_raw, public');
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [started('LK6')]));
    const row = await db.pool.query(`SELECT name FROM workflow_index.workflow_instances WHERE id = 'LK6'`);
    expect(row.rows).toEqual([{ name: 'wf' }]);
  });
});
