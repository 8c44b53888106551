// npm run bench:query [-- --instances N --tasks-per-instance 10 --duration 10 --connections 10 --database-url URL]
//
// Query performance of the real server. Generates a dataset directly into the normalized tables of a scratch
// database (bulk SQL: this measures queries, not ingestion), starts main.ts in production mode as a child process
// connected as a reader login role, and measures four GraphQL queries with autocannon: at saturation (rps, p50,
// p99) and at a fixed 100 requests/s (p99). In the same run the same SQL goes straight through a `pg` pool at the
// same concurrency (the floor: what the database alone delivers), giving the ratio server/floor. The server's peak
// RSS comes from /proc/<pid>/status (VmHWM), its CPU per request from /proc/<pid>/stat. `--auth admin|scoped` runs the
// server with sign-in on (bench/auth/bench-auth.ts): a test OpenID provider, a bearer token on every measured request.
// The last line printed is one JSON object with the figures.
import { benchInstanceId } from '@workflow-index/testkit';
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { InstanceFilter, TaskFilter, SimpleInstanceFilter, Reader, SimpleTaskFilter } from '@workflow-index/core';
import { type InstanceFilterArg, type TaskFilterArg, translateInstanceFilter, translateTaskFilter } from '@workflow-index/core';
import { DEFAULT_COUNT_EXACT_LIMIT, loadCoreConfig, type WorkPrices } from '@workflow-index/core';
import { migrate } from '@workflow-index/postgresql';
import { generateDataset, recordStatements } from '@workflow-index/postgresql/testing';
import { type CursorRows, type MixQuery, queryMix, selectQueries } from '../mix/query-mix.js';
import { HEAVIEST_REQUEST_NAME, heaviestLegalRequest, type RequestLimits } from '../mix/heaviest-request.js';
import { seededRandom } from '@workflow-index/testkit';
import { createPostgresqlReader, preparedStatementName } from '@workflow-index/postgresql';
import { holdsRate, type Measurement, measureFixedRate, measureHttp, measureLoop, round } from '../load/http-load.js';
import { measureWrk, wrkAvailable } from '../load/wrk-load.js';
import { cpuMs, peakRssMiB, waitUntilReady } from '../load/server-process.js';
import { AUTH_MODES, type AuthMode, type BenchAuth, checkAuthEnforced, startBenchAuth } from '../auth/bench-auth.js';
import { freePort } from '@workflow-index/testkit';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 100_000, describe: 'workflow instances generated' })
  .option('tasks-per-instance', { type: 'number', default: 10, describe: 'task executions per instance' })
  .option('duration', { type: 'number', default: 10, describe: 'seconds per measurement' })
  .option('warmup', { type: 'number', default: 2, describe: 'seconds of warm-up per query before measuring' })
  .option('connections', { type: 'number', default: 10, describe: 'concurrent HTTP connections at saturation = pool size = floor concurrency' })
  .option('load-generator', {
    type: 'string', choices: ['autocannon', 'wrk'], default: 'autocannon',
    describe: 'what drives the saturation measurements: autocannon in this process (the default), or wrk (Debian package wrk: C, a fraction of the CPU per request on a machine the server shares); the fixed rate and the floor are the same either way',
  })
  .option('queries', { type: 'string', describe: 'comma-separated names of the mix to measure (default: all); the heaviest legal request is measured only when named too (heaviest-legal-request)' })
  .option('rate', { type: 'number', default: 100, describe: 'requests/s of the fixed-rate measurement (uniform arrivals)' })
  .option('server', { type: 'string', choices: ['dist', 'source'], default: 'dist', describe: 'run the server as production does (npm run build, then dist/main.js) or from source through tsx' })
  .option('server-node-options', { type: 'string', describe: "NODE_OPTIONS for the server process; default: the server image's (Dockerfile.server), so the server runs with the heap settings production has" })
  .option('server-node-flags', { type: 'string', default: '', describe: 'node flags for the server process that NODE_OPTIONS refuses, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (written when the bench stops it)' })
  .option('server-env', { type: 'string', default: '', describe: 'more environment for the server, comma-separated KEY=VALUE pairs (an A/B of a setting, e.g. GRAPHQL_COMPILED_EXECUTION=false)' })
  .option('auth', {
    type: 'string', choices: AUTH_MODES, default: 'none',
    describe: 'access control of the server: none (AUTH_MODE=none), admin (AUTH_MODE=oidc, a token of a group with rule * and payloads: the token is verified, the plain Reader reads) or scoped (a group with half the namespaces, no payloads: the scoped Reader adds a namespace filter); a test OpenID provider runs in this process and every measured request carries its bearer token; the floor is unchanged',
  })
  .option('log-level', { type: 'string', default: 'info', describe: "the server's LOG_LEVEL (info is the production default: one JSON line per request)" })
  .option('keep-database', { type: 'boolean', default: false, describe: 'keep the generated database at the end (its name is printed) for --reuse-database' })
  .option('reuse-database', { type: 'string', describe: 'measure a database a previous --keep-database run generated (same --instances) instead of generating one; it is kept at the end' })
  .option('database-url', { type: 'string', default: process.env['WI_BENCH_DATABASE_URL'] ?? process.env['WI_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', describe: 'admin connection; a scratch database is created and dropped' })
  .strict()
  .parseSync();

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAIN_SOURCE = fileURLToPath(new URL('../../server/postgresql/src/main.ts', import.meta.url));
const MAIN_DIST = fileURLToPath(new URL('../../server/postgresql/dist/main.js', import.meta.url));
// One login per run: helpers benchmarking side by side on one PostgreSQL must not re-password or drop each other's.
const READER_ROLE = `wi_bench_query_reader_${randomBytes(4).toString('hex')}`;
const READER_PASSWORD = randomBytes(12).toString('hex');

const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function withDatabase(url: string, database: string, user?: string, password?: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  if (user !== undefined) {
    u.username = user;
    u.password = password ?? '';
  }
  return u.toString();
}

interface Statement { readonly text: string; readonly values: readonly unknown[] }

/** One request of a query: the GraphQL body the server gets, and the SQL the reader issues for it (the floor). */
interface Variant { readonly body: string; readonly statements: readonly Statement[] }

interface QuerySpec extends MixQuery {
  /** The reader calls the resolvers make for these variables (captured once to get the SQL of the floor). */
  readonly readerCalls: (reader: Reader, variables: Record<string, unknown>) => Promise<unknown>;
}

/**
 * The reader calls the resolvers make for each row of the mix (query-mix.ts: names, GraphQL bodies and variants, shared
 * with the OpenSearch bench), captured once to get the SQL of the floor.
 */
function readerCallsOf(cursorRows: CursorRows): Readonly<Record<string, QuerySpec['readerCalls']>> {
  // The cursor variants are built from cursorRows in order; the reader call finds its row by the cursor's id.
  const variantIndex = (v: Record<string, unknown>): number => {
    const decoded = JSON.parse(Buffer.from(String(v['after']), 'base64url').toString('utf8')) as [string, string, string[], string[]];
    return cursorRows.findIndex((row) => row.id === decoded[3][1]);
  };
  return {
    'instances-page': (reader, v) => reader.listInstances({
      filter: { kind: 'and', nodes: [
        { kind: 'string', field: 'status', predicate: { op: 'eq', value: String(v['status']) } },
        { kind: 'string', field: 'namespace', predicate: { op: 'eq', value: String(v['namespace']) } },
      ] } satisfies SimpleInstanceFilter,
      orderBy: [{ field: 'startDate', direction: 'DESC' }], limit: 20, offset: 0, payloads: false,
    }),
    // One statement: the resolver asks for the instance with its tasks (taskExecutions is selected).
    'instance-by-id-with-tasks': (reader, v) => reader.getInstance(String(v['id']), { payloads: false, tasks: { payloads: false } }),
    'tasks-by-name-and-time': (reader, v) => reader.listTasks({
      filter: { kind: 'and', nodes: [
        { kind: 'string', field: 'taskName', predicate: { op: 'eq', value: String(v['name']) } },
        { kind: 'time', field: 'startDate', predicate: { op: 'between', from: String(v['from']), to: String(v['to']) } },
      ] } satisfies SimpleTaskFilter,
      orderBy: [], limit: 20, offset: 0, payloads: false,
    }),
    'instances-oldest-first-offset': (reader, v) => reader.listInstances({ filter: null, orderBy: [{ field: 'startDate', direction: 'ASC' }], limit: 20, offset: Number(v['offset']), payloads: false }),
    'instances-oldest-first-cursor': (reader, v) => {
      const row = cursorRows[variantIndex(v)] as CursorRows[number];
      return reader.listInstances({ filter: null, orderBy: [{ field: 'startDate', direction: 'ASC' }], after: { values: [row.start, row.id] }, limit: 20, offset: 0, payloads: false });
    },
    'instances-newest-first-cursor': (reader, v) => {
      const row = cursorRows[variantIndex(v)] as CursorRows[number];
      return reader.listInstances({ filter: null, orderBy: [], after: { values: [row.start, row.id] }, limit: 20, offset: 0, payloads: false });
    },
    'instances-name-like': (reader, v) => reader.listInstances({
      filter: { kind: 'string', field: 'name', predicate: { op: 'like', pattern: [{ kind: 'literal', text: String(v['pattern']).slice(0, -1) }, { kind: 'any' }] } },
      orderBy: [], limit: 20, offset: 0, payloads: false,
    }),
    'tasks-of-instance': (reader, v) => reader.tasksOfInstances([String(v['id'])], { payloads: false }),
    'instances-json-input': (reader, v) => reader.listInstances({
      filter: { kind: 'json', field: 'input', path: ['customer', 'id'], value: String(v['customer']) },
      orderBy: [], limit: 20, offset: 0, payloads: false,
    }),
    // 0.5 % to 7 % of the runs match: above COUNT_EXACT_LIMIT for most pairs at 1,000,000 runs (the exact count
    // stops at the limit, then the planner's estimate answers), exact at 100,000 runs.
    'count-instances': (reader, v) => reader.countInstances({ kind: 'and', nodes: [
      { kind: 'string', field: 'status', predicate: { op: 'eq', value: String(v['status']) } },
      { kind: 'string', field: 'namespace', predicate: { op: 'eq', value: String(v['namespace']) } },
    ] }, { exactLimit: DEFAULT_COUNT_EXACT_LIMIT }),
    'status-counts': (reader, v) => reader.countInstancesByStatus(
      { kind: 'string', field: 'namespace', predicate: { op: 'eq', value: String(v['namespace']) } },
      { exactLimit: DEFAULT_COUNT_EXACT_LIMIT },
    ),
    // 100,000 tasks per name at 100,000 runs, 1,000,000 at 1,000,000: above COUNT_EXACT_LIMIT, so the bounded count reads
    // 10,001 index entries, then the planner's estimate answers (exact: false).
    'count-tasks-by-name': (reader, v) => reader.countTasks(taskFilterOf(v), { exactLimit: DEFAULT_COUNT_EXACT_LIMIT }),
    // The faulted tasks of one name: 1,000 at 100,000 runs, 10,000 at 1,000,000 (exact).
    'count-tasks-faulted': (reader, v) => reader.countTasks(taskFilterOf(v), { exactLimit: DEFAULT_COUNT_EXACT_LIMIT }),
    // Runs where a task of one name faulted: 1 % of the runs each.
    'instances-task-faulted': (reader, v) => reader.listInstances({ filter: instanceFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
    // The faulted tasks of one workflow in one day (about 20 at 100,000 runs, 200 at 1,000,000), newest first.
    'tasks-workflow-faulted-day': (reader, v) => reader.listTasks({ filter: taskFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
    // The tasks of one workflow and task name: 5,883 at 100,000 runs (exact, an index-only count), 58,824 at
    // 1,000,000 (the bounded count reads 10,001 index entries, then the estimate).
    'count-tasks-by-workflow-and-name': (reader, v) => reader.countTasks(taskFilterOf(v), { exactLimit: DEFAULT_COUNT_EXACT_LIMIT }),
    // "Faulted chargeCard tasks of payment-capture this week": one workflow, one task name, FAULTED, one week, newest
    // first (about 14 at 100,000 runs, 140 at 1,000,000).
    'tasks-workflow-name-faulted-week': (reader, v) => reader.listTasks({ filter: taskFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
    // How many runs faulted at a task of one name: 1,000 at 100,000 runs (exact), 10,000 at 1,000,000.
    'count-instances-task-faulted': (reader, v) => reader.countInstances(instanceFilterOf(v), { exactLimit: DEFAULT_COUNT_EXACT_LIMIT }),
    // Runs longer than 4 to 55 s, newest first: 1.5 % to 0.2 % of the runs (the dataset's slow tail).
    'instances-duration-gt': (reader, v) => reader.listInstances({ filter: instanceFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
    // The slowest runs of one workflow.
    'instances-slowest': (reader, v) => reader.listInstances({ filter: instanceFilterOf(v), orderBy: [{ field: 'duration', direction: 'DESC' }], limit: 20, offset: 0, payloads: false }),
    // input.amount > 900 … 989 (amounts are g % 1000 + 0.5): 10 % to 1 % of the runs, so a page reads 200 to 2,000
    // rows of the start index (no index serves a JSON comparison; a rarer value reads proportionally more).
    'instances-json-gt': (reader, v) => reader.listInstances({ filter: instanceFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
    // input.customer.id contains "C-10" … "C-49": 111 of the 5,000 customers each (C-10, C-100…109, C-1000…1099),
    // 2.2 % of the runs, about 900 rows of the start index per page ("C-50" … "C-99" match 11 customers, 0.22 %:
    // ten times as many rows; a text that matches nothing reads the whole table).
    'instances-json-contains': (reader, v) => reader.listInstances({ filter: instanceFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
    // input.customer.tier ne "std" or "gold": the other tier's runs, 1/3 or 2/3 (a page reads 30 to 60 rows of the
    // start index; ne is the complement of a value, so it is never selective on its own).
    'instances-json-ne': (reader, v) => reader.listInstances({ filter: instanceFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
    // input.customer.id in three customers: 0.06 % of the runs (60 at 100,000), pre-selected by the GIN index like eq.
    'instances-json-in': (reader, v) => reader.listInstances({ filter: instanceFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
    // input.coupon exists: 2 % of the runs (about 1,000 rows of the start index per page; no index answers whether a
    // key exists, see docs/api.md, Implementation notes), and exists: false (98 %).
    'instances-json-exists': (reader, v) => reader.listInstances({ filter: instanceFilterOf(v), orderBy: [], limit: 20, offset: 0, payloads: false }),
  };
}

function querySpecs(instances: number, cursorRows: CursorRows): QuerySpec[] {
  const calls = readerCallsOf(cursorRows);
  return queryMix(instances, cursorRows).map((row) => {
    const readerCalls = calls[row.name];
    if (readerCalls === undefined) throw new Error(`bench:query: no reader calls for the mix's row ${row.name}`);
    return { ...row, readerCalls };
  });
}

const instanceFilterOf = (v: Record<string, unknown>): InstanceFilter | null => translateInstanceFilter(v['filter'] as InstanceFilterArg);
const taskFilterOf = (v: Record<string, unknown>): TaskFilter | null => translateTaskFilter(v['filter'] as TaskFilterArg);

/**
 * The heaviest request the server's limits accept (heaviest-request.ts: its size from this backend's prices), four
 * reads at a time (GRAPHQL_MAX_CONCURRENT_READS). Measured apart, after the mix, for the RSS it costs at saturation.
 */
function heaviestSpec(prices: WorkPrices, limits: RequestLimits): QuerySpec & { readonly summary: string } {
  const heavy = heaviestLegalRequest(prices, limits);
  return {
    name: heavy.name,
    query: heavy.query,
    variables: [{}],
    summary: `${heavy.aliases.length} aliases (limits ${[...new Set(heavy.aliases.map((a) => a.limit))].join(', ')}), cost ${heavy.cost} of GRAPHQL_MAX_COST ${limits.maxCost}`,
    readerCalls: async (reader) => {
      for (const alias of heavy.aliases) {
        await reader.listInstances({ filter: { kind: 'time', field: 'startDate', predicate: { op: 'lt', value: alias.before } }, orderBy: [{ field: 'startDate', direction: 'DESC' }], limit: alias.limit, offset: 0, payloads: true });
      }
    },
  };
}

/**
 * A reader on an instrumented pool: `capture` runs each spec's reader calls once, recording the statements of every
 * variant. The reader's prices (workPrices) size the heaviest request before it is captured.
 */
function captureSession(url: string): { reader: Reader; capture: (specs: readonly QuerySpec[]) => Promise<Map<string, Variant[]>> } {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  let recording: Statement[] = [];
  recordStatements(pool, (statement) => recording.push(statement), { plainText: true });
  const reader = createPostgresqlReader({ pool });
  const capture = async (specs: readonly QuerySpec[]): Promise<Map<string, Variant[]>> => {
    const result = new Map<string, Variant[]>();
    for (const spec of specs) {
      const variants: Variant[] = [];
      for (const variables of spec.variables) {
        recording = [];
        await spec.readerCalls(reader, variables);
        variants.push({ body: JSON.stringify({ query: spec.query, variables }), statements: recording });
      }
      result.set(spec.name, variants);
    }
    return result;
  };
  return { reader, capture };
}

/**
 * The floor: the same statements straight through a pg pool, `concurrency` loops for `duration` seconds. The ones the
 * reader sends as named (prepared) statements are named here too, so both sides parse and plan them once per session.
 */
function measureFloor(pool: pg.Pool, variants: readonly Variant[], concurrency: number, duration: number): Promise<Measurement> {
  return measureLoop(variants, async (variant) => {
    const client = await pool.connect();
    try {
      for (const s of variant.statements) {
        // A count's exact attempt cut short by its own SET LOCAL statement_timeout is what the reader does too
        // (it answers the estimate then): replayed, not failed.
        const name = preparedStatementName(s.text);
        await client.query(name === undefined ? { text: s.text, values: [...s.values] } : { name, text: s.text, values: [...s.values] }).catch((error: { code?: string }) => {
          if (error.code !== '57014') throw error;
        });
      }
    } finally {
      client.release();
    }
  }, concurrency, duration);
}

const bodies = (variants: readonly Variant[]): string[] => variants.map((v) => v.body);

/** NODE_OPTIONS of the server image (the ENV of Dockerfile.server's runtime stage): the bench starts the server as production does. */
function imageNodeOptions(): string {
  const dockerfile = readFileSync(new URL('../../Dockerfile.server', import.meta.url), 'utf8');
  const match = /^\s*NODE_OPTIONS=(?:"([^"]*)"|(\S+))/m.exec(dockerfile);
  if (match === null) throw new Error('Dockerfile.server sets no NODE_OPTIONS: give --server-node-options');
  return match[1] ?? match[2] ?? '';
}

async function main(): Promise<void> {
  const started = performance.now();
  const serverEnv: Record<string, string> = Object.fromEntries(argv['server-env'].split(',').filter((pair) => pair.trim() !== '').map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--server-env takes KEY=VALUE pairs, got ${pair}`);
    return [pair.slice(0, at).trim(), pair.slice(at + 1)];
  }));
  const reuse = argv['reuse-database'];
  if (argv['load-generator'] === 'wrk' && !wrkAvailable()) throw new Error('--load-generator wrk needs the wrk command (Debian: apt-get install wrk)');
  if (reuse !== undefined && !/^wi_bench_query_[0-9a-f]{8}$/.test(reuse)) throw new Error(`--reuse-database takes a name a --keep-database run printed (wi_bench_query_xxxxxxxx), got ${reuse}`);
  const dbName = reuse ?? `wi_bench_query_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: argv['database-url'] });
  await admin.connect();
  if (reuse === undefined) await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.query(`DO $$ BEGIN CREATE ROLE ${READER_ROLE} LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
  await admin.query(`ALTER ROLE ${READER_ROLE} LOGIN PASSWORD '${READER_PASSWORD}'`);
  const ownerUrl = withDatabase(argv['database-url'], dbName);
  const readerUrl = withDatabase(argv['database-url'], dbName, READER_ROLE, READER_PASSWORD);
  let server: ReturnType<typeof spawn> | null = null;
  let auth: BenchAuth | null = null;
  try {
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    try {
      if (reuse === undefined) {
        await migrate(owner);
        const genStart = performance.now();
        log(`dataset: ${argv.instances} instances × ${argv['tasks-per-instance']} task executions, written by bulk SQL straight into the normalized tables (a query benchmark: the ingestion path is bench:ingest's)`);
        await generateDataset(owner, argv.instances, argv['tasks-per-instance']);
        log(`dataset ready in ${round((performance.now() - genStart) / 1000, 1)} s`);
      } else {
        const count = (await owner.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_index.workflow_instances')).rows[0]?.n;
        if (count !== argv.instances) throw new Error(`${dbName} holds ${count} instances, not --instances ${argv.instances}`);
        log(`dataset: reusing ${dbName} (${count} instances)`);
      }
      await admin.query(`GRANT workflow_index_reader TO ${READER_ROLE}`);
    } finally {
      await owner.end();
    }

    const picks = seededRandom(20261124);
    const cursorIds = Array.from({ length: 200 }, () => benchInstanceId(1 + Math.floor(picks() * argv.instances)));
    const cursorClient = new pg.Client({ connectionString: ownerUrl });
    await cursorClient.connect();
    const cursorRows = await cursorClient
      .query<{ id: string; start: string }>(`SELECT id, to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS start FROM workflow_index.workflow_instances WHERE id = ANY($1::text[]) ORDER BY id`, [cursorIds])
      .finally(() => cursorClient.end());
    const allSpecs = querySpecs(argv.instances, cursorRows.rows);
    const specs = selectQueries(allSpecs, argv.queries, [HEAVIEST_REQUEST_NAME]);
    const measureHeavy = argv.queries === undefined || argv.queries.split(',').some((name) => name.trim() === HEAVIEST_REQUEST_NAME);
    const session = captureSession(readerUrl);
    let heavy: ReturnType<typeof heaviestSpec>;
    let variants: Map<string, Variant[]>;
    try {
      // Sized by this backend's prices and the server's limits (its defaults, or what --server-env sets).
      heavy = heaviestSpec(session.reader.workPrices, loadCoreConfig({ NODE_ENV: 'production', ...serverEnv }).graphql);
      variants = await session.capture([...specs, heavy]);
    } finally {
      await session.reader.close();
    }
    log(`${heavy.name}: ${heavy.summary}`);

    let serverArgs = ['--conditions=source', '--import', 'tsx', MAIN_SOURCE];
    if (argv.server === 'dist') {
      // What `npm run serve:postgresql` runs: the compiled server.
      const build = spawnSync(process.execPath, [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-b', 'tsconfig.build.json'], { cwd: REPO_ROOT, encoding: 'utf8' });
      if (build.status !== 0) throw new Error(`npm run build failed (use --server source to run from source):\n${build.stdout}${build.stderr}`);
      serverArgs = [MAIN_DIST];
    }
    auth = await startBenchAuth(argv.auth as AuthMode);
    const authHeaders = auth.headers;
    const port = await freePort();
    const nodeFlags = argv['server-node-flags'].split(' ').filter((flag) => flag !== '');
    const nodeOptions = argv['server-node-options'] ?? imageNodeOptions();
    server = spawn(process.execPath, [...nodeFlags, ...serverArgs], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', NODE_OPTIONS: nodeOptions, HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1', DATABASE_URL: readerUrl,
        DATABASE_POOL_MIN: String(argv.connections), DATABASE_POOL_MAX: String(argv.connections), LOG_LEVEL: argv['log-level'],
        // The load generator is one address standing in for many clients: no per-client in-flight limit.
        HTTP_MAX_REQUESTS_PER_CLIENT: '0',
        ...auth.serverEnv,
        ...serverEnv,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const baseUrl = `http://127.0.0.1:${port}`;
    await waitUntilReady(server, `${baseUrl}/q/health/ready`, 'the server', 60);
    const pid = server.pid as number;
    log(`server pid ${pid} on ${baseUrl}: ${argv.server === 'dist' ? 'dist/main.js' : 'src/main.ts via tsx'}, production mode, reader role, pool ${argv.connections}, LOG_LEVEL ${argv['log-level']}, NODE_OPTIONS ${nodeOptions === '' ? '(none)' : nodeOptions}${argv['server-node-options'] === undefined ? ' (the image\'s)' : ''}${nodeFlags.length > 0 ? `, node flags ${nodeFlags.join(' ')}` : ''}${Object.keys(serverEnv).length > 0 ? `, environment ${argv['server-env']}` : ''}; auth ${auth.description}`);
    log(`saturation: ${argv['load-generator']}, ${argv.connections} connections, ${argv.duration} s; fixed rate: ${argv.rate} requests/s, uniform arrivals, latency from the scheduled start; floor: the reader's SQL through a pg pool, ${argv.connections} concurrent, ${argv.duration} s`);

    // Every query must answer with data before it is measured: a benchmark of errors measures nothing.
    for (const spec of [...specs, heavy]) {
      const first = variants.get(spec.name)?.[0] as Variant;
      const response = (await (await fetch(`${baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders }, body: first.body })).json()) as { data?: unknown; errors?: unknown };
      if (response.errors !== undefined || response.data === undefined) throw new Error(`${spec.name} answered ${JSON.stringify(response).slice(0, 500)}`);
    }
    await checkAuthEnforced(baseUrl, auth, (variants.get(specs[0]?.name ?? heavy.name) as Variant[])[0]!.body);

    const saturate = argv['load-generator'] === 'wrk' ? measureWrk : measureHttp;
    const floorPool = new pg.Pool({ connectionString: readerUrl, max: argv.connections });
    let heavyRow: { rps: number; p50Ms: number; p99Ms: number; floorRps: number; ratio: number; failures: number; mixRssMiB: number; rssMiB: number } | null = null;
    const results: Array<{ name: string; rps: number; p50Ms: number; p99Ms: number; p99At100RpsMs: number; fixedRps: number; floorRps: number; floorP50Ms: number; floorP99Ms: number; ratio: number; serverCpuMsPerRequest: number; failures: number }> = [];
    try {
      // Warm every code path (JIT, plan caches, buffer cache) before the first measurement, not just its own.
      for (const spec of specs) {
        const list = variants.get(spec.name) as Variant[];
        await saturate(baseUrl, bodies(list), { connections: argv.connections, duration: argv.warmup, headers: authHeaders });
        await measureFloor(floorPool, list, argv.connections, argv.warmup);
      }
      for (const spec of specs) {
        const list = variants.get(spec.name) as Variant[];
        const cpuBefore = cpuMs(pid);
        const saturated = await saturate(baseUrl, bodies(list), { connections: argv.connections, duration: argv.duration, headers: authHeaders });
        const serverCpuMsPerRequest = round((cpuMs(pid) - cpuBefore) / Math.max(1, saturated.requests), 3);
        const fixed = await measureFixedRate(baseUrl, bodies(list), argv.rate, argv.duration, authHeaders);
        const floor = await measureFloor(floorPool, list, argv.connections, argv.duration);
        const row = {
          name: spec.name, rps: saturated.rps, p50Ms: saturated.p50Ms, p99Ms: saturated.p99Ms, p99At100RpsMs: fixed.p99Ms, fixedRps: fixed.rps,
          floorRps: floor.rps, floorP50Ms: floor.p50Ms, floorP99Ms: floor.p99Ms, ratio: round(saturated.rps / floor.rps, 3), serverCpuMsPerRequest,
          failures: saturated.failures + fixed.failures,
        };
        results.push(row);
        log(`${spec.name.padEnd(26)} ${String(row.rps).padStart(8)} rps  p50 ${row.p50Ms} ms  p99 ${row.p99Ms} ms  | at ${argv.rate} rps: p50 ${fixed.p50Ms} ms p99 ${row.p99At100RpsMs} ms (${fixed.rps} rps)  | floor ${row.floorRps} rps (p50 ${row.floorP50Ms} ms, p99 ${row.floorP99Ms} ms)  ratio ${row.ratio}  | server CPU ${row.serverCpuMsPerRequest} ms/request${row.failures > 0 ? `  FAILURES ${row.failures}` : ''}`);
      }
      const mixRss = peakRssMiB(pid);
      if (measureHeavy) {
        const list = variants.get(heavy.name) as Variant[];
        const saturated = await saturate(baseUrl, bodies(list), { connections: argv.connections, duration: argv.duration, headers: authHeaders });
        const floor = await measureFloor(floorPool, list, argv.connections, argv.duration);
        heavyRow = { rps: saturated.rps, p50Ms: saturated.p50Ms, p99Ms: saturated.p99Ms, floorRps: floor.rps, ratio: round(saturated.rps / floor.rps, 3), failures: saturated.failures, mixRssMiB: mixRss, rssMiB: peakRssMiB(pid) };
        log(`${heavy.name.padEnd(26)} ${String(heavyRow.rps).padStart(8)} rps  p50 ${heavyRow.p50Ms} ms  p99 ${heavyRow.p99Ms} ms  | floor ${heavyRow.floorRps} rps  ratio ${heavyRow.ratio}${heavyRow.failures > 0 ? `  FAILURES ${heavyRow.failures}` : ''}  | peak RSS ${mixRss} MiB after the mix, ${heavyRow.rssMiB} MiB after this`);
      }
    } finally {
      await floorPool.end();
    }
    const peakRss = peakRssMiB(pid);
    const page = results.find((r) => r.name === 'instances-page');
    log(`peak RSS of the server: ${peakRss} MiB; total ${round((performance.now() - started) / 1000, 1)} s; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    log(`targets: p99 < 50 ms at ${argv.rate} rps for every query: ${results.every((r) => holdsRate(r, argv.rate)) ? 'met' : 'NOT met (a row over 50 ms, below the rate, or with failures)'}; page query ≥ 0.5 × floor: ${page && page.ratio >= 0.5 ? 'met' : 'NOT met'} (${page?.ratio}); RSS < 200 MiB: ${peakRss < 200 ? 'met' : 'NOT met'}`);
    log(JSON.stringify({
      instances: argv.instances,
      taskExecutions: argv.instances * argv['tasks-per-instance'],
      connections: argv.connections,
      durationSeconds: argv.duration,
      loadGenerator: argv['load-generator'],
      fixedRate: argv.rate,
      server: argv.server,
      auth: argv.auth,
      dataset: 'bulk SQL into the normalized tables',
      queries: results.map(({ name, rps, p50Ms, p99Ms, p99At100RpsMs, fixedRps, floorRps, ratio, serverCpuMsPerRequest, failures }) => ({ name, rps, p50Ms, p99Ms, p99At100RpsMs, fixedRps, floorRps, ratio, serverCpuMsPerRequest, failures })),
      peakRssMiB: peakRss,
      heaviestLegalRequest: heavyRow,
      loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number),
    }));
  } finally {
    if (server !== null && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await auth?.stop();
    // A reused database belongs to the run that generated it (minutes at 1,000,000 runs): it is never dropped here.
    if (argv['keep-database'] || reuse !== undefined) log(`kept database ${dbName}: --reuse-database ${dbName} measures it again; DROP DATABASE ${dbName} when done`);
    else await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${READER_ROLE}`).catch(() => undefined);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:query failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
