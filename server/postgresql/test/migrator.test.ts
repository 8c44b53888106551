import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureEvents } from '@workflow-index/testkit';
import { loadMigrations, loadNormalizer, migrate, migrationStatus, MigrationError, NORMALIZER_DIR, readRulesVersion, type NormalizerResult } from '../src/migrator.js';
import { normalizeSqlText } from '../src/normalizer-fingerprint.js';
import { loadEvents, snapshot } from './support/load-events.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/test-database.js';

const available = await postgresReachable();

describe.skipIf(!available)('migrator (real PostgreSQL)', () => {
  let db: TestDatabase;
  let client: pg.PoolClient;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
    client = await db.pool.connect();
  });
  afterAll(async () => {
    client?.release();
    await db?.drop();
  });

  it('applies every migration once, then reports them skipped', async () => {
    const first = await migrate(client);
    expect(first.map((s) => s.status)).toEqual(loadMigrations().map(() => 'applied'));
    const second = await migrate(client);
    expect(second.map((s) => s.status)).toEqual(loadMigrations().map(() => 'skipped'));
    const status = await migrationStatus(client);
    expect(status.pending).toEqual([]);
    expect(status.applied.map((a) => a.version)).toEqual(loadMigrations().map((m) => m.version));
  });

  it('dry run lists pending SQL without executing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-mig-'));
    for (const m of loadMigrations()) writeFileSync(join(dir, m.file), m.sql);
    writeFileSync(join(dir, '9999_extra.sql'), 'CREATE TABLE workflow_index.dry_run_probe (x int);');
    const steps = await migrate(client, { dryRun: true, migrations: loadMigrations(dir) });
    const last = steps.at(-1);
    expect(last).toMatchObject({ version: 9999, status: 'pending' });
    expect(last && 'sql' in last ? last.sql : '').toContain('dry_run_probe');
    const probe = await client.query(`SELECT to_regclass('workflow_index.dry_run_probe') AS t`);
    expect(probe.rows[0].t).toBeNull();
  });

  it('refuses a changed, already-applied migration and names the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-mig-'));
    const [first, ...rest] = loadMigrations();
    writeFileSync(join(dir, first!.file), first!.sql + '\n-- edited after release\n');
    for (const m of rest) writeFileSync(join(dir, m.file), m.sql);
    await expect(migrate(client, { migrations: loadMigrations(dir) })).rejects.toThrow(MigrationError);
    await expect(migrate(client, { migrations: loadMigrations(dir) })).rejects.toThrow(first!.file);
  });

  it('serializes concurrent migrators with the advisory lock', async () => {
    const fresh = await createTestDatabase({ migrated: false });
    try {
      const clients = await Promise.all([fresh.pool.connect(), fresh.pool.connect(), fresh.pool.connect()]);
      const results = await Promise.all(clients.map((c) => migrate(c)));
      clients.forEach((c) => c.release());
      const applied = results.flat().filter((s) => s.status === 'applied');
      expect(applied).toHaveLength(loadMigrations().length);
    } finally {
      await fresh.drop();
    }
  });
});

/** A copy of the normalizer folder, with `change` applied to every definition file and its RULES_VERSION set. */
function normalizerCopy(change: (sql: string, file: string) => string, rulesVersion: number = readRulesVersion()!): string {
  const dir = mkdtempSync(join(tmpdir(), 'wi-normalizer-'));
  cpSync(NORMALIZER_DIR, dir, { recursive: true });
  for (const f of loadNormalizer().files) writeFileSync(join(dir, f.file), change(f.sql, f.file));
  writeFileSync(join(dir, 'RULES_VERSION'), readFileSync(join(NORMALIZER_DIR, 'RULES_VERSION'), 'utf8').replace(/^\d+$/m, String(rulesVersion)));
  return dir;
}

/** The row versions (xmin) of the normalized rows and of the normalizer's history row: unchanged iff never written. */
async function rowVersions(client: pg.ClientBase): Promise<{ instances: string[]; tasks: string[]; history: string }> {
  const res = await client.query<{ instances: string[]; tasks: string[]; history: string }>(
    `SELECT (SELECT array_agg(xmin::text ORDER BY id) FROM workflow_index.workflow_instances) AS instances,
            (SELECT array_agg(xmin::text ORDER BY id) FROM workflow_index.task_executions) AS tasks,
            (SELECT xmin::text FROM workflow_index.normalizer_definitions) AS history`,
  );
  return res.rows[0]!;
}

