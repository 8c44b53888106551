// npm run bench:ingest [-- --instances N --batch-sizes 100,1000 --database-url URL --normalizer-dir DIR --migrations-dir DIR
//                         --ceiling parse-only|store-only] [--vs-ceiling store-only|parse-only --pairs 4]
//
// Loads generated workflow instances through the exact statement Fluent Bit's pgsql output sends, into the raw
// tables with their normalizing triggers, in batches of each size; and in the same run the same statements into
// trigger-less copies of the raw tables (the floor: plain inserts). Workflow and task flushes go over two
// connections concurrently, as Fluent Bit's two pgsql outputs do, with the forwarder's search_path. Prints events/s and the ratio; the last line
// is one JSON object with the figures. --normalizer-dir / --migrations-dir load another release's definitions (an
// A/B against a previous schema: e.g. `git archive <commit> server/postgresql/normalizer server/postgresql/migrations`).
// --ceiling measures a ceiling of any normalizing trigger instead (bench/ceiling/): apply_events replaced by one that
// only parses each flush (parse-only), or also keeps each event once in the event store (store-only); nothing
// normalized is checked then. --vs-ceiling runs the triggers and that ceiling alternately in one invocation and prints
// the fraction of the ceiling reached, per pair (ingest-vs-ceiling.ts).
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { CEILINGS, ceilingNormalizer } from './ceiling/ceiling-normalizer.js';
import { runVsCeiling } from './ingest-vs-ceiling.js';
import { generateEventStream } from '../generators/event-generator.js';
import { loadMigrations, loadNormalizer, migrate } from '@workflow-index/postgresql/admin';
import { fluentBitInsertStatement, rawTableFor, TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from '@workflow-index/postgresql/admin';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 25_000, describe: 'instances generated per run (≈20 events each; the default gives well over 30 s of work)' })
  .option('batch-sizes', { type: 'string', default: '100,1000', describe: 'comma-separated flush sizes' })
  .option('database-url', { type: 'string', default: process.env['WI_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', describe: 'admin connection; a scratch database is created and dropped' })
  .option('normalizer-dir', { type: 'string', describe: 'normalizer definitions to apply instead of this release\'s (A/B runs)' })
  .option('migrations-dir', { type: 'string', describe: 'migrations to apply instead of this release\'s (A/B runs)' })
  .option('ceiling', { choices: CEILINGS, describe: 'a ceiling of any normalizing trigger: parse-only (parse each flush, write nothing) or store-only (and keep each event once in the event store)' })
  .option('vs-ceiling', { choices: CEILINGS, describe: 'the triggers against this ceiling, alternating in one run: the fraction of the ceiling reached (no floor)' })
  .option('pairs', { type: 'number', default: 4, describe: 'with --vs-ceiling: loads per side and flush size, alternating' })
  .conflicts('vs-ceiling', 'ceiling')
  .strict()
  .parseSync();

type Event = Record<string, unknown>;

/** Fluent Bit flushes per output: the stream is split by table, then into chunks of `size`. */
function flushes(events: readonly Event[], size: number): Map<string, string[][]> {
  const byTable = new Map<string, Event[]>([[WORKFLOW_EVENTS_TABLE, []], [TASK_EVENTS_TABLE, []]]);
  for (const e of events) byTable.get(rawTableFor(String(e['eventType'])))!.push(e);
  const result = new Map<string, string[][]>();
  for (const [table, list] of byTable) {
    const chunks: string[][] = [];
    for (let i = 0; i < list.length; i += size) chunks.push([table, ...list.slice(i, i + size).map((e) => JSON.stringify(e))]);
    result.set(table, chunks);
  }
  return result;
}

async function timedLoad(clients: readonly [pg.Client, pg.Client], schema: string, events: readonly Event[], size: number): Promise<number> {
  const plan = flushes(events, size);
  const statements = (table: string): string[] => (plan.get(table) ?? []).map(([, ...rows]) =>
    fluentBitInsertStatement(`${schema}.${table}`, table === TASK_EVENTS_TABLE ? 'workflow.task' : 'workflow.instance', rows.map((r) => JSON.parse(r) as Event)));
  const workflowStatements = statements(WORKFLOW_EVENTS_TABLE);
  const taskStatements = statements(TASK_EVENTS_TABLE);
  const started = performance.now();
  await Promise.all([
    (async () => { for (const s of workflowStatements) await clients[0].query(s); })(),
    (async () => { for (const s of taskStatements) await clients[1].query(s); })(),
  ]);
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const vsCeiling = argv['vs-ceiling'];
  if (vsCeiling !== undefined) {
    await runVsCeiling({
      databaseUrl: argv['database-url'], instances: argv.instances, sizes: batchSizes(), pairs: argv.pairs, ceiling: vsCeiling,
      normalizerDir: argv['normalizer-dir'], migrationsDir: argv['migrations-dir'],
    });
    return;
  }
  const dbName = `wi_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: argv['database-url'] });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(argv['database-url']);
  url.pathname = `/${dbName}`;
  const clients = [new pg.Client({ connectionString: url.toString() }), new pg.Client({ connectionString: url.toString() })] as const;
  try {
    await Promise.all(clients.map((c) => c.connect()));
    const ceiling = argv.ceiling;
    const normalizerDir = ceiling === undefined ? argv['normalizer-dir'] : ceilingNormalizer(ceiling, argv['normalizer-dir']);
    try {
      await migrate(clients[0], {
        ...(normalizerDir === undefined ? {} : { normalizer: loadNormalizer(normalizerDir) }),
        ...(argv['migrations-dir'] === undefined ? {} : { migrations: loadMigrations(argv['migrations-dir']) }),
      });
    } finally {
      if (ceiling !== undefined && normalizerDir !== undefined) rmSync(normalizerDir, { recursive: true, force: true });
    }
    // As the forwarder login: workflow_raw on the search_path, so Fluent Bit's statement uses the safe
    // json_array_elements(text) of the normalizer (server/postgresql/normalizer/040-raw-json.sql), floor included.
    await Promise.all(clients.map((c) => c.query('SET search_path = workflow_raw')));
    await clients[0].query(`CREATE SCHEMA bench_floor;
      CREATE TABLE bench_floor.workflow_events_raw (LIKE workflow_raw.workflow_events_raw INCLUDING ALL);
      CREATE TABLE bench_floor.task_events_raw (LIKE workflow_raw.task_events_raw INCLUDING ALL);`);
    const sizes = batchSizes();
    const runs: Array<{ batchSize: number; events: number; seconds: number; eventsPerSecond: number; floorSeconds: number; floorEventsPerSecond: number; ratio: number; instances: number; taskExecutions: number; storedEvents: number }> = [];
    const version = (await clients[0].query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
    console.log(`PostgreSQL ${version}; ${argv.instances} instances per run; batch sizes ${sizes.join(', ')}${ceiling === undefined ? '' : `; CEILING ${ceiling}: apply_events is the ${ceiling} ceiling (bench/ceiling/ceiling-normalizer.ts)`}`);
    for (const size of sizes) {
      const events = generateEventStream(argv.instances, `b${size}-`);
      // Every table the triggers write, the event store included: each batch size starts from empty tables and
      // indexes, so all of them measure the same work.
      await clients[0].query(
        'TRUNCATE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw, workflow_index.workflow_instances, workflow_index.task_executions, workflow_index.task_events, workflow_index.ingest_errors, workflow_index.events, workflow_index.pruned_instances, bench_floor.workflow_events_raw, bench_floor.task_events_raw',
      );
      await clients[0].query('VACUUM ANALYZE');
      const floorSeconds = await timedLoad(clients, 'bench_floor', events, size);
      const seconds = await timedLoad(clients, 'workflow_raw', events, size);
      // Stored events: workflow events in events, task events in task_events (since migration 0013; before it they were
      // in both, so events' task rows are not counted: the same figure for a previous release's definitions).
      const counts = (await clients[0].query<{ i: number; t: number; e: number; s: number }>(
        `SELECT (SELECT count(*) FROM workflow_index.workflow_instances)::int AS i, (SELECT count(*) FROM workflow_index.task_executions)::int AS t, (SELECT count(*) FROM workflow_index.ingest_errors)::int AS e, ((SELECT count(*) FROM workflow_index.events WHERE kind = 'workflow') + (SELECT count(*) FROM workflow_index.task_events))::int AS s`)).rows[0]!;
      // More stored events than this size loaded would mean an earlier size's store was still there.
      if (ceiling === undefined && (counts.i !== argv.instances || counts.e !== 0 || counts.s > events.length)) throw new Error(`unexpected normalized state: ${JSON.stringify(counts)}`);
      const run = {
        batchSize: size, events: events.length, seconds: round(seconds, 2), eventsPerSecond: Math.round(events.length / seconds),
        floorSeconds: round(floorSeconds, 2), floorEventsPerSecond: Math.round(events.length / floorSeconds),
        ratio: round(floorSeconds / seconds, 3), instances: counts.i, taskExecutions: counts.t, storedEvents: counts.s,
      };
      runs.push(run);
      console.log(`batch ${size}: ${run.events} events in ${run.seconds} s = ${run.eventsPerSecond} events/s through the triggers; floor (plain inserts) ${run.floorEventsPerSecond} events/s; ratio ${run.ratio}; ${run.instances} instances, ${run.taskExecutions} task executions, ${run.storedEvents} stored events`);
    }
    const best = runs.reduce((a, b) => (b.eventsPerSecond > a.eventsPerSecond ? b : a));
    console.log(JSON.stringify({ eventsPerSecond: best.eventsPerSecond, floorEventsPerSecond: best.floorEventsPerSecond, ratio: best.ratio, batchSize: best.batchSize, events: best.events, runs }));
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

function batchSizes(): number[] {
  return argv['batch-sizes'].split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
}

function round(n: number, digits: number): number {
  return Math.round(n * 10 ** digits) / 10 ** digits;
}

await main();
