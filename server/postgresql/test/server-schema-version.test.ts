// Upgrading with `kubectl apply -k` alone: the server of this release (main.ts as a child process, production mode,
// the reader login, DATABASE_MIGRATE off) against a database of the previous release, with data in it. It never
// serves a schema it does not know: readiness is DOWN with the reason and queries answer SERVICE_UNAVAILABLE until
// the init job (the real `init-job migrate` process) has run; then it serves without a restart. A newer schema at
// start is a downgrade and never served; a newer schema while serving is an upgrade in progress and keeps serving.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';
import { loadMigrations, migrate, THIS_RELEASE } from '../src/migrator.js';
import { createTestDatabase, ensureLoginRole, postgresReachable, type TestDatabase } from './support/test-database.js';
import { fixtureEvents, postGraphQL, runInit } from '@workflow-index/testkit';
import type { Event } from './support/load-events.js';
import { startMain, stop, type ServerProcess } from './support/main-process.js';

const available = await postgresReachable();

const READER_ROLE = 'wi_schema_server_reader';
const FIXTURE_INSTANCE_COUNT = 8;
const COUNT_QUERY = '{ getWorkflowInstances { id } }';
const LATEST = loadMigrations().at(-1)!.version;

interface Readiness { status: string; checks: Array<{ name: string; status: string; data?: Record<string, unknown> }> }

async function startProduction(env: Record<string, string>): Promise<{ server: ServerProcess; baseUrl: string }> {
  const server = startMain({ NODE_ENV: 'production', HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0', ...env });
  const listening = await server.waitFor(/"httpPort":(\d+),"msg":"server started"/);
  return { server, baseUrl: `http://127.0.0.1:${listening[1]}` };
}

async function readiness(baseUrl: string): Promise<{ status: number; backend: { status: string; error?: unknown } }> {
  const response = await fetch(`${baseUrl}/q/health/ready`);
  const body = (await response.json()) as Readiness;
  const backend = body.checks.find((c) => c.name === 'backend');
  return { status: response.status, backend: { status: backend?.status ?? 'missing', ...(backend?.data?.['error'] !== undefined ? { error: backend.data['error'] } : {}) } };
}

/** Fluent Bit's statements for the events, as the previous release's forwarder sent them. */
function deliveries(events: readonly Event[]): string[] {
  const byTable = new Map<string, Event[]>();
  for (const e of events) {
    const table = String(e['eventType']).includes('.task.') ? 'workflow_raw.task_events_raw' : 'workflow_raw.workflow_events_raw';
    byTable.set(table, [...(byTable.get(table) ?? []), e]);
  }
  return [...byTable].map(([table, rows]) => fluentBitInsertStatement(table, 'workflow.x', rows, (r) => Number(r['timestamp'])));
}

/**
 * A database at schema version 1 with the fixture events in it. `previousRelease`: as the previous release's
 * migrator left it (no release recorded, the history not readable by the reader group); otherwise as this
 * release's migrator leaves a database it brought to version 1 (what every later upgrade starts from).
 */
async function databaseAtVersion1(previousRelease: boolean): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrated: false, prefix: 'wi_schema_server' });
  const client = await db.pool.connect();
  try {
    await migrate(client, { migrations: loadMigrations().filter((m) => m.version === 1), normalizer: { files: [], checksum: 'v1' }, release: '0.0.1' });
    for (const sql of deliveries(fixtureEvents())) await client.query(sql);
    if (previousRelease) {
      await client.query('ALTER TABLE workflow_index.normalizer_definitions DROP COLUMN release');
      await client.query('REVOKE SELECT ON workflow_index.schema_migrations, workflow_index.normalizer_definitions FROM workflow_index_reader');
    }
  } finally {
    client.release();
  }
  return db;
}

