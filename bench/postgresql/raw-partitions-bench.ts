// npm run bench:raw-partitions [-- --part prune|ingest|both --rows 10000000 --days 10 --instances 1500 --flush 1000 --pairs 6]
//
// What partitioning the raw tables by day (migration 0019) changes, each side against the other in the same run:
//  - prune: `--rows` raw task rows spread over `--days` UTC days, loaded straight into task_events_raw with INSERT …
//    SELECT and the triggers off (session_replication_role = replica: no normalization work, which retention does not
//    read anyway), once into a database of this release (day partitions) and once into one migrated without 0019
//    (one table); then retention of all of them: on the partitioned table detach_raw_partitions() and
//    drop_raw_partition() per day, on the plain one prune_raw_batch() in batches of 5,000 (init-job prune's default),
//    walking the ids as init-job prune does. Time (the server's execution time of each call, and the wall time) and WAL
//    bytes (EXPLAIN (ANALYZE, WAL) of each call: the WAL this backend wrote, not the cluster's, which other sessions
//    share) of each side, and the ratios.
//  - ingest: the same generated Fluent Bit flushes (workflow and task flushes over two connections at once, as the two
//    pgsql outputs send them, with the forwarder's search_path) into the two databases, alternating in ABBA order,
//    `--pairs` pairs from empty tables; per pair the partitioned side's events/s over the plain side's, and its backend
//    CPU per event (the two backends' on-CPU time from /proc/<pid>/schedstat, so it runs on the database's host; on a
//    loaded machine far steadier than the wall time) over the plain side's, then the medians and the ranges.
//  - convert (only with --part convert): `--rows` raw task rows over the `--days` days before today, loaded as above
//    into a database migrated without 0019, then `init-job migrate` of this release (migration 0019 turns the table
//    into the partition <table>_unpartitioned, reading it to check the range and building its id index): how long
//    Fluent Bit's flushes wait for the conversion, and the WAL it wrote.
// Prints the load average with the figures; the last line is one JSON object with them.
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { generateEventStream } from '../generators/event-generator.js';
import { loadMigrations, migrate } from '@workflow-index/postgresql/admin';
import { fluentBitInsertStatement, rawTableFor, TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from '@workflow-index/postgresql/admin';

const argv = yargs(hideBin(process.argv))
  .option('part', { choices: ['prune', 'ingest', 'convert', 'both'] as const, default: 'both' as const, describe: 'both: ingest and prune' })
  .option('rows', { type: 'number', default: 10_000_000, describe: 'raw rows pruned on each side' })
  .option('days', { type: 'number', default: 10, describe: 'UTC days the rows spread over (one partition each)' })
  .option('instances', { type: 'number', default: 1500, describe: 'instances per ingest pair (≈20 events each)' })
  .option('flush', { type: 'number', default: 1000, describe: 'events per Fluent Bit flush (ingest)' })
  .option('pairs', { type: 'number', default: 6, describe: 'ingest pairs (ABBA)' })
  .option('interleave', { type: 'boolean', default: false, describe: 'ingest: send each flush to both sides in turn (ABBA by flush) over one connection each, and compare the backend CPU of each statement, instead of whole loads' })
  .option('database-url', { type: 'string', default: process.env['WI_BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', describe: 'admin connection; scratch databases are created and dropped' })
  .strict()
  .parseSync();

const PRUNE_BATCH = 5000;
const DAY_MS = 86_400_000;
type Side = 'partitioned' | 'plain';
const SIDES: readonly Side[] = ['partitioned', 'plain'];

const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Cost { serverMs: number; wallMs: number; walBytes: number }
const add = (a: Cost, b: Cost): Cost => ({ serverMs: a.serverMs + b.serverMs, wallMs: a.wallMs + b.wallMs, walBytes: a.walBytes + b.walBytes });
const ZERO: Cost = { serverMs: 0, wallMs: 0, walBytes: 0 };

/** Runs `sql` under EXPLAIN (ANALYZE, WAL): the server's execution time and the WAL this backend wrote for it. */
async function measured(client: pg.Client, sql: string, params: unknown[]): Promise<Cost> {
  const t0 = performance.now();
  const res = await client.query<{ 'QUERY PLAN': Array<{ Plan: { 'WAL Bytes'?: number }; 'Execution Time': number }> }>(`EXPLAIN (ANALYZE, WAL, FORMAT JSON) ${sql}`, params);
  const wallMs = performance.now() - t0;
  const plan = res.rows[0]!['QUERY PLAN'][0]!;
  return { serverMs: plan['Execution Time'], wallMs, walBytes: plan.Plan['WAL Bytes'] ?? 0 };
}

function databaseUrl(name: string): string {
  const url = new URL(argv['database-url']);
  url.pathname = `/${name}`;
  return url.toString();
}

async function scratchDatabase(admin: pg.Client, name: string): Promise<pg.Client> {
  await admin.query(`CREATE DATABASE ${name}`);
  const client = new pg.Client({ connectionString: databaseUrl(name) });
  await client.connect();
  return client;
}

async function migrateSide(client: pg.Client, side: Side): Promise<void> {
  await migrate(client, side === 'plain' ? { migrations: loadMigrations().filter((m) => m.version < 19) } : {});
}

/** `rows` task rows, ids 1…rows in time order, over `days` days from `firstDay` (UTC), without the triggers. */
async function fill(client: pg.Client, firstDay: Date): Promise<number> {
  const t0 = performance.now();
  if ((await client.query<{ p: boolean }>(`SELECT workflow_index.raw_table_partitioned('task_events_raw') AS p`)).rows[0]!.p) {
    await client.query('SELECT count(*) FROM workflow_index.create_raw_partitions($1)', [argv.days + 1]);
  }
  await client.query('SET session_replication_role = replica');
  await client.query(
    `INSERT INTO workflow_raw.task_events_raw (tag, time, data)
     SELECT 'workflow.task', $1::timestamptz + (g - 1) * ($3 * INTERVAL '1 day') / $2,
            json_build_object('eventType', 'io.serverlessworkflow.task.completed.v1', 'instanceId', 'bench-' || (g / 20),
                              'taskName', 'step', 'taskPosition', 'do/' || (g % 20) || '/step', 'status', 'COMPLETED',
                              'timestamp', extract(epoch FROM $1::timestamptz) + g * 0.001)
     FROM generate_series(1, $2::bigint) AS g`,
    [firstDay, argv.rows, argv.days],
  );
  await client.query('SET session_replication_role = DEFAULT');
  await client.query('VACUUM ANALYZE workflow_raw.task_events_raw');
  return (performance.now() - t0) / 1000;
}

async function pruneByPartitions(client: pg.Client, horizon: Date): Promise<{ cost: Cost; rows: number; partitions: number }> {
  let cost = await measured(client, 'SELECT workflow_index.detach_raw_partitions($1, $2)', ['task_events_raw', horizon]);
  const detached = (await client.query<{ d: string }>(`SELECT d FROM workflow_index.detached_raw_partitions('task_events_raw') AS d`)).rows.map((r) => r.d);
  let rows = 0;
  for (const name of detached) {
    rows += Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM workflow_raw.${name}`)).rows[0]!.n);
    cost = add(cost, await measured(client, 'SELECT * FROM workflow_index.drop_raw_partition($1, $2)', ['task_events_raw', name]));
  }
  return { cost, rows, partitions: detached.length };
}

/** prune_raw_batch as init-job prune calls it; ids are 1…rows and all before the horizon, so batch k ends at id k × batch. */
async function pruneByRows(client: pg.Client, horizon: Date): Promise<{ cost: Cost; rows: number }> {
  let cost = ZERO;
  for (let after = 0; after < argv.rows; after += PRUNE_BATCH) {
    cost = add(cost, await measured(client, 'SELECT * FROM workflow_index.prune_raw_batch($1, $2, $3, $4)', ['task_events_raw', horizon, after, PRUNE_BATCH]));
  }
  const left = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM workflow_raw.task_events_raw')).rows[0]!.n);
  return { cost, rows: argv.rows - left };
}

async function benchPrune(admin: pg.Client): Promise<Record<string, unknown>> {
  const tomorrow = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + DAY_MS);
  const horizon = new Date(tomorrow.getTime() + argv.days * DAY_MS + 3_600_000);
  const figures: Record<string, unknown> = { rows: argv.rows, days: argv.days };
  for (const side of SIDES) {
    const name = `wi_bench_rawpart_${side}_${randomBytes(3).toString('hex')}`;
    const client = await scratchDatabase(admin, name);
    try {
      await migrateSide(client, side);
      const fillSeconds = await fill(client, tomorrow);
      const size = (await client.query<{ s: string }>(`SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS s FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'workflow_raw' AND c.relkind = 'r'`)).rows[0]!.s;
      console.log(`${side}: ${argv.rows} rows over ${argv.days} days loaded in ${fillSeconds.toFixed(1)} s (${size}); load ${load()}`);
      const result = side === 'partitioned' ? await pruneByPartitions(client, horizon) : await pruneByRows(client, horizon);
      if (result.rows !== argv.rows) throw new Error(`${side}: pruned ${result.rows} rows of ${argv.rows}`);
      const line = { serverSeconds: Number((result.cost.serverMs / 1000).toFixed(2)), wallSeconds: Number((result.cost.wallMs / 1000).toFixed(2)), walBytes: result.cost.walBytes, fillSeconds: Number(fillSeconds.toFixed(1)), size, load: load() };
      figures[side] = line;
      console.log(`${side}: pruned ${result.rows} rows${'partitions' in result ? ` (${result.partitions} day partitions)` : ` (${Math.ceil(argv.rows / PRUNE_BATCH)} batches of ${PRUNE_BATCH})`} in ${line.wallSeconds} s wall, ${line.serverSeconds} s on the server, ${(line.walBytes / 1048576).toFixed(1)} MiB of WAL; load ${line.load}`);
    } finally {
      await client.end().catch(() => undefined);
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }
  const p = figures['partitioned'] as { wallSeconds: number; walBytes: number };
  const r = figures['plain'] as { wallSeconds: number; walBytes: number };
  figures['wallRatio'] = Number((r.wallSeconds / p.wallSeconds).toFixed(1));
  figures['walRatio'] = Number((r.walBytes / Math.max(1, p.walBytes)).toFixed(1));
  console.log(`prune: deleting row by row took ${figures['wallRatio']}× the time and ${figures['walRatio']}× the WAL of dropping the partitions`);
  return figures;
}

/** Fluent Bit flushes of one generated stream: per raw table, chunks of `--flush` events, recorded now (today's partition). */
function flushes(tag: string): { workflow: string[]; task: string[]; events: number } {
  const events = generateEventStream(argv.instances, tag);
  const of = (table: string): string[] => {
    const list = events.filter((e) => rawTableFor(String(e['eventType'])) === table);
    const out: string[] = [];
    for (let i = 0; i < list.length; i += argv.flush) out.push(fluentBitInsertStatement(table, table === TASK_EVENTS_TABLE ? 'workflow.task' : 'workflow.instance', list.slice(i, i + argv.flush), () => Date.now() / 1000));
    return out;
  };
  return { workflow: of(WORKFLOW_EVENTS_TABLE), task: of(TASK_EVENTS_TABLE), events: events.length };
}

const TRUNCATE = `TRUNCATE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw, workflow_index.workflow_instances, workflow_index.task_executions,
  workflow_index.task_events, workflow_index.ingest_errors, workflow_index.events, workflow_index.pruned_instances`;

/** On-CPU nanoseconds of a backend so far (/proc/<pid>/schedstat, first field). */
async function cpuClock(client: pg.Client): Promise<() => bigint> {
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return () => BigInt(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]!);
}

/**
 * Each flush of one stream sent to both sides in turn (ABBA by flush), each side from empty tables, one connection each;
 * the backend CPU of every statement summed per side and per group of flushes (a "pair" here: 1/--pairs of the load).
 */
async function interleavedIngest(clients: Record<Side, [pg.Client, pg.Client]>, clocks: Record<Side, Array<() => bigint>>): Promise<Record<string, unknown>> {
  const stream = flushes('i-');
  // Workflow and task flushes in the order of the stream (each by its position in its own table's flushes).
  const position = (list: readonly string[]) => list.map((s, i) => ({ s, at: (i + 0.5) / list.length }));
  const statements = [...position(stream.workflow), ...position(stream.task)].sort((x, y) => x.at - y.at).map((x) => x.s);
  for (const side of SIDES) {
    await clients[side][0].query(TRUNCATE);
    await clients[side][0].query('VACUUM ANALYZE');
    await clients[side][0].query('SET search_path = workflow_raw');
  }
  const group = Math.ceil(statements.length / argv.pairs);
  const cpu: Record<Side, number[]> = { partitioned: [], plain: [] };
  for (let k = 0; k < statements.length; k++) {
    const order: Side[] = k % 4 === 0 || k % 4 === 3 ? ['plain', 'partitioned'] : ['partitioned', 'plain'];
    for (const side of order) {
      const c0 = clocks[side][0]!();
      await clients[side][0].query(statements[k]!);
      const g = Math.floor(k / group);
      cpu[side][g] = (cpu[side][g] ?? 0) + Number(clocks[side][0]!() - c0) / 1000;
    }
  }
  const ratios = cpu.partitioned.map((p, g) => p / cpu.plain[g]!);
  ratios.forEach((r, g) => console.log(`flushes ${g * group + 1}–${Math.min(statements.length, (g + 1) * group)}: backend CPU partitioned ${(cpu.partitioned[g]! / 1000).toFixed(0)} ms, plain ${(cpu.plain[g]! / 1000).toFixed(0)} ms, ratio ${r.toFixed(3)}`));
  const total = (side: Side): number => cpu[side].reduce((a, b) => a + b, 0);
  const figures = {
    interleaved: true, flushes: statements.length, events: stream.events, flush: argv.flush,
    cpuRatioTotal: Number((total('partitioned') / total('plain')).toFixed(3)), cpuRatioMedian: Number(median(ratios).toFixed(3)),
    cpuRatioMin: Number(Math.min(...ratios).toFixed(3)), cpuRatioMax: Number(Math.max(...ratios).toFixed(3)), load: load(),
  };
  console.log(`ingest, flush by flush: backend CPU partitioned/plain ${figures.cpuRatioTotal} over all ${statements.length} flushes (per group median ${figures.cpuRatioMedian}, ${figures.cpuRatioMin}–${figures.cpuRatioMax}); load ${figures.load}`);
  return figures;
}

async function benchIngest(admin: pg.Client): Promise<Record<string, unknown>> {
  const names: Record<Side, string> = { partitioned: `wi_bench_rawpart_ia_${randomBytes(3).toString('hex')}`, plain: `wi_bench_rawpart_ib_${randomBytes(3).toString('hex')}` };
  const clients = {} as Record<Side, [pg.Client, pg.Client]>;
  try {
    for (const side of SIDES) {
      const first = await scratchDatabase(admin, names[side]);
      const second = new pg.Client({ connectionString: databaseUrl(names[side]) });
      await second.connect();
      clients[side] = [first, second];
      await migrateSide(first, side);
    }
    const clocks = {} as Record<Side, Array<() => bigint>>;
    for (const side of SIDES) clocks[side] = await Promise.all(clients[side].map(cpuClock));
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    const rates: Record<Side, number[]> = { partitioned: [], plain: [] };
    const cpuPerEvent: Record<Side, number[]> = { partitioned: [], plain: [] };
    if (argv.interleave) return await interleavedIngest(clients, clocks);
    for (let pair = 0; pair < argv.pairs; pair++) {
      const stream = flushes(`p${pair}-`);
      const order: Side[] = pair % 2 === 0 ? ['plain', 'partitioned'] : ['partitioned', 'plain'];
      const rate = {} as Record<Side, number>;
      const cpu = {} as Record<Side, number>;
      for (const side of order) {
        const [a, b] = clients[side];
        await a.query(TRUNCATE);
        await a.query('VACUUM ANALYZE');
        await Promise.all([a, b].map((c) => c.query('SET search_path = workflow_raw')));
        const cpu0 = clocks[side].reduce((n, c) => n + c(), 0n);
        const t0 = performance.now();
        await Promise.all([
          (async () => { for (const s of stream.workflow) await a.query(s); })(),
          (async () => { for (const s of stream.task) await b.query(s); })(),
        ]);
        rate[side] = stream.events / ((performance.now() - t0) / 1000);
        cpu[side] = Number(clocks[side].reduce((n, c) => n + c(), 0n) - cpu0) / 1000 / stream.events;
        cpuPerEvent[side].push(cpu[side]);
        await Promise.all([a, b].map((c) => c.query('RESET search_path')));
        rates[side].push(rate[side]);
      }
      ratios.push(rate.partitioned / rate.plain);
      cpuRatios.push(cpu.partitioned / cpu.plain);
      console.log(`pair ${pair + 1} (${order.join(' then ')}): partitioned ${Math.round(rate.partitioned)} events/s, plain ${Math.round(rate.plain)} events/s, ratio ${(rate.partitioned / rate.plain).toFixed(3)}; ` +
        `backend CPU per event partitioned ${cpu.partitioned.toFixed(1)} µs, plain ${cpu.plain.toFixed(1)} µs, ratio ${(cpu.partitioned / cpu.plain).toFixed(3)}; load ${load()}`);
    }
    const figures = {
      pairs: argv.pairs, eventsPerPair: flushes('count-').events, flush: argv.flush,
      ratioMedian: Number(median(ratios).toFixed(3)), ratioMin: Number(Math.min(...ratios).toFixed(3)), ratioMax: Number(Math.max(...ratios).toFixed(3)),
      partitionedEventsPerSecond: Math.round(median(rates.partitioned)), plainEventsPerSecond: Math.round(median(rates.plain)),
      cpuRatioMedian: Number(median(cpuRatios).toFixed(3)), cpuRatioMin: Number(Math.min(...cpuRatios).toFixed(3)), cpuRatioMax: Number(Math.max(...cpuRatios).toFixed(3)),
      partitionedCpuMicrosPerEvent: Number(median(cpuPerEvent.partitioned).toFixed(1)), plainCpuMicrosPerEvent: Number(median(cpuPerEvent.plain).toFixed(1)), load: load(),
    };
    console.log(`ingest: partitioned/plain events/s ${figures.ratioMedian} (median of ${argv.pairs} pairs; ${figures.ratioMin}–${figures.ratioMax}); ` +
      `backend CPU per event ${figures.cpuRatioMedian} (${figures.cpuRatioMin}–${figures.cpuRatioMax}); load ${figures.load}`);
    return figures;
  } finally {
    for (const side of SIDES) for (const c of clients[side] ?? []) await c.end().catch(() => undefined);
    for (const name of Object.values(names)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function benchConvert(admin: pg.Client): Promise<Record<string, unknown>> {
  const name = `wi_bench_rawpart_convert_${randomBytes(3).toString('hex')}`;
  const client = await scratchDatabase(admin, name);
  try {
    await migrateSide(client, 'plain');
    const fillSeconds = await fill(client, new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - argv.days * DAY_MS));
    const lsn0 = (await client.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0]!.l;
    const t0 = performance.now();
    await migrate(client);
    const seconds = (performance.now() - t0) / 1000;
    const wal = Number((await client.query<{ b: string }>('SELECT pg_current_wal_insert_lsn() - $1::pg_lsn AS b', [lsn0])).rows[0]!.b);
    const parts = (await client.query<{ n: string }>(`SELECT count(*) AS n FROM workflow_raw.task_events_raw_unpartitioned`)).rows[0]!.n;
    const figures = { rows: argv.rows, fillSeconds: Number(fillSeconds.toFixed(1)), migrateSeconds: Number(seconds.toFixed(1)), clusterWalBytes: wal, rowsInOldTable: Number(parts), load: load() };
    console.log(`convert: ${argv.rows} raw rows turned into the partition task_events_raw_unpartitioned (${parts} rows) by init-job migrate in ${figures.migrateSeconds} s; ` +
      `${(wal / 1048576).toFixed(0)} MiB of WAL in the whole cluster meanwhile; load ${figures.load}`);
    return figures;
  } finally {
    await client.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function main(): Promise<void> {
  const admin = new pg.Client({ connectionString: argv['database-url'] });
  await admin.connect();
  try {
    const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
    console.log(`PostgreSQL ${version}; ${new Date().toISOString()}; load ${load()}`);
    const figures: Record<string, unknown> = {};
    if (argv.part === 'convert') figures['convert'] = await benchConvert(admin);
    if (argv.part === 'ingest' || argv.part === 'both') figures['ingest'] = await benchIngest(admin);
    if (argv.part === 'prune' || argv.part === 'both') figures['prune'] = await benchPrune(admin);
    console.log(JSON.stringify(figures));
  } finally {
    await admin.end();
  }
}

await main();
