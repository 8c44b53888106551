// The server pods' init container (kustomize/components/backend-postgresql/wait-for-schema.mjs, run as the real
// script with node) waits for exactly the schema version the server needs, and says why it waits in the server's
// own words: for each database state its reason is the one compareSchema gives (the rule it must not drift from).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import { loadMigrations, loadNormalizer, migrate, requiredSchema } from '../src/migrator.js';
import { compareSchema, readSchemaState } from '../src/schema-version.js';
import { ensureLoginRole, type TestDatabase } from './support/test-database.js';

const it = postgresTest({ migrated: false, prefix: 'wi_wait_schema' });

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = 'kustomize/components/backend-postgresql/wait-for-schema.mjs';
const READER_ROLE = 'wi_wait_schema_reader';

function waitForSchema(db: TestDatabase): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: db.urlAs(READER_ROLE, 'test-password'), WAIT_TIMEOUT_SECONDS: '0', APP_ROOT: REPO_ROOT },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** What the server's gate says about this database, as the reader login sees it. */
async function serverReason(db: TestDatabase): Promise<string | null> {
  const client = await db.pool.connect();
  try {
    await client.query(`SET ROLE ${READER_ROLE}`);
    const verdict = compareSchema(requiredSchema(), await readSchemaState(client));
    return verdict.status === 'current' ? null : verdict.reason;
  } finally {
    await client.query('RESET ROLE');
    client.release();
  }
}

describePostgres('wait-for-schema (the real script, real PostgreSQL)', () => {
  let db: TestDatabase;
  const location = (): string => {
    const url = new URL(db.url);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  };
  const where = (): string => `(${location()})`;
  it.beforeAll(async ({ database }) => {
    await ensureLoginRole(READER_ROLE, 'workflow_index_reader');
    db = database;
  });

  async function expectWaiting(reason: string): Promise<void> {
    expect(await serverReason(db)).toBe(reason);
    const result = await waitForSchema(db);
    expect([result.code, result.stderr.trim().split('\n').at(-1)]).toEqual([1, `wait-for-schema: gave up after 0 s: ${reason} ${where()}`]);
  }

  it('waits, giving the server\'s reason, until the database has this release\'s schema; refuses a newer one', async () => {
    const latest = loadMigrations().at(-1)!.version;
    const { release } = requiredSchema();
    await expectWaiting(`schema version ${latest} needed, database has no schema: run the init job`);

    const client = await db.pool.connect();
    try {
      await migrate(client, { migrations: loadMigrations().filter((m) => m.version === 1), normalizer: { files: [], checksum: 'v1' }, release: '0.0.1' });
      await expectWaiting(`schema version ${latest} needed, database is at 1: run the init job`);

      await migrate(client, { normalizer: { files: loadNormalizer().files, checksum: 'older-definitions' }, release: '0.0.1' });
      await expectWaiting(`normalizer definitions of release ${release} needed, database has those of release 0.0.1: run the init job`);

      await migrate(client);
      expect(await serverReason(db)).toBeNull();
      const ready = await waitForSchema(db);
      expect([ready.code, ready.stderr.trim().split('\n')]).toEqual([0, [
        `wait-for-schema: schema version ${latest} of release ${release} found`,
        `wait-for-schema: schema ready at ${location()}`,
      ]]);

      await migrate(client, { normalizer: { files: loadNormalizer().files, checksum: 'newer-definitions' }, release: '99.0.0' });
      await expectWaiting(`database normalizer definitions are of release 99.0.0, newer than this release (${release}): refusing (downgrade)`);

      const future = { version: latest + 1, name: 'future', file: `${latest + 1}_future.sql`, sql: 'SELECT 1;', checksum: 'f' };
      await migrate(client, { migrations: [...loadMigrations(), future], release: '99.0.0' });
      await expectWaiting(`database schema ${latest + 1} is newer than this release knows (${latest}): refusing (downgrade)`);
    } finally {
      client.release();
    }
  });
});
