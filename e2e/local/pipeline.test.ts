// The whole PostgreSQL pipeline on this machine, the way the kind suite runs it in a cluster:
//   workflow app stdout ──container runtime──> CRI log file (a >16 KiB line split P/P/F, ordinary log lines)
//   ──Fluent Bit (the routing model driven by fluent-bit/postgresql)──> pgsql statements as the forwarder login
//   ──triggers──> normalized tables ──the server, a production-mode process as the reader login──> GraphQL.
// The schema and the logins come from `init-job migrate` (spawned), the server pods' wait-for-schema gate is run
// before and after it. Mid-stream the forwarder restarts (a new process of the model on the node's tail position
// database, tail-input.ts): it sends the chunk its filesystem buffer kept and reads the file from its stored offset,
// so nothing is re-read, lost or duplicated. Then a forwarder whose position database is lost re-sends the whole
// file from its head: the raw tables hold it twice, nothing is served twice.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropLoginRoles, postgresReachable, type TestDatabase } from '@workflow-index/postgresql/testing';
import { NodeLogs, TailDatabase, type TailRun, createPipeline, flushStatements, loadFluentBitConfig, type PgsqlFlush, startTail, startupStatements } from '@workflow-index/fluent-bit';
import { deployedEnvironment } from '@workflow-index/fluent-bit/testing';
import { podLogPath, criLogFile, graphqlData } from '@workflow-index/testkit';
import { eventsOf, workflowAppOutput } from '../support/workflow-app-output.js';
import { EXPECTED_RAW_ROWS } from '../support/expected-index.js';
import { expectServedIndexMatches, readServedIndex, waitForServedIndex } from '../support/index-assertions.js';
import { REPO_ROOT, type RunningServer, SOURCE_NODE_ARGS, runProcess, startServer } from '../support/processes.js';

const available = await postgresReachable();

const suffix = randomBytes(4).toString('hex');
const READER = { user: `wi_e2e_reader_${suffix}`, password: `reader-${suffix}` };
const FORWARDER = { user: `wi_e2e_forwarder_${suffix}`, password: `forwarder-${suffix}` };
const POD = 'order-app-5d8f7c9b6-x2x7q';
const CONTAINER_LOG = podLogPath(POD, 'workflows', 'app');
const WAIT_FOR_SCHEMA = join('kustomize', 'components', 'backend-postgresql', 'wait-for-schema.mjs');

