// The insights page's time axis (pure): a span ends at the end of the current interval, so every bucket is whole and
// the chart has a fixed number of bars (60 minutes, 24 hours, 168 hours); the statistics' sparse buckets are filled
// with zeros. Percentiles cannot be merged across buckets, so durations use one coarser interval (an hour for the
// last hour, a UTC day otherwise): each workflow has one or two rows per day, never a percentile made up here.
import type { Span, Status } from './view-state.ts';
import { STATUSES } from './view-state.ts';

export type Interval = 'MINUTE' | 'HOUR' | 'DAY';

export const INTERVAL_MS: Record<Interval, number> = { MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000 };

const SPAN_SETTINGS: Record<Span, { readonly interval: Interval; readonly buckets: number; readonly durations: Interval }> = {
  '1h': { interval: 'MINUTE', buckets: 60, durations: 'HOUR' },
  '1d': { interval: 'HOUR', buckets: 24, durations: 'DAY' },
  '7d': { interval: 'HOUR', buckets: 168, durations: 'DAY' },
};

export interface InsightsRange {
  /** Inclusive, ISO. */
  readonly from: string;
  /** Exclusive, ISO: the end of the interval holding `now`. */
  readonly to: string;
  readonly interval: Interval;
  /** The interval of the duration percentiles. */
  readonly durations: Interval;
}

export function insightsRange(span: Span, now: number): InsightsRange {
  const { interval, buckets, durations } = SPAN_SETTINGS[span];
  const step = INTERVAL_MS[interval];
  const end = Math.floor(now / step) * step + step;
  return { from: new Date(end - buckets * step).toISOString(), to: new Date(end).toISOString(), interval, durations };
}

export interface StatusBucket {
  /** Epoch ms of the bucket's start. */
  readonly start: number;
  readonly counts: Readonly<Record<Status, number>>;
  readonly total: number;
}

export interface SparseBucket {
  readonly start: string;
  readonly statusCounts: readonly { readonly status: Status; readonly count: number }[];
}

/** One bucket per interval from `from` (floored) up to `to`, zeros where the server sent none. */
export function fillBuckets(sparse: readonly SparseBucket[], from: string, to: string, interval: Interval): StatusBucket[] {
  const step = INTERVAL_MS[interval];
  const byStart = new Map(sparse.map((b) => [Date.parse(b.start), b]));
  const buckets: StatusBucket[] = [];
  for (let start = Math.floor(Date.parse(from) / step) * step; start < Date.parse(to); start += step) {
    const counts = Object.fromEntries(STATUSES.map((s) => [s, byStart.get(start)?.statusCounts.find((c) => c.status === s)?.count ?? 0])) as Record<Status, number>;
    buckets.push({ start, counts, total: STATUSES.reduce((sum, s) => sum + counts[s], 0) });
  }
  return buckets;
}

/** A bucket's window clipped to the range, as the runs list's custom bounds (inclusive `to`: a millisecond before the end). */
export function bucketWindow(start: number, interval: Interval, range: InsightsRange): { from: string; to: string } {
  const from = Math.max(start, Date.parse(range.from));
  const end = Math.min(start + INTERVAL_MS[interval], Date.parse(range.to));
  return { from: new Date(from).toISOString(), to: new Date(end - 1).toISOString() };
}
