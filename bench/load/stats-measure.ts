// The measurement of bench:stats, the same on both backends: the statistics queries through a Reader in process over
// the bench dataset (testkit bench-dataset.ts: runs spread evenly over 30 days from 2026-04-01, so a day holds 1/30 of
// them). Per query: latency at a fixed 10 requests/s (p50/p99, from the scheduled send, so queueing counts) and at
// saturation (2 concurrent callers, the machine's cores); the floor (one run by id) is measured in the same run and
// each query's p50 at both rates is given as a ratio of the floor's. The machine's load average is printed before and
// after: on a shared machine the tails measure its queueing. Before measuring, the answers are checked against the
// dataset (every run of the day and of the 30 days counted once).
import { loadavg } from 'node:os';
import type { InstanceFilter, Reader, StatsBucketRecord } from '@workflow-index/core';
import { BASE_TIME, SPAN_SECONDS, benchInstanceId } from '@workflow-index/testkit';
import { measureLoop, percentile, round } from './http-load.js';

const DAY = { from: '2026-04-15T00:00:00Z', to: '2026-04-16T00:00:00Z' } as const;
const MONTH = { from: '2026-04-01T00:00:00Z', to: '2026-05-01T00:00:00Z' } as const;
const dayFilter: InstanceFilter = { kind: 'time', field: 'startDate', predicate: { op: 'between', ...DAY } };
const stats = (r: Reader, range: { from: string; to: string }, interval: 'HOUR' | 'DAY', groupBy: ('name' | 'namespace' | 'version')[] = [], filter: InstanceFilter | null = null) =>
  r.workflowStats({ filter, interval, ...range, groupBy, maxBuckets: 10_000 });

export const FLOOR = 'floor: getInstance by id';

/** The measured queries, the floor first. */
export function statsQueries(instances: number): Record<string, (r: Reader) => Promise<unknown>> {
  return {
    [FLOOR]: (r) => r.getInstance(benchInstanceId(424_242 % instances || 1), { payloads: false }),
    'workflowStats day, HOUR': (r) => stats(r, DAY, 'HOUR'),
    'workflowStats day, HOUR, groupBy name': (r) => stats(r, DAY, 'HOUR', ['name']),
    'workflowStats day, HOUR, groupBy namespace': (r) => stats(r, DAY, 'HOUR', ['namespace']),
    'workflowStats day, HOUR, groupBy name+version': (r) => stats(r, DAY, 'HOUR', ['name', 'version']),
    'workflowStats day, HOUR, status FAULTED': (r) => stats(r, DAY, 'HOUR', [], { kind: 'string', field: 'status', predicate: { op: 'eq', value: 'FAULTED' } }),
    'workflowStats day, HOUR, name flow-3': (r) => stats(r, DAY, 'HOUR', [], { kind: 'string', field: 'name', predicate: { op: 'eq', value: 'flow-3' } }),
    'workflowStats 30 days, DAY (every run)': (r) => stats(r, MONTH, 'DAY'),
    'workflowStats 30 days, HOUR (every run)': (r) => stats(r, MONTH, 'HOUR'),
    'topErrors (a day)': (r) => r.topErrors({ filter: dayFilter, limit: 10 }),
    'topErrors (all runs)': (r) => r.topErrors({ filter: null, limit: 10 }),
    'topFailingTasks (a day)': (r) => r.topFailingTasks({ filter: { kind: 'time', field: 'startDate', predicate: { op: 'between', ...DAY } }, limit: 10 }),
    'topFailingTasks (all tasks)': (r) => r.topFailingTasks({ filter: null, limit: 10 }),
  };
}

/** Runs of the bench dataset whose start is in [from, to): instance g starts at BASE + g·SPAN/N s, + (g % 997) µs. */
function runsBetween(instances: number, from: string, to: string): number {
  const lo = Date.parse(from) * 1000;
  const hi = Date.parse(to) * 1000;
  let n = 0;
  for (let g = 1; g <= instances; g++) {
    const start = Math.round((BASE_TIME / 1000 + (g * SPAN_SECONDS) / instances) * 1e6 + (g % 997));
    if (start >= lo && start < hi) n++;
  }
  return n;
}

