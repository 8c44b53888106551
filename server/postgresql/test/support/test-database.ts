// One fresh database per test file against the real PostgreSQL server (pg-boss style isolation), migrated with
// the real migrator. WI_TEST_DATABASE_URL points at an admin connection (default: the local server).
// Outside CI an unreachable server skips the suite with a message; with CI=true it fails.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/migrator.js';

export const ADMIN_URL = process.env['WI_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let reachable: boolean | undefined;
export async function postgresReachable(): Promise<boolean> {
  if (reachable !== undefined) return reachable;
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    reachable = true;
  } catch (error) {
    if (process.env['CI'] === 'true') {
      throw new Error(`PostgreSQL is required in CI but unreachable at ${redact(ADMIN_URL)}: ${(error as Error).message}`);
    }
    console.warn(`[skip] PostgreSQL suites skipped: no server at ${redact(ADMIN_URL)} (${(error as Error).message}). Set WI_TEST_DATABASE_URL.`);
    reachable = false;
  } finally {
    await client.end().catch(() => undefined);
  }
  return reachable;
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

export interface TestDatabase {
  readonly name: string;
  /** Connection URL of the new database as the admin (owner) user. */
  readonly url: string;
  readonly pool: pg.Pool;
  /** URL for the same database as another login role. */
  urlAs(user: string, password?: string): string;
  drop(): Promise<void>;
}

/**
 * A pool for a test, with listeners for its idle clients' errors: an idle client whose backend goes away (the
 * database is dropped WITH (FORCE) at the end, a test terminates backends, the server restarts) emits 'error' on
 * the pool, and without a listener that is an unhandled error that fails the whole run, whatever the tests said.
 */
export function openTestPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  const database = config.connectionString === undefined ? (config.database ?? '?') : new URL(config.connectionString).pathname.slice(1);
  pool.on('error', (error: Error & { code?: string }) => {
    if (error.code !== '57P01') console.warn(`[test pool ${database}] idle client error: ${error.message}`);
  });
  return pool;
}

export interface TestDatabaseOptions {
  /** Runs the real migrator on the new database (default true). */
  readonly migrated?: boolean;
  /** Name prefix of the database (default `wi_test`). */
  readonly prefix?: string;
}

/** Creates a uniquely named database; migrated unless `migrated: false`. */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const name = `${options.prefix ?? 'wi_test'}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(ADMIN_URL, name);
  const pool = openTestPool({ connectionString: url, max: 4 });
  if (options.migrated !== false) {
    const client = await pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
  }
  return {
    name,
    url,
    pool,
    urlAs: (user, password) => {
      const u = new URL(url);
      u.username = user;
      u.password = password ?? '';
      return u.toString();
    },
    drop: async () => {
      await pool.end().catch(() => undefined);
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Creates (or resets) a login role that is a member of a group role; returns its name. Roles are cluster-wide. */
export async function ensureLoginRole(name: string, memberOf: 'workflow_index_reader' | 'workflow_index_forwarder', password = 'test-password'): Promise<string> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DO $$ BEGIN CREATE ROLE ${name} LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
    await admin.query(`ALTER ROLE ${name} LOGIN PASSWORD '${password}'`);
    await admin.query(`GRANT ${memberOf} TO ${name}`);
    if (memberOf === 'workflow_index_forwarder') await admin.query(`ALTER ROLE ${name} SET search_path = workflow_raw`);
  } finally {
    await admin.end();
  }
  return name;
}

export interface ForwarderDatabase {
  readonly db: TestDatabase;
  /** Connected as a fresh login that is a member of workflow_index_forwarder, as Fluent Bit connects. */
  readonly client: pg.Client;
  /** Closes the client, drops the database and the login. */
  drop(): Promise<void>;
}

/** A fresh migrated database with a client connected as a new forwarder login (`<prefix>_<random>`). */
export async function createForwarderDatabase(prefix: string): Promise<ForwarderDatabase> {
  const login = `${prefix}_${randomBytes(4).toString('hex')}`;
  const db = await createTestDatabase();
  await ensureLoginRole(login, 'workflow_index_forwarder');
  const client = new pg.Client({ connectionString: db.urlAs(login, 'test-password') });
  await client.connect();
  return {
    db,
    client,
    async drop() {
      await client.end().catch(() => undefined);
      await db.drop();
      await dropLoginRoles(login);
    },
  };
}

/**
 * Drops login roles (cluster-wide, so after their databases). Test files running at the same time change the same
 * catalog rows (grants to workflow_index_reader, per-role settings), which PostgreSQL reports as XX000 "tuple
 * concurrently updated/deleted": such a drop is tried again.
 */
export async function dropLoginRoles(...roles: readonly string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    for (const role of roles) {
      for (let attempt = 1; ; attempt++) {
        try {
          await admin.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(role)}`);
          break;
        } catch (error) {
          if (attempt === 5 || !/tuple concurrently/.test((error as Error).message)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        }
      }
    }
  } finally {
    await admin.end();
  }
}
