// npm run bench:trigger-cpu [-- --runs 2000 --flush-size 1000 --pairs 16 --a-normalizer-dir DIR --a-migrations-dir DIR
//                              --b-normalizer-dir DIR --b-migrations-dir DIR --b-ceiling parse-only|store-only --table task|workflow]
//
// Backend CPU per flush through the normalizing triggers, A against B, on a shared machine whose speed drifts: whole
// runs of bench:ingest move ±30 % between identical runs, this moves a few percent. Two databases (A and B: each
// side's migrations and normalizer, default this release's) are loaded with the same generated stream: the workflow
// events of every run and the task events of the first --runs runs, then VACUUM ANALYZE. A measurement is one flush of
// the remaining task events (or, with --table workflow, of workflow events of new runs) sent with Fluent Bit's exact
// statement, as the forwarder does (search_path workflow_raw), inside BEGIN … ROLLBACK, so every measurement of a side
// starts from the same state; its cost is the backend's on-CPU time (/proc/<pid>/schedstat, ns) across the INSERT.
// A and B alternate (ABBA within each pair), --reps flushes per sample. The floor is the same statement into a
// trigger-less copy of the raw table on side A. Prints per pair B/A, the median and range, the floor's share, and a
// JSON line. The databases are scratch ones (named wi_trigger_cpu_<random>_a/_b) and are dropped at the end (--keep
// keeps them). It reads the backend's /proc entry, so it runs on the database's host. --b-ceiling measures a ceiling of
// any normalizing trigger: B is this release's normalizer (or --b-normalizer-dir) with apply_events replaced by
// the ceiling of bench/ceiling/ceiling-normalizer.ts (parse-only: parses the flush and writes nothing; store-only: also
// keeps each event once).
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg, tmpdir } from 'node:os';
import { CEILINGS, ceilingNormalizer } from './ceiling/ceiling-normalizer.js';
import { generateEventStream, type Event } from '../generators/event-generator.js';
import { loadMigrations, loadNormalizer, migrate } from '@workflow-index/postgresql/admin';
import { fluentBitInsertStatement, rawTableFor, TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from '@workflow-index/postgresql/admin';

const argv = yargs(hideBin(process.argv))
  .option('runs', { type: 'number', default: 2000, describe: 'runs loaded before measuring' })
  .option('measured-runs', { type: 'number', default: 500, describe: 'further runs whose events are the measured flushes' })
  .option('flush-size', { type: 'number', default: 1000 })
  .option('pairs', { type: 'number', default: 16 })
  .option('reps', { type: 'number', default: 3, describe: 'flushes per sample (each its own BEGIN/ROLLBACK)' })
  .option('table', { choices: ['task', 'workflow'] as const, default: 'task' as const })
  .option('database-url', { type: 'string', default: process.env['WI_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres' })
  .option('a-normalizer-dir', { type: 'string' })
  .option('a-migrations-dir', { type: 'string' })
  .option('b-normalizer-dir', { type: 'string' })
  .option('b-migrations-dir', { type: 'string' })
  .option('b-ceiling', { choices: CEILINGS, describe: 'B is a ceiling of any normalizing trigger (bench/ceiling/): parse-only or store-only' })
  .option('keep', { type: 'boolean', default: false, describe: 'keep the two databases (and write the measured statements to <db>_flushes.sql in the temp dir) for experiments' })
  .strict()
  .parseSync();

const LOAD_FLUSH = 1000;

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

function statementsFor(schema: string, events: readonly Event[], size: number): { workflow: string[]; task: string[] } {
  const wf = events.filter((e) => rawTableFor(String(e['eventType'])) === WORKFLOW_EVENTS_TABLE);
  const task = events.filter((e) => rawTableFor(String(e['eventType'])) === TASK_EVENTS_TABLE);
  return {
    workflow: chunks(wf, size).map((c) => fluentBitInsertStatement(`${schema}.${WORKFLOW_EVENTS_TABLE}`, 'workflow.instance', c)),
    task: chunks(task, size).map((c) => fluentBitInsertStatement(`${schema}.${TASK_EVENTS_TABLE}`, 'workflow.task', c)),
  };
}

async function backendCpuNs(client: pg.Client): Promise<() => bigint> {
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return () => BigInt(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]!);
}

interface Side {
  name: string;
  client: pg.Client;
  cpu: () => bigint;
}

async function setUpSide(admin: pg.Client, dbName: string, normalizerDir: string | undefined, migrationsDir: string | undefined,
  base: readonly Event[], measuredWorkflow: readonly Event[]): Promise<Side> {
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(argv['database-url']);
  url.pathname = `/${dbName}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await migrate(client, {
    ...(normalizerDir === undefined ? {} : { normalizer: loadNormalizer(normalizerDir) }),
    ...(migrationsDir === undefined ? {} : { migrations: loadMigrations(migrationsDir) }),
  });
  await client.query(`CREATE SCHEMA bench_floor;
    CREATE TABLE bench_floor.workflow_events_raw (LIKE workflow_raw.workflow_events_raw INCLUDING ALL);
    CREATE TABLE bench_floor.task_events_raw (LIKE workflow_raw.task_events_raw INCLUDING ALL);`);
  await client.query('SET search_path = workflow_raw');
  const load = statementsFor('workflow_raw', base, LOAD_FLUSH);
  for (const s of load.workflow) await client.query(s);
  for (const s of load.task) await client.query(s);
  if (argv.table === 'task') {
    for (const s of statementsFor('workflow_raw', measuredWorkflow, LOAD_FLUSH).workflow) await client.query(s);
  }
  await client.query('VACUUM ANALYZE');
  await client.end();
  // Measured on a connection of its own, as a forwarder's: PL/pgSQL's plan choices depend on the flushes a session
  // has run (its first five with custom plans), and the loading connection has run flushes of LOAD_FLUSH events.
  const measuring = new pg.Client({ connectionString: url.toString() });
  await measuring.connect();
  await measuring.query('SET search_path = workflow_raw');
  return { name: dbName, client: measuring, cpu: await backendCpuNs(measuring) };
}

async function sample(side: Side, statements: readonly string[], start: number): Promise<number> {
  let total = 0n;
  for (let r = 0; r < argv.reps; r++) {
    const s = statements[(start + r) % statements.length]!;
    await side.client.query('BEGIN');
    const before = side.cpu();
    await side.client.query(s);
    const after = side.cpu();
    await side.client.query('ROLLBACK');
    total += after - before;
  }
  return Number(total) / 1e6 / argv.reps;  // ms per flush
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function main(): Promise<void> {
  const tag = `wi_trigger_cpu_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: argv['database-url'] });
  await admin.connect();
  const stream = generateEventStream(argv.runs + argv['measured-runs'], 'c-');
  const cut = argv.runs;
  const idOf = (e: Event): number => parseInt(String(e['instanceId']).slice(2), 36);
  const base = stream.filter((e) => idOf(e) < cut);
  const rest = stream.filter((e) => idOf(e) >= cut);
  const measuredWorkflow = rest.filter((e) => rawTableFor(String(e['eventType'])) === WORKFLOW_EVENTS_TABLE);
  const measured = argv.table === 'task'
    ? rest.filter((e) => rawTableFor(String(e['eventType'])) === TASK_EVENTS_TABLE)
    : measuredWorkflow;
  const sides: Side[] = [];
  try {
    sides.push(await setUpSide(admin, `${tag}_a`, argv['a-normalizer-dir'], argv['a-migrations-dir'], base, measuredWorkflow));
    const bCeiling = argv['b-ceiling'];
    const bNormalizerDir = bCeiling === undefined ? argv['b-normalizer-dir'] : ceilingNormalizer(bCeiling, argv['b-normalizer-dir']);
    try {
      sides.push(await setUpSide(admin, `${tag}_b`, bNormalizerDir, argv['b-migrations-dir'], base, measuredWorkflow));
    } finally {
      if (bCeiling !== undefined && bNormalizerDir !== undefined) rmSync(bNormalizerDir, { recursive: true, force: true });
    }
    const [a, b] = sides as [Side, Side];
    const byTable = argv.table === 'task' ? 'task' : 'workflow';
    const triggerStatements = statementsFor('workflow_raw', measured, argv['flush-size'])[byTable].filter((_, i, all) => i < all.length - 1 || all.length === 1);
    const floorStatements = statementsFor('bench_floor', measured, argv['flush-size'])[byTable].filter((_, i, all) => i < all.length - 1 || all.length === 1);
    if (argv.keep) {
      writeFileSync(join(tmpdir(), `${tag}_flushes.sql`), `SET search_path = workflow_raw;\n${triggerStatements.join('\n')}\n`);
      writeFileSync(join(tmpdir(), `${tag}_floor.sql`), `SET search_path = workflow_raw;\n${floorStatements.join('\n')}\n`);
    }
    // Warm-up: caches filled, and past PL/pgSQL's first five executions of each statement (custom plans), so every
    // measurement runs with the plans a long-lived forwarder connection has.
    for (let w = 0; w < Math.ceil(6 / argv.reps); w++) {
      await sample(a, triggerStatements, 0);
      await sample(b, triggerStatements, 0);
      await sample(a, floorStatements, 0);
    }
    const ratios: number[] = [];
    const aMs: number[] = [];
    const bMs: number[] = [];
    const floorMs: number[] = [];
    const loads: number[] = [];
    for (let p = 0; p < argv.pairs; p++) {
      const start = p * argv.reps;
      // ABBA: A first in even pairs, B first in odd ones
      const first = p % 2 === 0 ? a : b;
      const second = p % 2 === 0 ? b : a;
      const x = await sample(first, triggerStatements, start);
      const y = await sample(second, triggerStatements, start);
      const [ta, tb] = first === a ? [x, y] : [y, x];
      floorMs.push(await sample(a, floorStatements, start));
      aMs.push(ta);
      bMs.push(tb);
      ratios.push(tb / ta);
      loads.push(loadavg()[0]!);
      console.log(`pair ${p + 1}: A ${ta.toFixed(1)} ms, B ${tb.toFixed(1)} ms, B/A ${(tb / ta).toFixed(3)}, floor ${floorMs.at(-1)!.toFixed(1)} ms, load ${loads.at(-1)!.toFixed(1)}`);
    }
    const summary = {
      table: argv.table, flushSize: argv['flush-size'], runs: argv.runs, pairs: argv.pairs, reps: argv.reps,
      ratioMedian: Number(median(ratios).toFixed(3)), ratioMin: Number(Math.min(...ratios).toFixed(3)), ratioMax: Number(Math.max(...ratios).toFixed(3)),
      aMedianMs: Number(median(aMs).toFixed(2)), bMedianMs: Number(median(bMs).toFixed(2)), floorMedianMs: Number(median(floorMs).toFixed(2)),
      floorShareA: Number((median(floorMs) / median(aMs)).toFixed(3)), floorShareB: Number((median(floorMs) / median(bMs)).toFixed(3)),
      loadMin: Number(Math.min(...loads).toFixed(1)), loadMax: Number(Math.max(...loads).toFixed(1)),
    };
    console.log(`B/A median ${summary.ratioMedian} (${summary.ratioMin}-${summary.ratioMax}, ${argv.pairs} pairs); A ${summary.aMedianMs} ms, B ${summary.bMedianMs} ms, floor ${summary.floorMedianMs} ms per flush (floor/A ${summary.floorShareA}, floor/B ${summary.floorShareB}); load ${summary.loadMin}-${summary.loadMax}`);
    console.log(JSON.stringify(summary));
  } finally {
    for (const s of sides) await s.client.end().catch(() => undefined);
    if (argv.keep) {
      console.log(`kept ${tag}_a and ${tag}_b`);
    } else {
      await admin.query(`DROP DATABASE IF EXISTS ${tag}_a WITH (FORCE)`);
      await admin.query(`DROP DATABASE IF EXISTS ${tag}_b WITH (FORCE)`);
    }
    await admin.end();
  }
}

await main();
