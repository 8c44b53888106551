// The server's login is bounded by the database (migrations/0015_reader_session_limits.sql): statement_timeout,
// work_mem and idle_in_transaction_session_timeout are the login's defaults in this database, for a login the init job
// creates and for one that existed before the migration.
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { applyLoginRoles } from '../src/login-roles.js';
import { loadMigrations, migrate } from '../src/migrator.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './support/test-database.js';

const it = postgresTest({ migrated: false });

const LIMITS = { statement_timeout: '30s', work_mem: '4MB', idle_in_transaction_session_timeout: '1min' };

/** The session defaults a login starts with in `db`. */
async function sessionDefaults(db: TestDatabase, login: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: db.urlAs(login, 'test-password') });
  await client.connect();
  try {
    const out: Record<string, string> = {};
    for (const name of Object.keys(LIMITS)) out[name] = (await client.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
    return out;
  } finally {
    await client.end();
  }
}

describePostgres('reader login session limits (real PostgreSQL)', () => {
  const suffix = randomBytes(4).toString('hex');
  const created = `wi_limits_new_${suffix}`;
  const earlier = `wi_limits_old_${suffix}`;
  let db: TestDatabase;
  let other: TestDatabase;

  it.beforeAll(async ({ database, loginRoles }) => {
    db = database;
    loginRoles.dropAtEnd(created, earlier);
    other = await createTestDatabase();
    const migrations = loadMigrations();
    const client = await db.pool.connect();
    try {
      // A database at the release before the limits, with a reader login made then (GRANT only, as that release did).
      await migrate(client, { migrations: migrations.filter((m) => m.version < 15) });
      await client.query(`CREATE ROLE ${earlier} WITH LOGIN INHERIT PASSWORD 'test-password'`);
      await client.query(`GRANT workflow_index_reader TO ${earlier}`);
      await migrate(client, { migrations });
      await applyLoginRoles(client, [{ kind: 'reader', username: created, password: 'test-password' }]);
    } finally {
      client.release();
    }
  });

  afterAll(async () => {
    await other?.drop();
  });

  it('a reader login the init job creates starts its sessions with the limits', async () => {
    expect(await sessionDefaults(db, created)).toEqual(LIMITS);
  });

  it('a reader login that existed before the migration gets them from it', async () => {
    expect(await sessionDefaults(db, earlier)).toEqual(LIMITS);
  });

  it('they hold in this database only (the login may be used for other work elsewhere)', async () => {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`GRANT CONNECT ON DATABASE ${other.name} TO ${created}`);
    } finally {
      await admin.end();
    }
    const defaults = await sessionDefaults(other, created);
    expect(defaults['work_mem']).not.toBe(undefined);
    expect(defaults['statement_timeout']).toBe('0');
  });
});
