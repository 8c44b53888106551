// bench:ingest --vs-ceiling store-only|parse-only [--pairs 4]: the triggers and a ceiling of any normalizing trigger
// (bench/postgresql/ceiling/) in one invocation, alternating, so the ratio "triggers / ceiling" comes from one run on one
// machine state instead of two runs minutes apart (a loaded machine moves whole runs by ±30 %). Two scratch
// databases: T with the normalizer (--normalizer-dir / --migrations-dir, default this release's), C with the same
// definitions whose apply_events is the ceiling. Per pair and flush size, both start from empty tables and load the
// same generated stream as bench:ingest does (workflow and task flushes on two connections, Fluent Bit's statement as
// the forwarder); T first in odd pairs, C first in even ones. Measured per load: events/s over the whole load, and
// the CPU the two database backends spent (/proc/<pid>/schedstat, so the database runs on this host). Prints per pair
// the ratios T/C of events/s and C/T of CPU (both read "the fraction of the ceiling reached"), their median and range,
// CPU milliseconds per 1,000 events on each side, the bytes per run the triggers' database holds after a load (raw
// rows, event store, normalized rows, each with its indexes and TOAST: pg_total_relation_size), and a JSON line.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ceilingNormalizer, type Ceiling } from './ceiling/ceiling-normalizer.js';
import { generateEventStream, type Event } from '../generators/event-generator.js';
import { fluentBitInsertStatement, loadMigrations, loadNormalizer, migrate, rawTableFor, TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from '@workflow-index/postgresql/admin';

export interface VsCeilingOptions {
  databaseUrl: string;
  instances: number;
  sizes: readonly number[];
  pairs: number;
  ceiling: Ceiling;
  normalizerDir: string | undefined;
  migrationsDir: string | undefined;
}

interface Side {
  clients: [pg.Client, pg.Client];
  cpuNs: () => bigint;
}

interface Load {
  seconds: number;
  cpuSeconds: number;
}

const TABLES = 'workflow_raw.workflow_events_raw, workflow_raw.task_events_raw, workflow_index.workflow_instances, workflow_index.task_executions, workflow_index.task_events, workflow_index.ingest_errors, workflow_index.events, workflow_index.pruned_instances';

/** Fluent Bit's statements for the stream: per raw table, chunks of `size` events. */
function statements(events: readonly Event[], size: number): { workflow: string[]; task: string[] } {
  const of = (table: string, tag: string): string[] => {
    const list = events.filter((e) => rawTableFor(String(e['eventType'])) === table);
    const out: string[] = [];
    for (let i = 0; i < list.length; i += size) out.push(fluentBitInsertStatement(`workflow_raw.${table}`, tag, list.slice(i, i + size)));
    return out;
  };
  return { workflow: of(WORKFLOW_EVENTS_TABLE, 'workflow.instance'), task: of(TASK_EVENTS_TABLE, 'workflow.task') };
}

async function backendPid(client: pg.Client): Promise<number> {
  return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
}

function schedstatNs(pid: number): bigint {
  return BigInt(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]!);
}

async function setUpSide(admin: pg.Client, databaseUrl: string, dbName: string, normalizerDir: string | undefined, migrationsDir: string | undefined, created: string[]): Promise<Side> {
  await admin.query(`CREATE DATABASE ${dbName}`);
  created.push(dbName);
  const url = new URL(databaseUrl);
  url.pathname = `/${dbName}`;
  const clients: [pg.Client, pg.Client] = [new pg.Client({ connectionString: url.toString() }), new pg.Client({ connectionString: url.toString() })];
  await Promise.all(clients.map((c) => c.connect()));
  await migrate(clients[0], {
    ...(normalizerDir === undefined ? {} : { normalizer: loadNormalizer(normalizerDir) }),
    ...(migrationsDir === undefined ? {} : { migrations: loadMigrations(migrationsDir) }),
  });
  await Promise.all(clients.map((c) => c.query('SET search_path = workflow_raw')));
  const pids = await Promise.all(clients.map(backendPid));
  return { clients, cpuNs: () => pids.reduce((sum, pid) => sum + schedstatNs(pid), 0n) };
}

async function load(side: Side, flushes: { workflow: string[]; task: string[] }): Promise<Load> {
  await side.clients[0].query(`TRUNCATE ${TABLES}`);
  await side.clients[0].query('VACUUM ANALYZE');
  const cpuBefore = side.cpuNs();
  const started = performance.now();
  await Promise.all([
    (async () => { for (const s of flushes.workflow) await side.clients[0].query(s); })(),
    (async () => { for (const s of flushes.task) await side.clients[1].query(s); })(),
  ]);
  const seconds = (performance.now() - started) / 1000;
  return { seconds, cpuSeconds: Number(side.cpuNs() - cpuBefore) / 1e9 };
}

const SIZED = {
  raw: ['workflow_raw.workflow_events_raw', 'workflow_raw.task_events_raw'],
  eventStore: ['workflow_index.events', 'workflow_index.task_events'],
  normalized: ['workflow_index.workflow_instances', 'workflow_index.task_executions'],
} as const;

