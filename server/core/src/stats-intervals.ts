// The intervals of a workflowStats query, each with the part of the range it covers: the first starts at `from` floored
// to the UTC minute / hour / day, each is the interval's width in epoch µs (no leap seconds in epoch time, so a day is
// always 86,400 s), the last ends at `to`. A backend that reads one interval at a time (an index range per interval
// instead of one range sorted by bucket) reads exactly [lo, hi) of each, so a run is counted once, in the bucket its
// startDate floors to.
import { formatMicros, parseDateTimeToMicros } from './date-time.js';
import { INTERVAL_MICROS } from './stats.js';
import type { StatsQuery } from './stats.js';
import type { Timestamp } from './reader.js';

export interface StatsIntervalRange {
  /** The bucket's start (floored; may be before `from` for the first). */
  readonly start: Timestamp;
  /** Inclusive lower bound of the startDates counted: max(start, from). */
  readonly lo: Timestamp;
  /** Exclusive upper bound: min(start + width, to). */
  readonly hi: Timestamp;
}

/** Every interval of the query's range, in time order (the resolver has bounded their number). */
export function statsIntervalRanges(query: Pick<StatsQuery, 'from' | 'to' | 'interval'>): StatsIntervalRange[] {
  const width = INTERVAL_MICROS[query.interval];
  const from = parseDateTimeToMicros(query.from);
  const to = parseDateTimeToMicros(query.to);
  const ranges: StatsIntervalRange[] = [];
  for (let start = from - (((from % width) + width) % width); start < to; start += width) {
    const lo = start < from ? from : start;
    const hi = start + width > to ? to : start + width;
    ranges.push({ start: formatMicros(start), lo: formatMicros(lo), hi: formatMicros(hi) });
  }
  return ranges;
}
