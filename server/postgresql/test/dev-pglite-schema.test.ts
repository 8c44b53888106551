// The migrations on the embedded development database (PGlite behind pglite-socket): the same schema, the same
// triggers, the same privilege model as on a PostgreSQL server. PGlite has one session, so roles are taken with
// SET ROLE instead of logging in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { startEmbeddedDatabase } from '../src/dev-database.js';
import type { DevDatabase } from '../src/dev-database.js';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';
import { loadMigrations, migrate } from '../src/migrator.js';
import { createPool } from '../src/postgresql-pool.js';

const WF = 'io.serverlessworkflow.workflow.';

describe('the schema on PGlite (development mode)', () => {
  let dir: string;
  let database: DevDatabase;
  let pool: pg.Pool;
  let client: pg.PoolClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wi-pglite-schema-'));
    database = await startEmbeddedDatabase(join(dir, 'data'));
    pool = createPool({ connection: { ...database.connection, max: 1, idleTimeoutMillis: 0 }, queryTimeoutMs: 30_000, connectTimeoutMs: 10_000, readOnly: false });
    client = await pool.connect();
  });
  afterAll(async () => {
    client?.release();
    await pool?.end();
    await database?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies every migration (advisory lock, DO blocks, plpgsql, triggers, roles, grants), then skips them', async () => {
    const first = await migrate(client);
    expect(first.map((s) => s.status)).toEqual(loadMigrations().map(() => 'applied'));
    const second = await migrate(client);
    expect(second.map((s) => s.status)).toEqual(loadMigrations().map(() => 'skipped'));
    const roles = await client.query<{ rolname: string }>(`SELECT rolname FROM pg_roles WHERE rolname LIKE 'workflow_index_%' ORDER BY 1`);
    expect(roles.rows.map((r) => r.rolname)).toEqual(['workflow_index_forwarder', 'workflow_index_pruner', 'workflow_index_reader']);
  });

  it('normalizes events written as the forwarder role through the Fluent Bit statement, and enforces both roles', async () => {
    await client.query('SET ROLE workflow_index_forwarder');
    await client.query('SET search_path = workflow_raw');
    try {
      await client.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [
        { instanceId: 'pgl-1', eventType: `${WF}started.v1`, timestamp: '2026-01-01T00:00:01.000001Z', startTime: '2026-01-01T00:00:01.000001Z', workflowName: 'flow', workflowNamespace: 'ns', status: 'RUNNING', input: { a: 1 } },
        { instanceId: 'pgl-1', eventType: `${WF}completed.v1`, timestamp: '2026-01-01T00:00:02Z', endTime: '2026-01-01T00:00:02Z', status: 'COMPLETED', output: { b: true } },
        { eventType: `${WF}started.v1`, timestamp: 1 }, // no instanceId: recorded as an ingest error, the batch still commits
      ]));
      await expect(client.query('SELECT * FROM workflow_index.workflow_instances')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.query('RESET search_path');
      await client.query('RESET ROLE');
    }

    await client.query('SET ROLE workflow_index_reader');
    try {
      const rows = await client.query<{ id: string; status: string; start: string; output: string }>(
        `SELECT id, status, to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS start, output::text AS output
         FROM workflow_index.workflow_instances`);
      expect(rows.rows).toEqual([{ id: 'pgl-1', status: 'COMPLETED', start: '2026-01-01T00:00:01.000001Z', output: '{"b": true}' }]);
      const stats = await client.query<{ workflow_raw_events: string; ingest_errors: string; instances: string }>(
        'SELECT workflow_raw_events, ingest_errors, instances FROM workflow_index.ingest_stats()');
      expect(stats.rows[0]).toEqual({ workflow_raw_events: '3', ingest_errors: '1', instances: '1' });
      await expect(client.query('DELETE FROM workflow_index.workflow_instances')).rejects.toMatchObject({ code: '42501' });
      await expect(client.query(`INSERT INTO workflow_raw.workflow_events_raw (data) VALUES ('{}')`)).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.query('RESET ROLE');
    }
  });
});
