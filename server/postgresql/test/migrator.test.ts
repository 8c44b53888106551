import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMigrations, migrate, migrationStatus, MigrationError } from '../src/migrator.js';
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
