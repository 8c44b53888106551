// A bad event never blocks good ones: the Fluent Bit statement that carries it succeeds, every good event in it
// is normalized, and the bad one stays in the raw table and is recorded in ingest_errors with the reason.
import { afterAll, expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import { ADMIN_URL, ensureLoginRole, type TestDatabase } from './support/test-database.js';
import { snapshot, type Event } from './support/load-events.js';
import { fixtureEvents } from '@workflow-index/testkit';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';
import pg from 'pg';
import { randomBytes } from 'node:crypto';

const good = (id: string, extra: Event = {}): Event => ({
  eventType: 'io.serverlessworkflow.workflow.started.v1', instanceId: id, timestamp: 1.778577243512378e9,
  startTime: 1.778577243512378e9, status: 'RUNNING', workflowName: 'wf', workflowNamespace: 'ns', workflowVersion: '1', ...extra,
});
const task = (id: string, extra: Event = {}): Event => ({
  eventType: 'io.serverlessworkflow.task.started.v1', instanceId: id, timestamp: 1.778577243512566e9, startTime: 1.778577243512566e9,
  status: 'RUNNING', taskName: 't', taskPosition: 'do/0/t', taskExecutionId: 'b5e00e03-e3ab-32b2-a71e-d7e82c8b02f4', ...extra,
});

// [event, expected reason (regex)]
const BAD: ReadonlyArray<readonly [Event | unknown, RegExp]> = [
  [{ eventType: 'io.serverlessworkflow.workflow.started.v1', timestamp: 1.7e9, status: 'RUNNING', workflowName: 'x' }, /missing instanceId/],
  [good(''), /instanceId must not be empty/],
  [good('BAD-TS', { timestamp: 'yesterday' }), /timestamp "yesterday" is not a valid time/],
  [good('BAD-TS-NO-OFFSET', { timestamp: '2026-05-12T09:14:03.512' }), /timestamp .* is not a valid time/],
  [good('BAD-TS-MISSING', { timestamp: undefined }), /missing timestamp/],
  [good('BAD-START', { startTime: { at: 1 } }), /startTime .* is not a valid time/],
  [good(42 as unknown as string), /instanceId must be a string, got number/],
  [good('BAD-NAME-TYPE', { workflowName: ['x'] }), /workflowName must be a string, got array/],
  [good('BAD-NO-NAME', { workflowName: undefined }), /missing workflowName/],
  [good('X'.repeat(300)), /instanceId is longer than 255 bytes/],
  [good('BAD-NAMESPACE-LONG', { workflowNamespace: 'n'.repeat(5000) }), /workflowNamespace is longer than 512 bytes/],
  [good('BAD-TYPE', { eventType: 'io.serverlessworkflow.workflow.exploded.v1' }), /unknown eventType/],
  [good('BAD-TYPE-2', { eventType: 'com.example.something' }), /unknown eventType/],
  [good('BAD-TYPE-3', { eventType: 17 }), /eventType must be a string/],
  [{ error: 'Failed to serialize event: boom' }, /missing eventType/],
  [good('BAD-FAULT', { eventType: 'io.serverlessworkflow.workflow.faulted.v1', status: 'FAULTED', error: { status: 'five hundred' } }), /error.status must be an integer/],
  [good('BAD-FAULT-2', { eventType: 'io.serverlessworkflow.workflow.faulted.v1', status: 'FAULTED', error: 'boom' }), /error must be an object/],
  [good('BAD-STATUS', { eventType: 'io.serverlessworkflow.workflow.status-changed.v1', status: undefined }), /missing status/],
  [task('BAD-TASK', { taskPosition: undefined }), /missing taskPosition/],
  [task('BAD-TASK-2', { taskPosition: 'p'.repeat(2000) }), /taskPosition is longer than 1024 bytes/],
  [task('BAD-TASK-3', { eventType: 'io.serverlessworkflow.task.completed.v1', endTime: 'soon' }), /endTime "soon" is not a valid time/],
  [task('BAD-TASK-CJK', { taskName: '東'.repeat(300) }), /taskName is longer than 512 bytes/], // 300 characters, 900 bytes
  [task('BAD:COLON'), /instanceId contains ':'/],
  [task('BAD-TASK-4', { eventType: 'io.serverlessworkflow.task.faulted.v1', status: 'FAILED', error: { status: 1.5 } }), /error.status must be an integer/],
];

describePostgres('bad events (real PostgreSQL, forwarder role)', () => {
  let db: TestDatabase;
  let forwarder: pg.Client;
  const role = `wi_fwd_${randomBytes(4).toString('hex')}`;
  it.beforeAll(async ({ database }) => {
    db = database;
    await ensureLoginRole(role, 'workflow_index_forwarder');
    forwarder = new pg.Client({ connectionString: db.urlAs(role, 'test-password') });
    await forwarder.connect();
  });
  afterAll(async () => {
    await forwarder?.end();
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
    await admin.end();
  });

  it('one statement with good and bad events: the statement succeeds, good events are normalized, bad ones recorded', async () => {
    const fixtures = fixtureEvents();
    const workflowGood = fixtures.filter((e) => String(e['eventType']).includes('.workflow.'));
    const taskGood = fixtures.filter((e) => String(e['eventType']).includes('.task.'));
    // Interleave the bad events between good ones, all in ONE statement per table, as one Fluent Bit flush.
    const mixed: unknown[] = [];
    workflowGood.forEach((e, i) => {
      mixed.push(e);
      const bad = BAD[i];
      if (bad && !JSON.stringify(bad[0]).includes('task.')) mixed.push(bad[0]);
    });
    const mixedTasks: unknown[] = [];
    taskGood.forEach((e, i) => {
      mixedTasks.push(e);
      const bad = BAD.filter(([b]) => JSON.stringify(b).includes('task.'))[i];
      if (bad) mixedTasks.push(bad[0]);
    });
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', mixed as Event[], () => 1.7785772e9));
    await forwarder.query(fluentBitInsertStatement('task_events_raw', 'workflow.task', mixedTasks as Event[], () => 1.7785772e9));

    const state = await snapshot(db.pool);
    expect(state.instances.filter((r) => !r.placeholder).map((r) => r.id).sort()).toEqual([...new Set(fixtures.map((e) => String(e['instanceId'])))].sort());
    expect(state.tasks).toHaveLength(22);

    const raw = await db.pool.query(`SELECT (SELECT count(*) FROM workflow_raw.workflow_events_raw)::int + (SELECT count(*) FROM workflow_raw.task_events_raw)::int AS n`);
    expect(raw.rows[0].n).toBe(80 + BAD.length);

    const errors = await db.pool.query<{ reason: string; raw_table: string; raw_id: string; data: unknown }>(
      `SELECT e.reason, e.raw_table, e.raw_id, coalesce(w.data, t.data) AS data
       FROM workflow_index.ingest_errors e
       LEFT JOIN workflow_raw.workflow_events_raw w ON e.raw_table = 'workflow_events_raw' AND w.id = e.raw_id
       LEFT JOIN workflow_raw.task_events_raw t ON e.raw_table = 'task_events_raw' AND t.id = e.raw_id
       ORDER BY e.id`);
    expect(errors.rows).toHaveLength(BAD.length);
    // Every bad event is recorded with its own reason and a reference to its raw row.
    for (const [event, reason] of BAD) {
      const match = errors.rows.filter((r) => reason.test(r.reason));
      expect(match.length, `reason ${reason} for ${JSON.stringify(event).slice(0, 80)}`).toBeGreaterThanOrEqual(1);
      expect(match.every((r) => r.data !== null)).toBe(true);
    }
  });

  it('a raw row whose data is not an object (written by hand, not by Fluent Bit) is recorded, not raised', async () => {
    await forwarder.query(`INSERT INTO workflow_events_raw (tag, time, data) VALUES ('manual', now(), '[1,2,3]'), ('manual', now(), '"text"'), ('manual', now(), NULL)`);
    const errors = await db.pool.query(`SELECT reason FROM workflow_index.ingest_errors WHERE raw_table = 'workflow_events_raw' AND reason LIKE 'event is not%' ORDER BY id`);
    expect(errors.rows.map((r) => r.reason)).toEqual(['event is not a JSON object (got array)', 'event is not a JSON object (got string)', 'event is not a JSON object (got nothing)']);
  });

  it('a huge instanceId never reaches a btree index (no "index row size" failure for the batch)', async () => {
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [good('Y'.repeat(20_000)), good('OK-AFTER-HUGE')]));
    const ok = await db.pool.query(`SELECT status FROM workflow_index.workflow_instances WHERE id = 'OK-AFTER-HUGE'`);
    expect(ok.rows).toEqual([{ status: 'RUNNING' }]);
  });
});
