// The intervals a backend reads one by one (stats-intervals.ts): for any range and interval they cover [from, to)
// exactly, without overlap, in time order, each inside the bucket its start names; so a run is counted once, in the
// bucket its startDate floors to.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INTERVAL_MICROS, STATS_INTERVALS, formatMicros, parseDateTimeToMicros, statsIntervalRanges } from '../src/index.js';

const µs = (t: string): bigint => parseDateTimeToMicros(t);

describe('statsIntervalRanges', () => {
  it('floors the first start, clips the first and last interval to the range', () => {
    expect(statsIntervalRanges({ from: '2026-04-15T10:30:00.000001Z', to: '2026-04-15T12:00:00.5Z', interval: 'HOUR' })).toEqual([
      { start: '2026-04-15T10:00:00.000000Z', lo: '2026-04-15T10:30:00.000001Z', hi: '2026-04-15T11:00:00.000000Z' },
      { start: '2026-04-15T11:00:00.000000Z', lo: '2026-04-15T11:00:00.000000Z', hi: '2026-04-15T12:00:00.000000Z' },
      { start: '2026-04-15T12:00:00.000000Z', lo: '2026-04-15T12:00:00.000000Z', hi: '2026-04-15T12:00:00.500000Z' },
    ]);
    expect(statsIntervalRanges({ from: '1969-12-31T23:59:59Z', to: '1970-01-01T00:00:01Z', interval: 'DAY' }).map((r) => r.start)).toEqual([
      '1969-12-31T00:00:00.000000Z',
      '1970-01-01T00:00:00.000000Z',
    ]);
  });

  it('partitions [from, to) into the buckets the rule floors to', () => {
    const instant = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 17n });
    fc.assert(
      fc.property(instant, fc.bigInt({ min: 1n, max: 86_400_000_000n }), fc.constantFrom(...STATS_INTERVALS), (from, length, interval) => {
        const width = INTERVAL_MICROS[interval];
        const ranges = statsIntervalRanges({ from: formatMicros(from), to: formatMicros(from + length), interval });
        expect(µs(ranges[0]!.lo)).toBe(from);
        expect(µs(ranges.at(-1)!.hi)).toBe(from + length);
        ranges.forEach((r, k) => {
          const start = µs(r.start);
          expect(((start % width) + width) % width).toBe(0n);
          expect(µs(r.lo) >= start && µs(r.lo) < µs(r.hi) && µs(r.hi) <= start + width).toBe(true);
          if (k > 0) expect(r.lo).toBe(ranges[k - 1]!.hi);
        });
      }),
      { numRuns: 300 },
    );
  });
});
