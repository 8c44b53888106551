// The arguments of workflowStats, topErrors and topFailingTasks, checked before anything runs: each problem is a
// BAD_USER_INPUT that says what is allowed (docs/statistics.md).
import { DateTimeParseError, formatMicros, parseDateTimeToMicros } from './date-time.js';
import { badUserInput } from './errors.js';
import { DEFAULT_TOP_LIMIT, INTERVAL_MICROS, MAX_STATS_BUCKETS, MAX_TOP_LIMIT, STATS_GROUP_FIELDS } from './stats.js';
import type { StatsGroupField, StatsInterval } from './stats.js';
import type { Timestamp } from './reader.js';

export interface StatsRange {
  readonly from: Timestamp;
  readonly to: Timestamp;
  /** How many intervals the range touches (the first floored, the last partial). */
  readonly intervals: number;
}

function instant(value: string, name: 'from' | 'to'): bigint {
  try {
    return parseDateTimeToMicros(value);
  } catch (error) {
    if (error instanceof DateTimeParseError) throw badUserInput(`workflowStats ${name}: ${error.message}`);
    throw error;
  }
}

/** The intervals from floor(from) up to `to` (exclusive); a number only (safe for any range the schema admits). */
export function intervalsBetween(from: bigint, to: bigint, interval: StatsInterval): number {
  const width = INTERVAL_MICROS[interval];
  const first = from - (((from % width) + width) % width);
  return Number((to - first + width - 1n) / width);
}

/** `from` inclusive, `to` exclusive, both ISO-8601 with an offset, from before to, at most MAX_STATS_BUCKETS intervals. */
export function statsRange(fromText: string, toText: string, interval: StatsInterval): StatsRange {
  const from = instant(fromText, 'from');
  const to = instant(toText, 'to');
  if (to <= from) throw badUserInput(`workflowStats needs from before to (from is inclusive, to exclusive); got from ${formatMicros(from)}, to ${formatMicros(to)}`);
  const intervals = intervalsBetween(from, to, interval);
  if (intervals > MAX_STATS_BUCKETS) throw tooManyBuckets(`${intervals} ${interval} intervals`);
  return { from: formatMicros(from), to: formatMicros(to), intervals };
}

export function tooManyBuckets(what: string): Error {
  return badUserInput(
    `workflowStats answers at most ${MAX_STATS_BUCKETS} buckets (intervals x groups); this range and groupBy make ${what}. ` +
      'Use a shorter range, a wider interval (MINUTE, HOUR, DAY), fewer groupBy fields or a narrower filter.',
  );
}

/** Distinct group fields in STATS_GROUP_FIELDS order; anything but name, namespace, version refused. */
export function statsGroupBy(groupBy: readonly string[] | null | undefined): StatsGroupField[] {
  const given = groupBy ?? [];
  for (const field of given) {
    if (!(STATS_GROUP_FIELDS as readonly string[]).includes(field)) {
      throw badUserInput(`workflowStats groupBy accepts ${STATS_GROUP_FIELDS.join(', ')}; got ${JSON.stringify(field).slice(0, 66)}`);
    }
  }
  return STATS_GROUP_FIELDS.filter((field) => given.includes(field));
}

/** topErrors / topFailingTasks limit: 1 to MAX_TOP_LIMIT, DEFAULT_TOP_LIMIT when absent. */
export function topLimit(limit: number | null | undefined, field: 'topErrors' | 'topFailingTasks'): number {
  if (limit === null || limit === undefined) return DEFAULT_TOP_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_TOP_LIMIT) {
    throw badUserInput(`${field} limit must be 1 to ${MAX_TOP_LIMIT} (default ${DEFAULT_TOP_LIMIT}); got ${limit}`);
  }
  return limit;
}