describe.skipIf(!available)('local pipeline: app stdout → Fluent Bit routing → PostgreSQL → GraphQL server', () => {
  const app = workflowAppOutput();
  const events = eventsOf(app);
  // The app prints the first half, the forwarder ships it (but crashes before its last chunk), the app prints
  // the rest, and a forwarder without tail position ships the whole file again.
  const cut = Math.floor(app.length / 2);
  const { config, parsers } = loadFluentBitConfig('postgresql');
  /** A Fluent Bit process: its filters' state starts empty. */
  const newPipeline = () => createPipeline({
    config,
    parsers,
    env: deployedEnvironment({ DATABASE_USERNAME: FORWARDER.user, DATABASE_PASSWORD: FORWARDER.password }),
    podMetadata: () => ({ podId: '6a1f0c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
  });
  const pipeline = newPipeline();
  // The node's log files and the tail position database on its disk (a hostPath: it outlives every process).
  const nodeLogs = new NodeLogs();
  const tailDatabase = new TailDatabase();

  let db: TestDatabase;
  let server: RunningServer | undefined;
  let baseUrl: string;
  let sentBeforeRestart: PgsqlFlush[] = [];
  let backlog: PgsqlFlush[] = [];
  const serverDatabaseUrl = (): string => {
    const u = new URL(db.url);
    u.username = '';
    u.password = '';
    return u.toString();
  };
  const asForwarder = async (statements: readonly string[]): Promise<void> => {
    const client = new pg.Client({ connectionString: db.urlAs(FORWARDER.user, FORWARDER.password) });
    await client.connect();
    try {
      for (const sql of statements) await client.query(sql);
    } finally {
      await client.end();
    }
  };
  /** What one forwarder process reads now (from its positions), as the pgsql outputs flush it. */
  const forward = (run: TailRun): PgsqlFlush[] => flushStatements(pipeline, run.read().flatMap((r) => r.delivered), 10);
  const counts = async () => (await db.pool.query(`SELECT
      (SELECT count(*) FROM workflow_raw.workflow_events_raw)::int + (SELECT count(*) FROM workflow_raw.task_events_raw)::int AS raw,
      (SELECT count(*) FROM workflow_index.ingest_errors)::int AS errors`)).rows[0] as { raw: number; errors: number };
  const waitForSchema = (timeoutSeconds: number) => runProcess([WAIT_FOR_SCHEMA], {
    DATABASE_URL: serverDatabaseUrl(),
    DATABASE_USERNAME: READER.user,
    DATABASE_PASSWORD: READER.password,
    WAIT_TIMEOUT_SECONDS: String(timeoutSeconds),
    APP_ROOT: REPO_ROOT,
  }, 60_000);

  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false, prefix: 'wi_e2e' });
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
    await dropLoginRoles(...[READER.user, FORWARDER.user]);
  });

  it('keeps the server pods waiting while the database is not migrated (wait-for-schema gives up with the reason)', async () => {
    const result = await waitForSchema(2);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/wait-for-schema: gave up after 2 s: .+ \([^()\s]+:\d+\/wi_e2e_[0-9a-f]+\)\n$/);
    expect(result.stderr).not.toContain(READER.password);
  }, 30_000);

  it('applies the schema and creates the reader and forwarder logins with `init-job migrate`', async () => {
    const result = await runProcess([...SOURCE_NODE_ARGS, 'init-job/src/main.ts', 'migrate', '--wait-timeout=10'], {
      DATABASE_URL: db.url,
      WORKFLOW_INDEX_READER_USERNAME: READER.user,
      WORKFLOW_INDEX_READER_PASSWORD: READER.password,
      WORKFLOW_INDEX_FORWARDER_USERNAME: FORWARDER.user,
      WORKFLOW_INDEX_FORWARDER_PASSWORD: FORWARDER.password,
    }, 60_000);
    expect(result.code, result.stderr).toBe(0);
    const roles = await db.pool.query(`SELECT r.rolname, g.rolname AS grp FROM pg_roles r JOIN pg_auth_members m ON m.member = r.oid JOIN pg_roles g ON g.oid = m.roleid
      WHERE r.rolname IN ($1, $2) ORDER BY 1`, [FORWARDER.user, READER.user]);
    expect(roles.rows).toEqual([
      { rolname: FORWARDER.user, grp: 'workflow_index_forwarder' },
      { rolname: READER.user, grp: 'workflow_index_reader' },
    ]);
  }, 90_000);

  it('lets the server pods start once the schema is there', async () => {
    const result = await waitForSchema(10);
    expect([result.code, result.stderr.trim().split('\n').pop()]).toEqual([0, expect.stringMatching(/^wait-for-schema: schema ready at [^\s]+:\d+\/wi_e2e_[0-9a-f]+$/)]);
  }, 30_000);

  it('starts the production server as the reader login and reports ready', async () => {
    server = await startServer({
      NODE_ENV: 'production',
      DATABASE_URL: serverDatabaseUrl(),
      DATABASE_USERNAME: READER.user,
      DATABASE_PASSWORD: READER.password,
      LOG_LEVEL: 'warn',
    });
    baseUrl = server.baseUrl;
    const ready = await fetch(`${server.baseUrl}/q/health/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('UP');
    expect(await readServedIndex(baseUrl)).toEqual({ instances: [], tasks: [] });
  }, 90_000);

  it('serves what the forwarder shipped of the first half, and nothing of the rest', async () => {
    nodeLogs.append(CONTAINER_LOG, criLogFile(app.slice(0, cut)).content);
    await asForwarder(startupStatements(pipeline));
    const flushes = forward(startTail(newPipeline(), nodeLogs, tailDatabase));
    // The forwarder is killed before it could flush its last chunk, which waits in its filesystem buffer.
    sentBeforeRestart = flushes.slice(0, -1);
    backlog = flushes.slice(-1);
    await asForwarder(sentBeforeRestart.map((f) => f.sql));

    const started = new Set(sentBeforeRestart.flatMap((f) => f.records)
      .filter((r) => String(r.record['eventType']).endsWith('.workflow.started.v1'))
      .map((r) => String(r.record['instanceId'])));
    const index = await readServedIndex(baseUrl);
    expect(index.instances.map((i) => i.id)).toEqual([...started].sort());
    const notYet = events.find((e) => !started.has(e.instanceId))!.instanceId;
    expect(await graphqlData(baseUrl, 'query ($id: ID!) { getWorkflowInstance(id: $id) { id } }', { id: notYet })).toEqual({ getWorkflowInstance: null });
    expect(await counts()).toEqual({ raw: sentBeforeRestart.reduce((n, f) => n + f.records.length, 0), errors: 0 });
  }, 60_000);

  it('after a forwarder restart, which sends its buffered chunk and reads on from its stored offset, serves every instance and task execution exactly once', async () => {
    const firstHalf = criLogFile(app.slice(0, cut)).content.length;
    nodeLogs.append(CONTAINER_LOG, criLogFile(app.slice(cut), { startMicros: 1_778_577_241_000_000 + 137 * cut }).content);
    await asForwarder(startupStatements(pipeline));
    const restarted = startTail(newPipeline(), nodeLogs, tailDatabase);
    const flushes = forward(restarted);
    expect(restarted.log).toEqual([]);
    expect(restarted.reads.map((r) => [r.name, r.from])).toEqual([[CONTAINER_LOG, firstHalf]]);
    await asForwarder([...backlog, ...flushes].map((f) => f.sql));

    const index = await waitForServedIndex(baseUrl, 60_000);
    expectServedIndexMatches(index, events);
    // Nothing was read or written twice.
    expect(await counts()).toEqual({ raw: EXPECTED_RAW_ROWS.workflow + EXPECTED_RAW_ROWS.task, errors: 0 });
    expect(sentBeforeRestart.reduce((n, f) => n + f.records.length, 0)).toBeGreaterThan(20);
  }, 90_000);

  it('after a restart that lost the position database (the whole file re-sent from its head), serves every instance and task execution exactly once', async () => {
    const resent = forward(startTail(newPipeline(), nodeLogs, new TailDatabase()));
    await asForwarder(resent.map((f) => f.sql));
    expectServedIndexMatches(await waitForServedIndex(baseUrl, 60_000), events);
    // Everything was really written twice, and the normalizer made nothing of the duplicates.
    expect(await counts()).toEqual({ raw: 2 * (EXPECTED_RAW_ROWS.workflow + EXPECTED_RAW_ROWS.task), errors: 0 });
  }, 90_000);

  it('drains and exits 0 on SIGTERM', async () => {
    const code = await server!.stop();
    server = undefined;
    expect(code).toBe(0);
  }, 30_000);
});