describe.skipIf(!available)('the server of this release against older and newer schemas (real processes, real PostgreSQL)', () => {
  const servers: ServerProcess[] = [];
  const databases: TestDatabase[] = [];
  beforeAll(async () => {
    await ensureLoginRole(READER_ROLE, 'workflow_index_reader');
  });
  afterAll(async () => {
    for (const s of servers) await stop(s);
    for (const d of databases) await d.drop();
  });

  async function serve(db: TestDatabase, env: Record<string, string> = {}): Promise<{ server: ServerProcess; baseUrl: string }> {
    const started = await startProduction({ DATABASE_URL: db.urlAs(READER_ROLE, 'test-password'), ...env });
    servers.push(started.server);
    return started;
  }

  it('a database at version 1: readiness DOWN with the versions, no queries; after `init-job migrate` it serves, without a restart', async () => {
    const db = await databaseAtVersion1(false);
    databases.push(db);
    const reason = `schema version ${LATEST} needed, database is at 1: run the init job`;
    const { server, baseUrl } = await serve(db);
    expect(server.output()).toContain('schema changes off (DATABASE_MIGRATE=false)');
    expect(server.output()).toContain(`"reason":"${reason}","msg":"database schema not servable; readiness DOWN until it is"`);
    expect(await readiness(baseUrl)).toEqual({ status: 503, backend: { status: 'DOWN', error: reason } });
    const refused = (await postGraphQL(baseUrl, COUNT_QUERY)).body;
    expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
    // The server did not touch the schema.
    expect((await db.pool.query('SELECT version FROM workflow_index.schema_migrations ORDER BY version')).rows).toEqual([{ version: 1 }]);

    const init = await runInit(['migrate', '--wait-timeout=10'], { DATABASE_URL: db.url });
    expect(init.code, init.stderr).toBe(0);
    // The next probe re-checks (the schema did not match), so no waiting for the periodic check.
    expect(await readiness(baseUrl)).toEqual({ status: 200, backend: { status: 'UP' } });
    expect((((await postGraphQL(baseUrl, COUNT_QUERY)).body).data?.['getWorkflowInstances'] as unknown[]).length).toBe(FIXTURE_INSTANCE_COUNT);
    // Logged before the probe answered, but stdout is written asynchronously: it may arrive after the answers.
    await server.waitFor(/"msg":"database schema matches this release"/);
    expect(server.child.exitCode).toBeNull();
    expect(await stop(server)).toBe(0);
  });

  it('a database as the previous release left it (history unreadable by the reader): DOWN with the reason, then served after `init-job migrate`', async () => {
    const db = await databaseAtVersion1(true);
    databases.push(db);
    const { server, baseUrl } = await serve(db);
    expect(await readiness(baseUrl)).toEqual({
      status: 503,
      backend: {
        status: 'DOWN',
        error: `schema version ${LATEST} needed, the login cannot read workflow_index.schema_migrations (the init job of this release grants it to workflow_index_reader): run the init job`,
      },
    });
    const init = await runInit(['migrate', '--wait-timeout=10'], { DATABASE_URL: db.url });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('applied normalizer definitions');
    expect(await readiness(baseUrl)).toEqual({ status: 200, backend: { status: 'UP' } });
    expect((((await postGraphQL(baseUrl, COUNT_QUERY)).body).data?.['getWorkflowInstances'] as unknown[]).length).toBe(FIXTURE_INSTANCE_COUNT);
    expect(await stop(server)).toBe(0);
  });

  it('a newer schema at start is a downgrade: never served, and the init job of this release refuses it and changes nothing', async () => {
    const db = await createTestDatabase({ prefix: 'wi_schema_server' });
    databases.push(db);
    const client = await db.pool.connect();
    try {
      const future = { version: LATEST + 2, name: 'future', file: `${LATEST + 2}_future.sql`, sql: 'SELECT 1;', checksum: 'f' };
      await migrate(client, { migrations: [...loadMigrations(), future], release: '99.0.0' });
    } finally {
      client.release();
    }
    const reason = `database schema ${LATEST + 2} is newer than this release knows (${LATEST}): refusing (downgrade)`;
    const { server, baseUrl } = await serve(db);
    expect(await readiness(baseUrl)).toEqual({ status: 503, backend: { status: 'DOWN', error: reason } });
    expect(((await postGraphQL(baseUrl, COUNT_QUERY)).body).errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);

    const before = (await db.pool.query('SELECT version, applied_at FROM workflow_index.schema_migrations ORDER BY version')).rows;
    const init = await runInit(['migrate', '--wait-timeout=10'], { DATABASE_URL: db.url });
    expect([init.code, init.stderr.trim().split('\n').at(-1)]).toEqual([
      1, `error: ${reason}: nothing was changed; run the init job of the release that migrated this database, or a newer one`,
    ]);
    expect((await db.pool.query('SELECT version, applied_at FROM workflow_index.schema_migrations ORDER BY version')).rows).toEqual(before);
    expect(await readiness(baseUrl)).toEqual({ status: 503, backend: { status: 'DOWN', error: reason } });
    expect(await stop(server)).toBe(0);
  });

  it('a schema that becomes newer while serving is an upgrade in progress: this server keeps serving until it is replaced', async () => {
    const db = await createTestDatabase({ prefix: 'wi_schema_server' });
    databases.push(db);
    const { server, baseUrl } = await serve(db, { SCHEMA_CHECK_INTERVAL_MS: '200' });
    expect(await readiness(baseUrl)).toEqual({ status: 200, backend: { status: 'UP' } });
    const client = await db.pool.connect();
    try {
      // The next release's init job: one more migration, its own normalizer definitions.
      const next = { version: LATEST + 1, name: 'next', file: `${LATEST + 1}_next.sql`, sql: 'SELECT 1;', checksum: 'n' };
      await migrate(client, { migrations: [...loadMigrations(), next], release: '99.0.0' });
    } finally {
      client.release();
    }
    await server.waitFor(/"msg":"database schema is newer \(an upgrade is in progress\): this server keeps serving until it is replaced"/);
    expect(server.output()).toContain(`"schemaVersion":${LATEST},"release":"${THIS_RELEASE}","reason":"database schema ${LATEST + 1} is newer than this release knows (${LATEST}): refusing (downgrade)"`);
    expect(await readiness(baseUrl)).toEqual({ status: 200, backend: { status: 'UP' } });
    expect((await postGraphQL(baseUrl, COUNT_QUERY)).body).toEqual({ data: { getWorkflowInstances: [] } });
    expect(await stop(server)).toBe(0);
  });
});
