// No login can stall or skew ingestion: the normalizer serializes on instance-row locks that only the owner can
// take (no advisory keys another login could guess), a flush that waits too long gives up with a retryable error
// instead of wedging the ones behind it, and the forwarder writes (tag, time, data) and nothing else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { ADMIN_URL, createTestDatabase, ensureLoginRole, postgresReachable, type TestDatabase } from './support/test-database.js';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';
import type { Event } from './support/load-events.js';

const available = await postgresReachable();
const T0 = 1778577243.5;
const started = (id: string): Event => ({
  eventType: 'io.serverlessworkflow.workflow.started.v1', instanceId: id, timestamp: T0, startTime: T0, status: 'RUNNING',
  workflowName: 'wf', workflowNamespace: 'ns', workflowVersion: '1',
});
const task = (id: string, action: string, t: number): Event => ({
  eventType: `io.serverlessworkflow.task.${action}.v1`, instanceId: id, timestamp: t, taskName: 'step', taskPosition: 'do/0/step',
  status: action === 'started' ? 'RUNNING' : 'COMPLETED', ...(action === 'started' ? { startTime: t } : { endTime: t }),
});

describe.skipIf(!available)('locks and grants no login can abuse (real PostgreSQL, real logins)', () => {
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
  beforeAll(async () => {
    db = await createTestDatabase();
    await ensureLoginRole(forwarderRole, 'workflow_index_forwarder');
    await ensureLoginRole(readerRole, 'workflow_index_reader');
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await db?.drop();
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
