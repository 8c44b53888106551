import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { scramSha256Verifier } from '@workflow-index/postgresql';
import { loadMigrations, migrate, THIS_RELEASE } from '@workflow-index/postgresql';
import { ADMIN_URL, createTestDatabase, dropLoginRoles, postgresReachable, type TestDatabase } from '@workflow-index/postgresql/testing';
import { FIXTURE_PATH } from '@workflow-index/testkit';
import { runInit } from '@workflow-index/testkit';

// The migrations this release ships, as the CLI labels them (a new migration must not break these tests).
const MIGRATIONS = loadMigrations();
const label = (m: { version: number; name: string }): string => `${String(m.version).padStart(4, '0')}_${m.name}`;
const linesOf = (make: (l: string) => string): string => MIGRATIONS.map((m) => make(label(m))).join('\n');

const available = await postgresReachable();

async function scalar<T>(url: string, sql: string): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const res = await client.query(sql);
    return Object.values(res.rows[0] ?? {})[0] as T;
  } finally {
    await client.end();
  }
}

/** The SQLSTATE of running `sql` as `url`, or 'ok'. */
async function outcome(url: string, sql: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
    return 'ok';
  } catch (error) {
    return String((error as { code?: unknown }).code);
  } finally {
    await client.end();
  }
}

describe('init-job --help', () => {
  it('documents every command, option and environment variable', async () => {
    const root = await runInit(['--help']);
    expect(root.code).toBe(0);
    for (const text of ['migrate', 'plan', 'status', 'ingest <files..>', 'prune', 'DATABASE_URL', 'DATABASE_USERNAME', 'DATABASE_PASSWORD',
      'QUARKUS_DATASOURCE_JDBC_URL', 'QUARKUS_DATASOURCE_USERNAME', 'QUARKUS_DATASOURCE_PASSWORD', 'DATABASE_POOL_MIN',
      'WORKFLOW_INDEX_READER_USERNAME', 'WORKFLOW_INDEX_READER_PASSWORD', 'WORKFLOW_INDEX_FORWARDER_USERNAME', 'WORKFLOW_INDEX_FORWARDER_PASSWORD',
      'WORKFLOW_INDEX_PRUNER_USERNAME', 'WORKFLOW_INDEX_PRUNER_PASSWORD', 'RAW_EVENTS_RETENTION_DAYS', 'INSTANCE_RETENTION_DAYS', 'Exit codes']) {
      expect(root.stdout).toContain(text);
    }
    expect(root.stdout).toContain('opensearch-setup');

    const connection = ['--database-url', '--database-username', '--database-password', '--wait-timeout', 'DATABASE_URL', 'QUARKUS_DATASOURCE_JDBC_URL'];
    const perCommand: Record<string, string[]> = {
      migrate: [...connection, '--dry-run', '--reader-username', '--reader-password', '--forwarder-username', '--forwarder-password', '--pruner-username', '--pruner-password',
        'WORKFLOW_INDEX_READER_USERNAME', 'WORKFLOW_INDEX_FORWARDER_PASSWORD', 'WORKFLOW_INDEX_PRUNER_USERNAME'],
      plan: [...connection, '--reader-username', '--forwarder-password', '--pruner-username', 'WORKFLOW_INDEX_FORWARDER_USERNAME', 'WORKFLOW_INDEX_PRUNER_PASSWORD'],
      status: [...connection, '--json'],
      ingest: [...connection, '--batch-size', '--event-type-prefix', '--json', '[default: 500]', '[default: "io.serverlessworkflow."]'],
      prune: [...connection, '--backend', '--dry-run', '--raw-retention-days', '--instance-retention-days', '--batch-size', 'RAW_EVENTS_RETENTION_DAYS', 'INSTANCE_RETENTION_DAYS', 'OPENSEARCH_HOST'],
    };
    const runs = await Promise.all(Object.keys(perCommand).map((c) => runInit([c, '--help'])));
    Object.entries(perCommand).forEach(([command, texts], i) => {
      const run = runs[i]!;
      expect(run.code).toBe(0);
      for (const text of texts) expect(run.stdout, `${command} --help mentions ${text}`).toContain(text);
    });
  });

  it('exits 2 on an unknown command or a missing command', async () => {
    const [unknown, none] = await Promise.all([runInit(['frobnicate']), runInit([])]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown argument: frobnicate');
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'error: Choose a command: migrate, plan, status, ingest or prune (PostgreSQL), opensearch-setup (OpenSearch); plan, status and prune take --backend opensearch\n' +
        'Run with --help for the commands and options.\n',
    );
  });
});