const runsIn = (buckets: StatsBucketRecord[]): number => buckets.reduce((sum, b) => sum + Object.values(b.statusCounts).reduce((a, c) => a + c, 0), 0);

/** The answers count every run of the day and of the 30 days once (grouped or not); throws otherwise. */
export async function checkStats(reader: Reader, instances: number): Promise<void> {
  const day = runsBetween(instances, DAY.from, DAY.to);
  const checks: [string, StatsBucketRecord[], number][] = [
    ['day, HOUR', await stats(reader, DAY, 'HOUR'), day],
    ['day, HOUR, groupBy name', await stats(reader, DAY, 'HOUR', ['name']), day],
    ['30 days, DAY', await stats(reader, MONTH, 'DAY'), runsBetween(instances, MONTH.from, MONTH.to)],
  ];
  for (const [what, buckets, expected] of checks) {
    if (runsIn(buckets) !== expected) throw new Error(`workflowStats ${what} counted ${runsIn(buckets)} runs, the dataset has ${expected}`);
  }
}

/** Latencies at a fixed rate, each from its scheduled start (failed requests counted apart). */
async function fixedRate(run: () => Promise<unknown>, rate: number, seconds: number): Promise<{ p50: number; p99: number; failures: number }> {
  const latencies: number[] = [];
  let failures = 0;
  const began = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < rate * seconds; i++) {
    const scheduled = began + (i * 1000) / rate;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(run().then(() => void latencies.push(performance.now() - scheduled), () => void failures++));
  }
  await Promise.all(pending);
  latencies.sort((a, b) => a - b);
  return { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), failures };
}

export interface StatsRow {
  readonly query: string;
  readonly rate10: { p50: number; p99: number; failures: number };
  readonly saturation: { rps: number; p50: number; p99: number; failures: number };
  /** p50 at 10 req/s and at saturation over the floor's. */
  readonly ratio10: number;
  readonly ratioSaturation: number;
}

const failed = (n: number): string => (n === 0 ? '' : `, ${n} failed`);
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

/** Measures every query (`only`: a subset by name, the floor always) and prints one line each, then the JSON summary. */
export async function measureStats(reader: Reader, instances: number, seconds: number, only: readonly string[] | null): Promise<StatsRow[]> {
  const rows: StatsRow[] = [];
  const before = load();
  console.log(`load average before: ${before}`);
  for (const [name, run] of Object.entries(statsQueries(instances))) {
    if (only !== null && name !== FLOOR && !only.some((o) => name.includes(o))) continue;
    for (let i = 0; i < 3; i++) await run(reader); // warm the plan and the cache
    const rate10 = await fixedRate(() => run(reader), 10, seconds);
    const saturated = await measureLoop([0], async () => void (await run(reader)), 2, seconds);
    const floor = rows[0] ?? { rate10, saturation: { p50: saturated.p50Ms } };
    const row: StatsRow = {
      query: name, rate10, saturation: { rps: saturated.rps, p50: saturated.p50Ms, p99: saturated.p99Ms, failures: saturated.failures },
      ratio10: round(rate10.p50 / floor.rate10.p50, 1), ratioSaturation: round(saturated.p50Ms / floor.saturation.p50, 1),
    };
    rows.push(row);
    console.log(
      `${name.padEnd(50)} 10 req/s: p50 ${rate10.p50} p99 ${rate10.p99} ms (p50 ${row.ratio10}x floor${failed(rate10.failures)}) | saturation: ${saturated.rps} req/s p50 ${saturated.p50Ms} p99 ${saturated.p99Ms} ms (p50 ${row.ratioSaturation}x floor${failed(saturated.failures)}) | load ${load()}`,
    );
  }
  console.log(JSON.stringify({ instances, loadBefore: before, loadAfter: load(), rows }));
  return rows;
}
