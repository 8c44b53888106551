// Least-privilege roles and the two PostgreSQL 15 pitfalls of the Fluent Bit pgsql output, with real login roles.
import { afterAll, expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { ADMIN_URL, ensureLoginRole, type TestDatabase } from './support/test-database.js';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';
import { fixtureEvents } from '@workflow-index/testkit';

const FLUENT_BIT_STARTUP = 'CREATE TABLE IF NOT EXISTS workflow_events_raw (tag varchar, time timestamp, data jsonb)';

describePostgres('database roles (real PostgreSQL)', () => {
  let db: TestDatabase;
  const suffix = randomBytes(4).toString('hex');
  const forwarderRole = `wi_fwd_${suffix}`;
  const readerRole = `wi_read_${suffix}`;
  const bareRole = `wi_bare_${suffix}`; // a forwarder without the search_path setting
  let forwarder: pg.Client;
  let reader: pg.Client;
  it.beforeAll(async ({ database }) => {
    db = database;
    await ensureLoginRole(forwarderRole, 'workflow_index_forwarder');
    await ensureLoginRole(readerRole, 'workflow_index_reader');
    await ensureLoginRole(bareRole, 'workflow_index_reader');
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`REVOKE workflow_index_reader FROM ${bareRole}`);
    await admin.query(`GRANT workflow_index_forwarder TO ${bareRole}`);
    await admin.end();
    forwarder = new pg.Client({ connectionString: db.urlAs(forwarderRole, 'test-password') });
    reader = new pg.Client({ connectionString: db.urlAs(readerRole, 'test-password') });
    await forwarder.connect();
    await reader.connect();
  });
  afterAll(async () => {
    await forwarder?.end();
    await reader?.end();
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    for (const r of [forwarderRole, readerRole, bareRole]) await admin.query(`DROP ROLE IF EXISTS ${r}`).catch(() => undefined);
    await admin.end();
  });

  it("Fluent Bit's start-up CREATE TABLE IF NOT EXISTS succeeds as a no-op for the forwarder (CREATE on workflow_raw, search_path)", async () => {
    await expect(forwarder.query(FLUENT_BIT_STARTUP)).resolves.toBeDefined();
    const tables = await db.pool.query(`SELECT table_schema FROM information_schema.tables WHERE table_name = 'workflow_events_raw'`);
    expect(tables.rows).toEqual([{ table_schema: 'workflow_raw' }]);
  });

  it('without the search_path the same statement fails on schema public: the pitfall the setup avoids', async () => {
    const bare = new pg.Client({ connectionString: db.urlAs(bareRole, 'test-password') });
    await bare.connect();
    try {
      await expect(bare.query(FLUENT_BIT_STARTUP)).rejects.toThrow(/permission denied for schema public/);
    } finally {
      await bare.end();
    }
  });

  it('the forwarder inserts raw rows (the triggers run as their owner) and can do nothing else', async () => {
    const events = fixtureEvents().filter((e) => String(e['eventType']).includes('.workflow.'));
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', events));
    const served = await db.pool.query(`SELECT count(*)::int AS n FROM workflow_index.workflow_instances`);
    expect(served.rows[0].n).toBe(8);
    for (const sql of [
      'SELECT * FROM workflow_index.workflow_instances',
      'SELECT * FROM workflow_raw.workflow_events_raw',
      'DELETE FROM workflow_raw.workflow_events_raw',
      'UPDATE workflow_raw.task_events_raw SET tag = tag',
      "INSERT INTO workflow_index.workflow_instances (id, status, status_terminal, status_event_time, status_rank) VALUES ('x', 'RUNNING', false, now(), 1)",
      "SELECT workflow_index.apply_events('x', ARRAY[1]::bigint[], ARRAY['{}'::jsonb], ARRAY[now()])",
    ]) {
      await expect(forwarder.query(sql), sql).rejects.toThrow(/permission denied/);
    }
  });

  it('objects the forwarder creates in workflow_raw never run inside the owner\'s SECURITY DEFINER functions', async () => {
    // The forwarder needs CREATE on workflow_raw (Fluent Bit's start-up statement). A planted aggregate that
    // shadows a built-in must not be picked up by ingest_stats() (which the reader calls on every scrape).
    await forwarder.query(`CREATE FUNCTION workflow_raw.planted(state bigint, v bigint) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'planted code ran as %', current_user; END $$`);
    await forwarder.query(`CREATE AGGREGATE workflow_raw.max(bigint) (SFUNC = workflow_raw.planted, STYPE = bigint)`);
    await forwarder.query(`CREATE FUNCTION workflow_raw.count() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'planted code ran'; END $$`);
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', fixtureEvents().slice(0, 2)));
    const stats = await reader.query('SELECT workflow_raw_events::int FROM workflow_index.ingest_stats()');
    expect(stats.rows[0].workflow_raw_events).toBeGreaterThan(0);
    await forwarder.query('DROP AGGREGATE workflow_raw.max(bigint); DROP FUNCTION workflow_raw.planted(bigint, bigint); DROP FUNCTION workflow_raw.count()');
  });

  it('the reader selects the normalized tables, ingestion health and run histories, and nothing else', async () => {
    const rows = await reader.query('SELECT count(*)::int AS n FROM workflow_index.workflow_instances');
    expect(rows.rows[0].n).toBe(8);
    await expect(reader.query('SELECT count(*) FROM workflow_index.task_executions')).resolves.toBeDefined();
    const stats = await reader.query('SELECT instances::int FROM workflow_index.ingest_stats()');
    expect(stats.rows[0].instances).toBe(8);
    // A run's event history (WorkflowInstance.events) through its function, not through the tables.
    const history = await reader.query("SELECT count(*)::int AS n FROM workflow_index.events_of_instances(ARRAY(SELECT id FROM workflow_index.workflow_instances), true)");
    expect(history.rows[0].n).toBeGreaterThan(8);
    for (const sql of [
      'SELECT * FROM workflow_raw.workflow_events_raw',
      'SELECT * FROM workflow_index.task_events',
      'SELECT * FROM workflow_index.ingest_errors',
      "INSERT INTO workflow_raw.workflow_events_raw (tag, time, data) VALUES ('t', now(), '{}')",
      "UPDATE workflow_index.workflow_instances SET status = 'COMPLETED'",
      'DELETE FROM workflow_index.task_executions',
      'CREATE TABLE workflow_index.x (a int)',
    ]) {
      await expect(reader.query(sql), sql).rejects.toThrow(/permission denied/);
    }
  });
});