describe.skipIf(!available)('migrator: the rules version decides the rebuild (real PostgreSQL)', () => {
  let db: TestDatabase;
  let client: pg.PoolClient;
  const version = readRulesVersion()!;
  const migrateWith = async (dir: string): Promise<NormalizerResult> => {
    let result: NormalizerResult | undefined;
    await migrate(client, { normalizer: loadNormalizer(dir), onNormalizer: (r) => (result = r) });
    return result!;
  };
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false, prefix: 'wi_rules_version' });
    client = await db.pool.connect();
    await migrate(client);
    await loadEvents(db.pool, fixtureEvents());
  });
  afterAll(async () => {
    client?.release();
    await db?.drop();
  });

  it('a comment or whitespace edit of every definition file changes nothing in the database: no re-apply, no rebuild', async () => {
    // Every file without its comments and line breaks, then with a comment after each statement.
    const dir = normalizerCopy((sql) => normalizeSqlText(sql).replaceAll('$$;', () => '$$;\n  -- a new note; "quoted"\n/* and a block */\n'));
    expect(loadNormalizer(dir).files.map((f) => f.sql)).not.toEqual(loadNormalizer().files.map((f) => f.sql));
    expect(loadNormalizer(dir).checksum).toBe(loadNormalizer().checksum);
    const before = await rowVersions(client);
    expect(before.tasks.length).toBeGreaterThan(0);
    expect(await migrateWith(dir)).toEqual({ status: 'skipped' });
    expect(await rowVersions(client)).toEqual(before);
    expect((await migrate(client, { dryRun: true, normalizer: loadNormalizer(dir) })).every((s) => s.status === 'skipped')).toBe(true);
  });

  it('changed definitions under the same rules version are re-applied without a rebuild', async () => {
    const dir = normalizerCopy((sql, file) => (file === '020-statuses.sql' ? sql.replace('SELECT CASE upper(s)', 'SELECT CASE upper((s))') : sql));
    writeFileSync(join(dir, '130-probe.sql'), 'CREATE OR REPLACE FUNCTION workflow_index.rules_version_probe() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;');
    const before = await rowVersions(client);
    const rows = await snapshot(db.pool);
    let planned: NormalizerResult | undefined;
    await migrate(client, { dryRun: true, normalizer: loadNormalizer(dir), onNormalizer: (r) => (planned = r) });
    expect(planned).toMatchObject({ status: 'pending', rebuild: false });
    expect(await migrateWith(dir)).toMatchObject({ status: 'applied', rebuilt: false, rebuiltEvents: 0 });
    const source = await client.query(`SELECT prosrc FROM pg_proc WHERE proname = 'normalize_workflow_status'`);
    expect(source.rows[0].prosrc).toContain('upper((s))');
    expect((await client.query('SELECT workflow_index.rules_version_probe() AS one')).rows).toEqual([{ one: 1 }]);
    const after = await rowVersions(client);
    expect({ instances: after.instances, tasks: after.tasks }).toEqual({ instances: before.instances, tasks: before.tasks });
    expect(after.history).not.toBe(before.history);
    expect(await snapshot(db.pool)).toEqual(rows);
    expect((await migrationStatus(client, loadMigrations(), loadNormalizer(dir))).normalizerUpToDate).toBe(true);
  });

  it('a new rules version rebuilds every row; a release with an older one then refuses the database', async () => {
    const dir = normalizerCopy((sql) => sql, version + 1);
    const before = await rowVersions(client);
    const rows = await snapshot(db.pool);
    expect((await migrationStatus(client, loadMigrations(), loadNormalizer(dir))).normalizerRebuild).toBe(true);
    const result = await migrateWith(dir);
    expect(result).toMatchObject({ status: 'applied', rebuilt: true });
    expect(result.status === 'applied' && result.rebuiltEvents).toBeGreaterThan(0);
    const after = await rowVersions(client);
    expect(after.instances.filter((x, i) => x === before.instances[i])).toEqual([]);
    expect(after.tasks.filter((x, i) => x === before.tasks[i])).toEqual([]);
    expect(await snapshot(db.pool)).toEqual(rows);
    expect((await client.query('SELECT rules_version FROM workflow_index.normalizer_definitions')).rows).toEqual([{ rules_version: version + 1 }]);

    const reason = `database rows were normalized by rules version ${version + 1}, newer than this release's (${version}): refusing (downgrade)`;
    await expect(migrate(client)).rejects.toThrow(new MigrationError(`${reason}: nothing was changed; run the init job of the release that migrated this database, or a newer one`));
    expect((await migrationStatus(client)).downgrade).toBe(reason);
    expect(await rowVersions(client)).toEqual(after);
  });
});
