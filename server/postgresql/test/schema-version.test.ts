// The schema-version rule: what a release needs versus what a database has, with the exact reasons the server's
// readiness, the init job and wait-for-schema report; and the migrator refusing a downgrade without changing anything.
import { afterAll, describe, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import fc from 'fast-check';
import type pg from 'pg';
import { loadMigrations, loadNormalizer, migrate, migrationStatus, MigrationError, requiredSchema, THIS_RELEASE, type Migration } from '../src/migrator.js';
import { compareReleases, compareSchema, readSchemaState, type RequiredSchema } from '../src/schema-version.js';
import { ensureLoginRole, type TestDatabase } from './support/test-database.js';

const it = postgresTest({ migrated: false, prefix: 'wi_schema_version' });

const REQUIRED: RequiredSchema = { versions: [1, 2, 3], normalizerChecksum: 'abc', normalizerRulesVersion: 4, release: '0.3.0' };

describe('compareSchema', () => {
  it('is current when every migration is applied and the definitions and rules version are this release\'s', () => {
    expect(compareSchema(REQUIRED, { readable: true, applied: [1, 2, 3], normalizer: { checksum: 'abc', release: '0.1.0', rulesVersion: 4 } })).toEqual({ status: 'current' });
  });

  it('names the version needed and the version found when migrations are missing', () => {
    expect(compareSchema(REQUIRED, { readable: true, applied: [1, 2], normalizer: { checksum: 'old', release: null, rulesVersion: null } })).toEqual({
      status: 'older', reason: 'schema version 3 needed, database is at 2: run the init job',
    });
    expect(compareSchema(REQUIRED, { readable: true, applied: [], normalizer: null })).toEqual({
      status: 'older', reason: 'schema version 3 needed, database is at 0: run the init job',
    });
    expect(compareSchema(REQUIRED, { readable: false, why: 'no-schema' })).toEqual({
      status: 'older', reason: 'schema version 3 needed, database has no schema: run the init job',
    });
    expect(compareSchema(REQUIRED, { readable: false, why: 'no-privilege' })).toEqual({
      status: 'older',
      reason: 'schema version 3 needed, the login cannot read workflow_index.schema_migrations (the init job of this release grants it to workflow_index_reader): run the init job',
    });
  });

  it('refuses a database with migrations this release does not ship, whatever else it has', () => {
    const reason = 'database schema 5 is newer than this release knows (3): refusing (downgrade)';
    expect(compareSchema(REQUIRED, { readable: true, applied: [1, 2, 3, 4, 5], normalizer: { checksum: 'abc', release: '0.3.0', rulesVersion: 4 } })).toEqual({ status: 'newer', reason });
    // An unknown version below a missing one is still someone else's schema.
    expect(compareSchema(REQUIRED, { readable: true, applied: [1, 2, 5], normalizer: null })).toEqual({ status: 'newer', reason });
  });

  it('orders different normalizer definitions by the release that applied them', () => {
    const at = (release: string | null) => compareSchema(REQUIRED, { readable: true, applied: [1, 2, 3], normalizer: { checksum: 'other', release, rulesVersion: 4 } });
    expect(at('0.4.0')).toEqual({ status: 'newer', reason: 'database normalizer definitions are of release 0.4.0, newer than this release (0.3.0): refusing (downgrade)' });
    expect(at('0.3.0-rc.1')).toEqual({ status: 'older', reason: 'normalizer definitions of release 0.3.0 needed, database has those of release 0.3.0-rc.1: run the init job' });
    // The same release with other definitions is a development checkout: its init job applies its files.
    expect(at('0.3.0')).toEqual({ status: 'older', reason: 'normalizer definitions of release 0.3.0 needed, database has those of release 0.3.0: run the init job' });
    expect(at(null)).toEqual({ status: 'older', reason: 'normalizer definitions of release 0.3.0 needed, database has older ones: run the init job' });
    expect(compareSchema(REQUIRED, { readable: true, applied: [1, 2, 3], normalizer: null })).toEqual({
      status: 'older', reason: 'normalizer definitions of release 0.3.0 needed, database has none: run the init job',
    });
  });

  it('orders rows by the rules version that normalized them, whatever the release', () => {
    const by = (rulesVersion: number | null, checksum = 'abc', release: string | null = '0.3.0') =>
      compareSchema(REQUIRED, { readable: true, applied: [1, 2, 3], normalizer: { checksum, release, rulesVersion } });
    // The same definitions, rows of older rules (a release that bumped the version without changing a definition).
    expect(by(3)).toEqual({ status: 'older', reason: 'rows normalized by rules version 4 needed, database has rows normalized by rules version 3: run the init job' });
    expect(by(null)).toEqual({
      status: 'older', reason: 'rows normalized by rules version 4 needed, database has rows normalized by rules of no recorded version: run the init job',
    });
    // Newer rules are a downgrade even when an older release string (or none) was recorded beside them.
    const newer = 'database rows were normalized by rules version 5, newer than this release\'s (4): refusing (downgrade)';
    expect(by(5)).toEqual({ status: 'newer', reason: newer });
    expect(by(5, 'other', '0.0.1')).toEqual({ status: 'newer', reason: newer });
    expect(by(5, 'other', null)).toEqual({ status: 'newer', reason: newer });
    // Other definitions under older rules are outdated, as before.
    expect(by(3, 'other', '0.2.0')).toEqual({ status: 'older', reason: 'normalizer definitions of release 0.3.0 needed, database has those of release 0.2.0: run the init job' });
  });
});

describe('compareReleases', () => {
  it('orders as semver does', () => {
    const ordered = ['0.0.9', '0.1.0-alpha', '0.1.0-alpha.1', '0.1.0-alpha.beta', '0.1.0-beta.2', '0.1.0-beta.11', '0.1.0-rc.1', '0.1.0', '0.1.1', '0.10.0', '1.0.0'];
    for (let i = 0; i < ordered.length; i++) {
      for (let j = 0; j < ordered.length; j++) expect([ordered[i], ordered[j], compareReleases(ordered[i]!, ordered[j]!)]).toEqual([ordered[i], ordered[j], Math.sign(i - j)]);
    }
    expect(compareReleases('v1.2.3', '1.2.3')).toBe(0);
    expect(compareReleases('1.2.3+build.5', '1.2.3')).toBe(0);
    expect(compareReleases('not-a-version', '0.0.1')).toBe(-1);
  });

  it('is antisymmetric and agrees with the numeric order of the release parts', () => {
    const part = fc.integer({ min: 0, max: 30 });
    const release = fc.tuple(part, part, part, fc.option(fc.constantFrom('alpha', 'rc.1', 'rc.2', 'beta.10'), { nil: null }));
    fc.assert(fc.property(release, release, (a, b) => {
      const text = ([x, y, z, pre]: typeof a): string => `${x}.${y}.${z}${pre === null ? '' : `-${pre}`}`;
      const ab = compareReleases(text(a), text(b));
      expect(ab).toBe(-compareReleases(text(b), text(a)) || 0);
      const core = Math.sign(a[0] - b[0]) || Math.sign(a[1] - b[1]) || Math.sign(a[2] - b[2]);
      if (core !== 0) expect(ab).toBe(core);
      else if (a[3] === null && b[3] !== null) expect(ab).toBe(1);
      else if (a[3] === b[3]) expect(ab).toBe(0);
    }));
  });
});

interface HistorySnapshot {
  readonly migrations: unknown[];
  readonly normalizer: unknown[];
  readonly columns: unknown[];
}

async function history(client: pg.ClientBase): Promise<HistorySnapshot> {
  return {
    migrations: (await client.query('SELECT version, name, checksum, applied_at FROM workflow_index.schema_migrations ORDER BY version')).rows,
    normalizer: (await client.query('SELECT to_jsonb(n) AS r FROM workflow_index.normalizer_definitions n')).rows,
    columns: (await client.query(`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'workflow_index' ORDER BY 1, 2`)).rows,
  };
}

describePostgres('migrator: downgrades are refused, nothing changes (real PostgreSQL)', () => {
  let db: TestDatabase;
  let client: pg.PoolClient;
  const future: Migration = { version: 9999, name: 'future', file: '9999_future.sql', sql: 'CREATE TABLE workflow_index.future_probe (x int);', checksum: 'f' };
  it.beforeAll(async ({ database }) => {
    db = database;
    client = await db.pool.connect();
  });
  afterAll(async () => {
    client?.release();
  });

  it('records the release with the normalizer definitions and lets the reader group read both histories', async () => {
    await migrate(client);
    const required = requiredSchema();
    expect(await readSchemaState(client)).toEqual({
      readable: true, applied: loadMigrations().map((m) => m.version),
      normalizer: { checksum: required.normalizerChecksum, release: THIS_RELEASE, rulesVersion: required.normalizerRulesVersion },
    });
    await ensureLoginRole('wi_schema_version_reader', 'workflow_index_reader');
    const asReader = await db.pool.connect();
    try {
      await asReader.query('SET ROLE wi_schema_version_reader');
      expect(compareSchema(required, await readSchemaState(asReader))).toEqual({ status: 'current' });
    } finally {
      await asReader.query('RESET ROLE');
      asReader.release();
    }
  });

  it('an older release\'s init job refuses a database with a migration it does not ship, and changes nothing', async () => {
    const newer = [...loadMigrations(), future];
    await migrate(client, { migrations: newer, release: '9.0.0' });
    const before = await history(client);
    const latest = loadMigrations().at(-1)!.version;
    const reason = `database schema 9999 is newer than this release knows (${latest}): refusing (downgrade)`;
    await expect(migrate(client)).rejects.toThrow(new MigrationError(`${reason}: nothing was changed; run the init job of the release that migrated this database, or a newer one`));
    await expect(migrate(client, { dryRun: true })).rejects.toThrow(new MigrationError(`${reason}: this release would change nothing`));
    expect((await migrationStatus(client)).downgrade).toBe(reason);
    expect(await history(client)).toEqual(before);
    await client.query('DROP TABLE workflow_index.future_probe');
    await client.query('DELETE FROM workflow_index.schema_migrations WHERE version = 9999');
  });

  it('refuses normalizer definitions a newer release applied; applies those of an older or the same release', async () => {
    const current = loadNormalizer();
    const next = { files: [...current.files, { file: '999-probe.sql', sql: 'SELECT 1;' }], checksum: `${current.checksum}-next` };
    await migrate(client, { normalizer: next, release: '9.0.0' });
    const before = await history(client);
    await expect(migrate(client)).rejects.toThrow(
      `database normalizer definitions are of release 9.0.0, newer than this release (${THIS_RELEASE}): refusing (downgrade): nothing was changed`,
    );
    expect(await history(client)).toEqual(before);
    expect((await migrationStatus(client)).downgrade).toBe(`database normalizer definitions are of release 9.0.0, newer than this release (${THIS_RELEASE}): refusing (downgrade)`);

    // Recorded by an older release: this one's definitions replace them (and the release is recorded).
    await client.query(`UPDATE workflow_index.normalizer_definitions SET release = '0.0.1'`);
    const applied: string[] = [];
    await migrate(client, { onNormalizer: (r) => applied.push(r.status) });
    // The same release with other files (a development checkout) applies its own too.
    await migrate(client, { normalizer: next, onNormalizer: (r) => applied.push(r.status) });
    await migrate(client, { onNormalizer: (r) => applied.push(r.status) });
    expect(applied).toEqual(['applied', 'applied', 'applied']);
    expect(compareSchema(requiredSchema(), await readSchemaState(client))).toEqual({ status: 'current' });
  });
});
