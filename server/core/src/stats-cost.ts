// What a statistics field costs in the query cost (query-cost.ts), known before it runs. A statistic reads every
// matching index entry of its range, as a count does up to COUNT_EXACT_LIMIT, so it costs a count; then each bucket or
// entry it may answer one row: workflowStats its intervals (groups are not known before it runs; the 10,000 buckets
// bound caps them), topErrors / topFailingTasks their limit. docs/statistics.md states the measured figures.
import { DEFAULT_TOP_LIMIT, MAX_TOP_LIMIT, STATS_INTERVALS } from './stats.js';
import type { StatsInterval } from './stats.js';
import { intervalsBetween } from './stats-arguments.js';
import { parseDateTimeToMicros } from './date-time.js';

export const STATS_FIELDS: ReadonlySet<string> = new Set(['workflowStats', 'topErrors', 'topFailingTasks']);

/** The price of a day of workflowStats range, in served rows (a part of a day pays its part, rounded up). */
export const STATS_ROWS_PER_DAY = 1000;
const MICROS_PER_DAY = 86_400_000_000;

/** Reads an argument as the client wrote it (undefined when absent). */
export type ArgumentOf = (name: string) => unknown;

/** The rows of a statistics field, given the price of one count; 0 when its arguments will be refused. */
export function statsFieldRows(field: string, argument: ArgumentOf, countCost: number): number {
  if (field === 'workflowStats') {
    const range = statsRange(argument('interval'), argument('from'), argument('to'));
    return range === null ? 0 : countCost + range.intervals + Math.ceil((range.micros * STATS_ROWS_PER_DAY) / MICROS_PER_DAY);
  }
  const limit = argument('limit');
  if (limit === undefined || limit === null) return countCost + DEFAULT_TOP_LIMIT;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1 || limit > MAX_TOP_LIMIT) return 0;
  return countCost + limit;
}

function statsRange(interval: unknown, from: unknown, to: unknown): { intervals: number; micros: number } | null {
  if (typeof interval !== 'string' || !(STATS_INTERVALS as readonly string[]).includes(interval) || typeof from !== 'string' || typeof to !== 'string') return null;
  try {
    const start = parseDateTimeToMicros(from);
    const end = parseDateTimeToMicros(to);
    return end <= start ? null : { intervals: intervalsBetween(start, end, interval as StatsInterval), micros: Number(end - start) };
  } catch {
    return null;
  }
}
