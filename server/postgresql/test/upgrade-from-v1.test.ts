// Upgrading a database that ran the v1 normalizer (record time in the event identity) is one `migrate` with no
// manual step: the raw events are kept, and every normalized row is rebuilt by the current rules, so the
// duplicate executions v1 created from re-deliveries with other record times disappear.
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import type pg from 'pg';
import { loadMigrations, loadNormalizer, migrate, migrationStatus, type NormalizerResult } from '../src/migrator.js';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';
import { definitionsFingerprint } from '../src/normalizer-fingerprint.js';
import { createTestDatabase, type TestDatabase } from './support/test-database.js';
import { loadEvents, snapshot, type Event } from './support/load-events.js';
import { fixtureEvents } from '@workflow-index/testkit';

const it = postgresTest({ migrated: false });

function deliver(events: readonly Event[], recordTimeShift: number): string[] {
  const byTable = new Map<string, Event[]>();
  for (const e of events) {
    const table = String(e['eventType']).includes('.task.') ? 'workflow_raw.task_events_raw' : 'workflow_raw.workflow_events_raw';
    byTable.set(table, [...(byTable.get(table) ?? []), e]);
  }
  return [...byTable].map(([table, rows]) =>
    fluentBitInsertStatement(table, 'workflow.x', rows, (r) => Number(r['timestamp']) + recordTimeShift));
}

describePostgres('upgrade from schema v1 with data (real PostgreSQL)', () => {
  let v1: TestDatabase;
  let clean: TestDatabase;
  let client: pg.PoolClient;
  it.beforeAll(async ({ database }) => {
    v1 = database;
    clean = await createTestDatabase();
    client = await v1.pool.connect();
  });
  afterAll(async () => {
    client?.release();
    await clean?.drop();
  });

  it('keeps the raw events, rebuilds every row by the current rules, and serves exactly one clean delivery', async () => {
    // The v1 release: migration 0001 with its own inline normalizer (no definition files existed).
    const v1Migrations = loadMigrations().filter((m) => m.version === 1);
    await migrate(client, { migrations: v1Migrations, normalizer: { files: [], checksum: 'v1' } });
    const events = fixtureEvents();
    // Fluent Bit delivered everything, then a backfill delivered it again with other record times.
    for (const sql of [...deliver(events, 0.000001), ...deliver(events, 3600)]) await client.query(sql);
    const raw = await client.query(`SELECT (SELECT count(*) FROM workflow_raw.workflow_events_raw) + (SELECT count(*) FROM workflow_raw.task_events_raw) AS n`);
    expect(Number(raw.rows[0].n)).toBe(events.length * 2);
    const beforeUpgrade = await snapshot(v1.pool, undefined, { olderSchema: true });

    await loadEvents(clean.pool, events);
    const expected = await snapshot(clean.pool);
    // v1's record-time identity turned the second delivery into extra executions.
    expect(beforeUpgrade.tasks.length).toBeGreaterThan(expected.tasks.length);

    let normalizer: NormalizerResult | undefined;
    const steps = await migrate(client, { onNormalizer: (r) => (normalizer = r) });
    expect(steps.map((s) => [s.version, s.status])).toEqual(loadMigrations().map((m) => [m.version, m.version === 1 ? 'skipped' : 'applied']));
    expect(normalizer).toMatchObject({ status: 'applied', files: loadNormalizer().files.length, rebuilt: true, rebuiltEvents: events.length * 2 });
    expect(await snapshot(v1.pool)).toEqual(expected);
    expect((await migrationStatus(client)).normalizerUpToDate).toBe(true);

    // After the upgrade, ingestion goes on through the new triggers; the raw data column keeps the text as sent.
    for (const sql of deliver(events.slice(0, 10), 7200)) await client.query(sql);
    expect(await snapshot(v1.pool)).toEqual(expected);
    const type = await client.query(`SELECT data_type FROM information_schema.columns WHERE table_schema = 'workflow_raw' AND table_name = 'task_events_raw' AND column_name = 'data'`);
    expect(type.rows).toEqual([{ data_type: 'json' }]);
  });

  it('a later release re-applies changed definitions, rebuilds again only with a new rules version; an unchanged one does nothing', async () => {
    const current = loadNormalizer();
    const results: NormalizerResult[] = [];
    await migrate(client, { onNormalizer: (r) => results.push(r) });
    const files = [...current.files, { file: '999-probe.sql', sql: 'SELECT 1;' }];
    const changed = { files, checksum: definitionsFingerprint(files), rulesVersion: current.rulesVersion! };
    await migrate(client, { normalizer: changed, onNormalizer: (r) => results.push(r) });
    await migrate(client, { normalizer: { ...changed, rulesVersion: current.rulesVersion! + 1 }, onNormalizer: (r) => results.push(r) });
    expect(results.map((r) => r.status)).toEqual(['skipped', 'applied', 'applied']);
    expect(results[1]).toMatchObject({ rebuilt: false, rebuiltEvents: 0 });
    expect(results[2]).toMatchObject({ rebuilt: true });
    expect((results[2] as { rebuiltEvents: number }).rebuiltEvents).toBeGreaterThan(0);
  });
});
