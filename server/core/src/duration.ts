// Durations: endDate − startDate of a served row, computed from the two served timestamps so that every
// backend answers the same value. Timestamps carry microseconds; a double of milliseconds holds them exactly up to
// about 285 years, so `durationMs` is a Float with microsecond precision (3.572 = 3 ms 572 µs).
import type { Timestamp } from './reader.js';

interface Timed {
  readonly startDate: Timestamp | null;
  readonly endDate: Timestamp | null;
}

const FRACTION = /\.(\d{1,6})Z$/;

/** Epoch microseconds of a Timestamp (`…T09:14:03.512378Z`); Date.parse alone would drop the last three digits. */
export function epochMicros(timestamp: Timestamp): bigint {
  const millis = Date.parse(timestamp);
  if (Number.isNaN(millis)) throw new Error(`not a timestamp: ${timestamp}`);
  const fraction = (FRACTION.exec(timestamp)?.[1] ?? '').padEnd(6, '0');
  return BigInt(Math.floor(millis / 1000)) * 1_000_000n + BigInt(fraction);
}

/** endDate − startDate in microseconds; null while either is missing (a running row). */
export function durationMicros(row: Timed): bigint | null {
  if (row.startDate === null || row.endDate === null) return null;
  return epochMicros(row.endDate) - epochMicros(row.startDate);
}

/** endDate − startDate in milliseconds (microsecond fractions); null while either is missing. */
export function durationMs(row: Timed): number | null {
  const micros = durationMicros(row);
  return micros === null ? null : Number(micros) / 1000;
}

/**
 * A duration filter in milliseconds as the equivalent bound on whole microseconds (what backends store):
 * `> 1000.4 ms` is `> 1000 µs`… exactly `>= 1001 µs`, so gt/lte round the bound down and gte/lt round it up.
 * The product is rounded to 6 decimals first: 1.001 * 1000 is 1000.9999999999999 in doubles, and means 1001.
 */
export function durationBoundMicros(op: 'gt' | 'gte' | 'lt' | 'lte', ms: number): number {
  const micros = Number((ms * 1000).toFixed(6));
  return op === 'gt' || op === 'lte' ? Math.floor(micros) : Math.ceil(micros);
}