describe('init-job configuration problems', () => {
  it('missing settings exit 2 listing every problem, without secrets', async () => {
    const run = await runInit(['migrate'], {
      DATABASE_PASSWORD: 'TopSecret-1',
      DATABASE_POOL_MAX: 'lots',
      WORKFLOW_INDEX_READER_USERNAME: 'wi_reader',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      [
        'configuration problems:',
        '  - missing DATABASE_URL (or QUARKUS_DATASOURCE_JDBC_URL)',
        '  - DATABASE_PASSWORD is set but DATABASE_USERNAME is not',
        '  - DATABASE_POOL_MAX must be an integer ≥ 1, got "lots"',
        '  - WORKFLOW_INDEX_READER_USERNAME is set but WORKFLOW_INDEX_READER_PASSWORD is not',
        '',
      ].join('\n'),
    );
    expect(run.stdout).toBe('');
  });

  it('ingest names missing files and bad options with exit 2', async () => {
    const run = await runInit(['ingest', '/nonexistent/events.jsonl', '--batch-size', '0'], { DATABASE_URL: 'postgres://u@127.0.0.1:1/x' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--batch-size must be an integer ≥ 1, got 0');
    expect(run.stderr).toContain('/nonexistent/events.jsonl does not exist or cannot be read');
  });

  it('an unreachable database fails within a few seconds with a clear message', async () => {
    const run = await runInit(['migrate', '--wait-timeout', '2'], { DATABASE_URL: 'postgres://wi:pw-not-shown@127.0.0.1:1/workflow_index' });
    expect(run.code).toBe(1);
    // The bounded wait itself is proven by the message below ("within 2 s"); the wall clock (process start-up
    // included, slow on a loaded machine) only guards against a hang.
    expect(run.ms).toBeLessThan(30_000);
    expect(run.stderr).toMatch(/waiting for database 127\.0\.0\.1:1\/workflow_index: connect ECONNREFUSED 127\.0\.0\.1:1 \(attempt 1,/);
    expect(run.stderr).toMatch(/error: database 127\.0\.0\.1:1\/workflow_index not reachable within 2 s \(\d+ attempts\): connect ECONNREFUSED 127\.0\.0\.1:1\n$/);
    expect(run.stderr).toContain('database: postgres://wi:***@127.0.0.1:1/workflow_index?sslmode=disable (from DATABASE_URL)');
    expect(run.stderr).not.toContain('pw-not-shown');
  });
});

describe.skipIf(!available)('init-job against a fresh, un-migrated database', () => {
  let db: TestDatabase;
  const suffix = randomBytes(4).toString('hex');
  const reader = `wi_h1_reader_${suffix}`;
  const forwarder = `wi_h1_forwarder_${suffix}`;
  const pruner = `wi_h11_pruner_${suffix}`;
  const prunerPassword = `prune ${suffix}`;
  const readerPassword = `r'e"a\\der ${suffix}`;
  const forwarderPassword = `förwärder-${suffix}`;
  const hasTable = (name: string): Promise<string | null> => scalar<string | null>(db.url, `SELECT to_regclass('${name}')::text`);

  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false, prefix: 'wi_cli' });
  });
  afterAll(async () => {
    await db?.drop();
    await dropLoginRoles(...[reader, forwarder, pruner]);
  });

  it('status lists the pending migration before anything is applied', async () => {
    const run = await runInit(['status'], { DATABASE_URL: db.url });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${linesOf((l) => `pending ${l}`)}\n0 applied, ${MIGRATIONS.length} pending\nnormalizer definitions: outdated (run migrate: it rebuilds every normalized row)\n` +
      `schema: schema version ${loadMigrations().at(-1)!.version} needed, database has no schema: run the init job\n`);
  });

  it('plan and migrate --dry-run print the SQL and change nothing', async () => {
    const [plan, dry] = await Promise.all([
      runInit(['plan'], { DATABASE_URL: db.url }),
      runInit(['migrate', '--dry-run'], { DATABASE_URL: db.url, WORKFLOW_INDEX_READER_USERNAME: reader, WORKFLOW_INDEX_READER_PASSWORD: readerPassword }),
    ]);
    for (const run of [plan, dry]) {
      expect(run.code).toBe(0);
      expect(run.stdout.startsWith('-- pending 0001_initial_schema\n-- Workflow Index, PostgreSQL schema v1.')).toBe(true);
      expect(run.stdout).toContain('CREATE TABLE workflow_raw.workflow_events_raw (');
      expect(run.stderr).toContain('nothing was changed');
    }
    expect(dry.stdout).toContain(`--   CREATE ROLE "${reader}" WITH LOGIN INHERIT PASSWORD '***';\n--   GRANT workflow_index_reader TO "${reader}";`);
    expect(dry.stdout + dry.stderr).not.toContain(readerPassword);
    expect(await hasTable('workflow_index.schema_migrations')).toBeNull();
    expect(await hasTable('workflow_raw.workflow_events_raw')).toBeNull();
    expect(await scalar<string>(ADMIN_URL, `SELECT count(*)::text FROM pg_roles WHERE rolname = '${reader}'`)).toBe('0');
  });

  it('migrate applies, creates the login roles, then skips and rotates on the next run', async () => {
    const env = {
      DATABASE_URL: db.url,
      WORKFLOW_INDEX_READER_USERNAME: reader,
      WORKFLOW_INDEX_READER_PASSWORD: readerPassword,
      WORKFLOW_INDEX_FORWARDER_USERNAME: forwarder,
      WORKFLOW_INDEX_FORWARDER_PASSWORD: forwarderPassword,
      WORKFLOW_INDEX_PRUNER_USERNAME: pruner,
      WORKFLOW_INDEX_PRUNER_PASSWORD: prunerPassword,
    };
    const first = await runInit(['migrate'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(`^${linesOf((l) => `applied ${l} \\(\\d+ ms\\)`)}\napplied normalizer definitions \\(\\d+ files, 0 raw events re-normalized, \\d+ ms\\)\nlogin role ${reader} created: member of workflow_index_reader\nlogin role ${forwarder} created: member of workflow_index_forwarder, search_path workflow_raw\nlogin role ${pruner} created: member of workflow_index_pruner\n$`),
    );
    for (const secret of [readerPassword, forwarderPassword, prunerPassword]) expect(first.stdout + first.stderr).not.toContain(secret);
    const second = await runInit(['migrate'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(
      `${linesOf((l) => `skipped ${l} (already applied)`)}\nskipped normalizer definitions (unchanged)\nlogin role ${reader} updated: member of workflow_index_reader\nlogin role ${forwarder} updated: member of workflow_index_forwarder, search_path workflow_raw\nlogin role ${pruner} updated: member of workflow_index_pruner\n`,
    );
    expect(await hasTable('workflow_raw.workflow_events_raw')).toBe('workflow_raw.workflow_events_raw');
  });

  it('stores passwords that authenticate: the SCRAM verifiers match the passwords', async () => {
    for (const [role, password] of [[reader, readerPassword], [forwarder, forwarderPassword], [pruner, prunerPassword]] as const) {
      const stored = await scalar<string>(ADMIN_URL, `SELECT rolpassword FROM pg_authid WHERE rolname = '${role}'`);
      const m = /^SCRAM-SHA-256\$(\d+):([^$]+)\$/.exec(stored);
      expect(m, `${role} has a SCRAM verifier`).not.toBeNull();
      expect(scramSha256Verifier(password, Buffer.from(m![2]!, 'base64'), Number(m![1]))).toBe(stored);
    }
    const config = await scalar<string[] | null>(ADMIN_URL, `SELECT rolconfig FROM pg_roles WHERE rolname = '${forwarder}'`);
    expect(config).toEqual(['search_path=workflow_raw']);
  });

  it('status lists the applied migration afterwards', async () => {
    const run = await runInit(['status'], { DATABASE_URL: db.url });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^${linesOf((l) => `applied ${l} at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z \\(\\d+ ms\\)`)}\n${MIGRATIONS.length} applied, 0 pending\nnormalizer definitions: up to date\n`));
    expect(run.stdout).toContain('ingest: 0 raw events');
    const json = await runInit(['status', '--json'], { DATABASE_URL: db.url });
    const parsed = JSON.parse(json.stdout) as { applied: Array<{ version: number; name: string }>; pending: unknown[]; changed: unknown[] };
    expect(parsed.applied.map((a) => [a.version, a.name])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));
    expect([parsed.pending, parsed.changed]).toEqual([[], []]);
  });

  it('the forwarder login runs Fluent Bit start-up statement as a no-op, ingests, and cannot read normalized tables', async () => {
    const asForwarder = db.urlAs(forwarder, forwarderPassword);
    expect(await outcome(asForwarder, 'CREATE TABLE IF NOT EXISTS workflow_events_raw (tag varchar, time timestamp, data jsonb)')).toBe('ok');
    expect(await outcome(asForwarder, 'CREATE TABLE IF NOT EXISTS task_events_raw (tag varchar, time timestamp, data jsonb)')).toBe('ok');
    expect(await scalar<string>(db.url, `SELECT count(*)::text FROM pg_tables WHERE tablename IN ('workflow_events_raw', 'task_events_raw')`)).toBe('2');

    const run = await runInit(['ingest', FIXTURE_PATH], { DATABASE_URL: asForwarder });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('events written: 80 (workflow_events_raw 36, task_events_raw 44) in 2 batches\n');
    expect(run.stdout).toContain('rejected by the normalizer: unknown (this role cannot read workflow_index.ingest_errors)\n');
    expect(await outcome(asForwarder, 'SELECT count(*) FROM workflow_index.workflow_instances')).toBe('42501');
    expect(await outcome(asForwarder, 'SELECT count(*) FROM workflow_raw.workflow_events_raw')).toBe('42501');
  });

  it('the reader login can SELECT the normalized tables and cannot INSERT raw events', async () => {
    const asReader = db.urlAs(reader, readerPassword);
    expect(await scalar<string>(asReader, 'SELECT count(*)::text FROM workflow_index.workflow_instances WHERE started_event_time IS NOT NULL')).toBe('8');
    expect(await scalar<string>(asReader, 'SELECT count(*)::text FROM workflow_index.task_executions')).toBe('22');
    expect(await outcome(asReader, `INSERT INTO workflow_raw.workflow_events_raw (tag, time, data) VALUES ('x', now(), '{}')`)).toBe('42501');
  });

  it('the pruner login created by migrate runs prune (dry run and real) and cannot read or change a table', async () => {
    const asPruner = db.urlAs(pruner, prunerPassword);
    // The fixture's events (record time = event time, May 2026) are all older than 0 days, none older than 10 years.
    const dry = await runInit(['prune', '--dry-run', '--raw-retention-days', '0'], { DATABASE_URL: asPruner });
    expect(dry.stderr).not.toContain('error');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would delete 80 raw events (36 workflow, 44 task)');
    const real = await runInit(['prune', '--raw-retention-days', '3650', '--instance-retention-days', '3650'], { DATABASE_URL: asPruner });
    expect(real.stderr).not.toContain('error');
    expect(real.code).toBe(0);
    expect(await scalar<string>(db.url, 'SELECT count(*)::text FROM workflow_raw.workflow_events_raw')).toBe('36');
    expect(await outcome(asPruner, 'SELECT count(*) FROM workflow_index.workflow_instances')).toBe('42501');
    expect(await outcome(asPruner, 'SELECT count(*) FROM workflow_raw.workflow_events_raw')).toBe('42501');
    expect(await outcome(asPruner, 'DELETE FROM workflow_index.events')).toBe('42501');
  });

  it('ingest prints a summary with the counts, and one JSON object with --json', async () => {
    const run = await runInit(['ingest', FIXTURE_PATH, '--batch-size', '10'], { DATABASE_URL: db.url });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        '^lines read: 80 from 1 source\nevents written: 80 \\(workflow_events_raw 36, task_events_raw 44\\) in 9 batches\nskipped \\(not events\\): 0\nmalformed: 0\n' +
          'rejected by the normalizer: 0\nrepaired: 0\nduration: \\d+\\.\\d\\d s \\(\\d+ events/s\\)\n$',
      ),
    );
    const json = await runInit(['ingest', '-', '--json'], { DATABASE_URL: db.url }, '{"eventType":"io.serverlessworkflow.task.started.v1",\nnot an event\n');
    expect(json.code).toBe(0);
    const summary = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({ sources: 1, linesRead: 2, skipped: 1, malformed: 1, rejected: 0, eventsWritten: { total: 0 } });
    expect(summary['malformedSamples']).toEqual([{ source: 'stdin', line: 1, reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  it('ingest repairs hostile event lines and counts each repair kind in the summary', async () => {
    const event = (id: string, input: string): string =>
      `{"instanceId":"${id}","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1778578000.25,"startTime":1778578000.25,"status":"RUNNING","workflowName":"w","input":${input}}`;
    const stdin = [event('CLI-R1', '{"n":1e999,"k\\u0000":"\\ud800"}'), event('CLI-R2', '{"m":-2e308}'), event('CLI-R3', '{"big":12345678901234567890}'), ''].join('\n');
    const run = await runInit(['ingest', '-'], { DATABASE_URL: db.url }, stdin);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('events written: 3 (workflow_events_raw 3, task_events_raw 0) in 1 batch\n');
    expect(run.stdout).toContain('\nrepaired: nul-escape 1, lone-surrogate 1, number-overflow 2\n');
    const json = await runInit(['ingest', '-', '--json'], { DATABASE_URL: db.url }, stdin);
    expect((JSON.parse(json.stdout) as { repairs: unknown }).repairs).toEqual({ 'invalid-utf8': 0, 'nul-escape': 1, 'lone-surrogate': 1, 'number-overflow': 2, 'nesting-depth': 0, 'number-token': 0, 'exponent-sign': 0 });
    expect(await scalar<string>(db.url, `SELECT input->>'big' FROM workflow_index.workflow_instances WHERE id = 'CLI-R3'`)).toBe('12345678901234567890');
    expect(await scalar<string>(db.url, `SELECT input->>'n' FROM workflow_index.workflow_instances WHERE id = 'CLI-R1'`)).toBe('1e999');
  });

  it('migrate and status fail naming the file when an applied migration was changed', async () => {
    await scalar(db.url, `UPDATE workflow_index.schema_migrations SET checksum = 'edited' WHERE version = 1 RETURNING version`);
    try {
      const migrate = await runInit(['migrate'], { DATABASE_URL: db.url });
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toContain('error: migration 0001_initial_schema.sql was changed after it was applied');
      const status = await runInit(['status'], { DATABASE_URL: db.url });
      expect(status.code).toBe(1);
      expect(status.stdout).toMatch(/^CHANGED 0001_initial_schema at /);
    } finally {
      const { loadMigrations } = await import('@workflow-index/postgresql');
      const checksum = loadMigrations()[0]!.checksum;
      await scalar(db.url, `UPDATE workflow_index.schema_migrations SET checksum = '${checksum}' WHERE version = 1 RETURNING version`);
    }
  });
});

describe.skipIf(!available)('init-job with JDBC URLs and the Quarkus aliases', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false, prefix: 'wi_cli_jdbc' });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('ingest exits 1 naming the file and lines when the database rejects the batch (schema missing)', async () => {
    const run = await runInit(['ingest', FIXTURE_PATH, '--json'], { DATABASE_URL: db.url });
    expect(run.code).toBe(1);
    const message = `writing 36 workflow event(s) from ${FIXTURE_PATH} lines 1–80 failed: relation "workflow_raw.workflow_events_raw" does not exist`;
    expect(run.stderr).toContain(`error: ${message}\n`);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: message, linesRead: 80, eventsWritten: { total: 0 }, rejected: null });
  });

  it('migrates with a JDBC DATABASE_URL carrying the user in the query, and reports status through the Quarkus aliases', async () => {
    const u = new URL(db.url);
    const user = decodeURIComponent(u.username) || 'postgres';
    const jdbc = `jdbc:postgresql://${u.hostname}:${u.port || 5432}/${db.name}`;
    const migrate = await runInit(['migrate'], { DATABASE_URL: `${jdbc}?user=${encodeURIComponent(user)}&sslmode=disable` });
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(new RegExp(`^${linesOf((l) => `applied ${l} \\(\\d+ ms\\)`)}\napplied normalizer definitions \\(\\d+ files, 0 raw events re-normalized, \\d+ ms\\)\n$`));
    const status = await runInit(['status'], { QUARKUS_DATASOURCE_JDBC_URL: jdbc, QUARKUS_DATASOURCE_USERNAME: user });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${linesOf((l) => `applied ${l} at .*`)}\n${MIGRATIONS.length} applied, 0 pending\nnormalizer definitions: up to date\n`));
    expect(status.stderr).toContain(`(from QUARKUS_DATASOURCE_JDBC_URL)`);
  });
});

describe.skipIf(!available)('init-job against a database of a newer release (real PostgreSQL)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ prefix: 'wi_cli_downgrade' });
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('status says the schema matches this release, then refuses (exit 1) once a newer release migrated it; migrate and plan change nothing', async () => {
    const latest = loadMigrations().at(-1)!.version;
    const current = await runInit(['status'], { DATABASE_URL: db.url });
    expect([current.code, current.stdout.trim().split('\n').at(-1)]).toEqual([0, `schema: version ${latest} of release ${THIS_RELEASE}, as this release needs`]);

    const client = await db.pool.connect();
    try {
      const future = { version: latest + 1, name: 'future', file: `${latest + 1}_future.sql`, sql: 'SELECT 1;', checksum: 'f' };
      await migrate(client, { migrations: [...loadMigrations(), future], release: '99.0.0' });
    } finally {
      client.release();
    }
    const reason = `database schema ${latest + 1} is newer than this release knows (${latest}): refusing (downgrade)`;
    const status = await runInit(['status'], { DATABASE_URL: db.url });
    expect([status.code, status.stdout.trim().split('\n').at(-1), status.stderr.trim().split('\n').at(-1)]).toEqual([
      1, `schema: ${reason}`, `error: ${reason}: this release's init job and server refuse this database`,
    ]);
    const json = await runInit(['status', '--json'], { DATABASE_URL: db.url });
    expect((JSON.parse(json.stdout) as { schema: unknown }).schema).toEqual({ needed: latest, release: THIS_RELEASE, status: 'newer', reason });

    const history = async (): Promise<unknown[]> => (await db.pool.query('SELECT version, checksum, applied_at FROM workflow_index.schema_migrations ORDER BY version')).rows;
    const before = await history();
    const run = await runInit(['migrate'], { DATABASE_URL: db.url });
    expect([run.code, run.stderr.trim().split('\n').at(-1)]).toEqual([1, `error: ${reason}: nothing was changed; run the init job of the release that migrated this database, or a newer one`]);
    const plan = await runInit(['plan'], { DATABASE_URL: db.url });
    expect([plan.code, plan.stderr.trim().split('\n').at(-1)]).toEqual([1, `error: ${reason}: this release would change nothing`]);
    expect(await history()).toEqual(before);
  });
});
