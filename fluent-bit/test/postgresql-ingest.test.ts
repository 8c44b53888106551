// The rows the modelled pipeline produces, sent exactly as Fluent Bit's pgsql outputs send them (start-up
// CREATE TABLE IF NOT EXISTS, then one INSERT per chunk) as a forwarder login to a freshly migrated database,
// normalize into the reference stream's 8 instances and 22 task executions.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarderDatabase, postgresReachable, type ForwarderDatabase, type TestDatabase } from '@workflow-index/postgresql/testing';
import { loadFluentBitConfig } from '../model/load-config.js';
import { createPipeline } from '../model/pipeline.js';
import { flushStatements, startupStatements } from '../model/pgsql-output.js';
import { LARGE_EVENT_INSTANCE, workflowAppOutput } from '../../e2e/support/workflow-app-output.js';
import { podLogPath, criLogFile } from '@workflow-index/testkit';
import { EXPECTED_RAW_ROWS } from '../../e2e/support/expected-index.js';
import { deployedEnvironment } from './support/deployed-environment.js';

const available = await postgresReachable();

describe.skipIf(!available)('Fluent Bit pgsql output into a migrated database (real PostgreSQL)', () => {
  const app = workflowAppOutput();
  const { config, parsers } = loadFluentBitConfig('postgresql');
  const pipeline = createPipeline({
    config,
    parsers,
    env: deployedEnvironment(),
    podMetadata: () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
  });
  const result = pipeline.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), criLogFile(app).content);
  let forwarder: ForwarderDatabase;
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    forwarder = await createForwarderDatabase('wi_fb_forwarder');
    ({ db, client } = forwarder);
  });
  afterAll(async () => forwarder?.drop());

  it('runs the outputs\' start-up CREATE TABLE IF NOT EXISTS as the forwarder, as a no-op on the migrated raw tables', async () => {
    expect(startupStatements(pipeline)).toEqual([
      'CREATE TABLE IF NOT EXISTS "workflow_events_raw" (tag varchar, time timestamp, data jsonb);',
      'CREATE TABLE IF NOT EXISTS "task_events_raw" (tag varchar, time timestamp, data jsonb);',
    ]);
    for (const sql of [...startupStatements(pipeline), 'CREATE TABLE IF NOT EXISTS workflow_events_raw (tag varchar, time timestamp, data jsonb)']) {
      await client.query(sql);
    }
    const tables = await db.pool.query(`SELECT table_schema || '.' || table_name AS t FROM information_schema.tables WHERE table_name LIKE '%events_raw' ORDER BY 1`);
    expect(tables.rows.map((r: { t: string }) => r.t)).toEqual(['workflow_raw.task_events_raw', 'workflow_raw.workflow_events_raw']);
  });

  it('writes every chunk and normalizes the stream into 8 instances and 22 task executions, nothing rejected', async () => {
    for (const flush of flushStatements(pipeline, result.delivered, 7)) await client.query(flush.sql);
    const counts = await db.pool.query(`SELECT
      (SELECT count(*) FROM workflow_raw.workflow_events_raw)::int AS workflow_raw,
      (SELECT count(*) FROM workflow_raw.task_events_raw)::int AS task_raw,
      (SELECT count(*) FROM workflow_index.ingest_errors)::int AS errors,
      (SELECT count(*) FROM workflow_index.workflow_instances WHERE started_event_time IS NOT NULL)::int AS instances,
      (SELECT count(*) FROM workflow_index.task_executions)::int AS tasks`);
    expect(counts.rows[0]).toEqual({ workflow_raw: EXPECTED_RAW_ROWS.workflow, task_raw: EXPECTED_RAW_ROWS.task, errors: 0, instances: 8, tasks: 22 });
  });

  it('stores the tag, the runtime timestamp as `time`, and the whole record (event, runtime fields, pod metadata) as `data`', async () => {
    const tags = await db.pool.query(`SELECT DISTINCT tag FROM workflow_raw.workflow_events_raw UNION ALL SELECT DISTINCT tag FROM workflow_raw.task_events_raw`);
    expect(tags.rows.map((r: { tag: string }) => r.tag)).toEqual(['workflow-index.workflow', 'workflow-index.task']);
    const first = await db.pool.query(`SELECT to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS time, data FROM workflow_raw.workflow_events_raw ORDER BY id LIMIT 1`);
    const delivered = result.delivered.find((d) => d.output === 'workflow_events')!;
    expect(`${first.rows[0].time}000Z`).toBe(delivered.record['time']);
    expect(first.rows[0].data).toMatchObject({ stream: 'stdout', kubernetes: { pod_name: 'order-app-1', namespace_name: 'workflows', labels: { app: 'order-app' } }, wi_record_time: delivered.time });
  });

  it('keeps the joined >16 KiB event intact down to the normalized input', async () => {
    const printed = app.find((l) => l.text.includes(LARGE_EVENT_INSTANCE) && l.text.includes('workflow.started'))!;
    const row = await db.pool.query(`SELECT input FROM workflow_index.workflow_instances WHERE id = $1`, [LARGE_EVENT_INSTANCE]);
    expect(row.rows[0].input).toEqual((JSON.parse(printed.text) as { input: unknown }).input);
  });
});