/** Bytes per run of each part (tables with their indexes and TOAST), and of the indexes alone, after a load of `runs` runs. */
async function bytesPerRun(client: pg.Client, runs: number): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [part, tables] of Object.entries(SIZED)) {
    const r = await client.query<{ total: string; indexes: string }>(
      'SELECT sum(pg_total_relation_size(t::regclass))::TEXT AS total, sum(pg_indexes_size(t::regclass))::TEXT AS indexes FROM unnest($1::TEXT[]) AS t', [tables]);
    out[part] = Math.round(Number(r.rows[0]!.total) / runs);
    out[`${part}Indexes`] = Math.round(Number(r.rows[0]!.indexes) / runs);
  }
  out['total'] = out['raw']! + out['eventStore']! + out['normalized']!;
  return out;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const r3 = (n: number): number => Math.round(n * 1000) / 1000;

export async function runVsCeiling(o: VsCeilingOptions): Promise<void> {
  const tag = `wi_bench_vs_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: o.databaseUrl });
  await admin.connect();
  const sides: Side[] = [];
  const created: string[] = [];
  try {
    sides.push(await setUpSide(admin, o.databaseUrl, `${tag}_t`, o.normalizerDir, o.migrationsDir, created));
    const ceilingDir = ceilingNormalizer(o.ceiling, o.normalizerDir);
    try {
      sides.push(await setUpSide(admin, o.databaseUrl, `${tag}_c`, ceilingDir, o.migrationsDir, created));
    } finally {
      rmSync(ceilingDir, { recursive: true, force: true });
    }
    const [t, c] = sides as [Side, Side];
    console.log(`triggers (T) against the ${o.ceiling} ceiling (C), ${o.instances} runs per load, ${o.pairs} pairs per flush size`);
    const bySize = [];
    for (const size of o.sizes) {
      const events = generateEventStream(o.instances, `v${size}-`);
      const flushes = statements(events, size);
      const pairs = [];
      for (let p = 0; p < o.pairs; p++) {
        const [first, second] = p % 2 === 0 ? [t, c] : [c, t];
        const x = await load(first, flushes);
        const y = await load(second, flushes);
        const [lt, lc] = first === t ? [x, y] : [y, x];
        const pair = {
          eventsPerSecond: Math.round(events.length / lt.seconds), ceilingEventsPerSecond: Math.round(events.length / lc.seconds),
          cpuMsPer1000: r3((lt.cpuSeconds * 1e6) / events.length), ceilingCpuMsPer1000: r3((lc.cpuSeconds * 1e6) / events.length),
          ratio: r3(lc.seconds / lt.seconds), cpuRatio: r3(lc.cpuSeconds / lt.cpuSeconds), load: r3(loadavg()[0]!),
        };
        pairs.push(pair);
        console.log(`flush ${size}, pair ${p + 1}: T ${pair.eventsPerSecond} events/s (${pair.cpuMsPer1000} ms CPU per 1,000 events), C ${pair.ceilingEventsPerSecond} events/s (${pair.ceilingCpuMsPer1000} ms); T/C events/s ${pair.ratio}, C/T CPU ${pair.cpuRatio}; load ${pair.load}`);
      }
      await t.clients[0].query('VACUUM ANALYZE');
      const bytes = await bytesPerRun(t.clients[0], o.instances);
      console.log(`flush ${size}: bytes per run after the triggers' last load (with indexes and TOAST): ${JSON.stringify(bytes)}`);
      const summary = {
        flushSize: size, events: events.length, pairs, bytesPerRun: bytes,
        ratioMedian: r3(median(pairs.map((q) => q.ratio))), ratioMin: Math.min(...pairs.map((q) => q.ratio)), ratioMax: Math.max(...pairs.map((q) => q.ratio)),
        cpuRatioMedian: r3(median(pairs.map((q) => q.cpuRatio))), cpuRatioMin: Math.min(...pairs.map((q) => q.cpuRatio)), cpuRatioMax: Math.max(...pairs.map((q) => q.cpuRatio)),
        cpuMsPer1000Median: r3(median(pairs.map((q) => q.cpuMsPer1000))), ceilingCpuMsPer1000Median: r3(median(pairs.map((q) => q.ceilingCpuMsPer1000))),
      };
      bySize.push(summary);
      console.log(`flush ${size}: T/C events/s median ${summary.ratioMedian} (${summary.ratioMin}-${summary.ratioMax}), C/T CPU median ${summary.cpuRatioMedian} (${summary.cpuRatioMin}-${summary.cpuRatioMax}); CPU per 1,000 events T ${summary.cpuMsPer1000Median} ms, C ${summary.ceilingCpuMsPer1000Median} ms`);
    }
    console.log(JSON.stringify({ ceiling: o.ceiling, instances: o.instances, bySize }));
  } finally {
    for (const s of sides) await Promise.all(s.clients.map((cl) => cl.end().catch(() => undefined)));
    for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
