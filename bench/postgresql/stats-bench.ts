// npm run bench:stats [-- --instances 1000000 --tasks-per-instance 2 --duration 20]: the statistics queries on
// PostgreSQL over the bench dataset (testkit bench-dataset.ts: runs spread evenly over 30 days from 2026-04-01, so a
// day holds 1/30 of them), through the Reader in process (the GraphQL layer adds the same few µs as to any query).
// Per query: latency at a fixed 10 requests/s (p50/p99, measured from the scheduled send, so queueing counts) and at
// saturation (2 concurrent callers, the machine's cores); a floor query (one run by id) measured in the same run, and
// each query's p50 as a ratio of it. The 30-day DAY query reads every run: the "range holds many more" case.
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { randomBytes } from 'node:crypto';
import type { Reader } from '@workflow-index/core';
import { benchInstanceId } from '@workflow-index/testkit';
import { createPostgresqlReader, migrate } from '@workflow-index/postgresql';
import { generateDataset } from '@workflow-index/postgresql/testing';
import { measureLoop, percentile, round } from '../load/http-load.js';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 1_000_000 })
  .option('tasks-per-instance', { type: 'number', default: 2 })
  .option('duration', { type: 'number', default: 20, describe: 'seconds per measurement' })
  .option('database-url', { type: 'string', default: process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres' })
  .strict()
  .parseSync();

const DAY = { from: '2026-04-15T00:00:00Z', to: '2026-04-16T00:00:00Z' };
const QUERIES: Record<string, (r: Reader) => Promise<unknown>> = {
  'floor: getInstance by id': (r) => r.getInstance(benchInstanceId(424_242 % argv.instances || 1), { payloads: false }),
  'workflowStats day, HOUR': (r) => r.workflowStats({ filter: null, interval: 'HOUR', ...DAY, groupBy: [], maxBuckets: 10_000 }),
  'workflowStats day, HOUR, groupBy name': (r) => r.workflowStats({ filter: null, interval: 'HOUR', ...DAY, groupBy: ['name'], maxBuckets: 10_000 }),
  'workflowStats 30 days, DAY (every run)': (r) => r.workflowStats({ filter: null, interval: 'DAY', from: '2026-04-01T00:00:00Z', to: '2026-05-01T00:00:00Z', groupBy: [], maxBuckets: 10_000 }),
  'topErrors (all runs)': (r) => r.topErrors({ filter: null, limit: 10 }),
  'topErrors (a day)': (r) => r.topErrors({ filter: { kind: 'time', field: 'startDate', predicate: { op: 'between', ...DAY } }, limit: 10 }),
  'topFailingTasks (all tasks)': (r) => r.topFailingTasks({ filter: null, limit: 10 }),
  'topFailingTasks (a day)': (r) => r.topFailingTasks({ filter: { kind: 'time', field: 'startDate', predicate: { op: 'between', ...DAY } }, limit: 10 }),
};

/** Latencies at a fixed rate, each from its scheduled start. */
async function fixedRate(run: () => Promise<unknown>, rate: number, seconds: number): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  const began = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < rate * seconds; i++) {
    const scheduled = began + (i * 1000) / rate;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(run().then(() => void latencies.push(performance.now() - scheduled)));
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) };
}

const database = `wi_bench_stats_${randomBytes(4).toString('hex')}`;
const url = new URL(argv['database-url']);
const admin = new pg.Client({ connectionString: argv['database-url'] });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
url.pathname = `/${database}`;
try {
  const owner = new pg.Client({ connectionString: url.toString() });
  await owner.connect();
  const loadStart = performance.now();
  await migrate(owner);
  await generateDataset(owner, argv.instances, argv['tasks-per-instance']);
  await owner.end();
  console.log(`dataset: ${argv.instances} runs x ${argv['tasks-per-instance']} tasks over 30 days (${round(argv.instances / 30, 0)} runs a day), loaded in ${round((performance.now() - loadStart) / 1000, 1)} s`);
  const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
  pool.on('error', () => undefined); // an idle session ended by the DROP DATABASE at the end is no failure
  const reader = createPostgresqlReader({ pool });
  try {
    let floor = 0;
    for (const [name, run] of Object.entries(QUERIES)) {
      for (let i = 0; i < 3; i++) await run(reader); // warm the plan and the cache
      const rate = await fixedRate(() => run(reader), 10, argv.duration);
      const saturated = await measureLoop([0], async () => void (await run(reader)), 2, argv.duration);
      if (floor === 0) floor = saturated.p50Ms;
      console.log(`${name.padEnd(44)} 10 req/s: p50 ${rate.p50} ms p99 ${rate.p99} ms | saturation: ${saturated.rps} req/s p50 ${saturated.p50Ms} ms p99 ${saturated.p99Ms} ms | p50 / floor ${round(saturated.p50Ms / floor, 1)}`);
    }
  } finally {
    await reader.close();
  }
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
