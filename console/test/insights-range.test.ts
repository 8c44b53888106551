// The insights page's axis (pure): a span is a fixed number of whole intervals ending after now; filling the
// statistics' sparse buckets keeps every count, in order, one bucket per interval (fast-check); a bucket's window
// as the list's inclusive bounds stays inside the range.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INTERVAL_MS, bucketWindow, fillBuckets, insightsRange } from '../src/insights-range.ts';
import type { Interval, SparseBucket } from '../src/insights-range.ts';
import { SPANS, STATUSES } from '../src/view-state.ts';

const now = fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') });

describe('insights range', () => {
  it('ends with the interval holding now and holds 60, 24 or 168 whole intervals', () => {
    fc.assert(
      fc.property(now, fc.constantFrom(...SPANS), (at, span) => {
        const range = insightsRange(span, at);
        const step = INTERVAL_MS[range.interval];
        const to = Date.parse(range.to);
        expect(to % step).toBe(0);
        expect(to > at && to - step <= at).toBe(true);
        expect((to - Date.parse(range.from)) / step).toBe({ '1h': 60, '1d': 24, '7d': 168 }[span]);
      }),
    );
  });

  it('fills the sparse buckets: one per interval, every count kept where the server put it', () => {
    const interval = fc.constantFrom<Interval>('MINUTE', 'HOUR', 'DAY');
    fc.assert(
      fc.property(now, interval, fc.integer({ min: 1, max: 200 }), fc.array(fc.record({ at: fc.nat(), counts: fc.array(fc.nat({ max: 50 }), { minLength: 5, maxLength: 5 }) })), (at, iv, n, picks) => {
        const step = INTERVAL_MS[iv];
        const from = Math.floor(at / step) * step;
        const sparse: SparseBucket[] = [...new Map(picks.map((p) => [p.at % n, p.counts])).entries()].map(([k, counts]) => ({
          start: new Date(from + k * step).toISOString(),
          statusCounts: STATUSES.map((status, i) => ({ status, count: counts[i] ?? 0 })),
        }));
        const filled = fillBuckets(sparse, new Date(from).toISOString(), new Date(from + n * step).toISOString(), iv);
        expect(filled.map((b) => b.start)).toEqual(Array.from({ length: n }, (_, k) => from + k * step));
        for (const b of sparse) {
          const bucket = filled.find((f) => f.start === Date.parse(b.start));
          expect(STATUSES.map((s) => bucket?.counts[s])).toEqual(b.statusCounts.map((c) => c.count));
        }
        expect(filled.reduce((sum, b) => sum + b.total, 0)).toBe(sparse.flatMap((b) => b.statusCounts).reduce((sum, c) => sum + c.count, 0));
      }),
    );
  });

  it("clips a bucket's window to the range, its end a millisecond before the next bucket or the range's end", () => {
    const range = insightsRange('1h', Date.parse('2026-05-12T10:30:20Z'));
    expect(range).toMatchObject({ from: '2026-05-12T09:31:00.000Z', to: '2026-05-12T10:31:00.000Z', interval: 'MINUTE', durations: 'HOUR' });
    expect(bucketWindow(Date.parse('2026-05-12T09:00:00Z'), 'HOUR', range)).toEqual({ from: '2026-05-12T09:31:00.000Z', to: '2026-05-12T09:59:59.999Z' });
    expect(bucketWindow(Date.parse('2026-05-12T10:00:00Z'), 'HOUR', range)).toEqual({ from: '2026-05-12T10:00:00.000Z', to: '2026-05-12T10:30:59.999Z' });
  });
});
