// The timeline's geometry: lanes per task position in order of first start, one bar per execution (a loop is
// several bars in one lane), bars inside the axis, running executions reaching "now".
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutTimeline } from '../src/timeline-layout.ts';
import type { TimelineTask } from '../src/timeline-layout.ts';

const at = (s: number): string => new Date(Date.parse('2026-05-12T09:00:00Z') + s * 1000).toISOString();
const task = (id: string, position: string, start: number, end: number | null, status = 'COMPLETED'): TimelineTask => ({
  id,
  taskName: position.split('/').at(-1) as string,
  taskPosition: position,
  status,
  startDate: at(start),
  endDate: end === null ? null : at(end),
});

describe('layoutTimeline', () => {
  it('puts the executions of a loop in one lane as repeated bars, in start order', () => {
    const t = layoutTimeline(
      [task('c', 'do/1/pick', 30, 40), task('a', 'do/0/validate', 0, 10), task('b', 'do/1/pick', 10, 20), task('d', 'do/1/pick', 50, 60, 'FAULTED'), task('e', 'do/2/ship', 60, 100)],
      at(0),
      at(100),
      Date.parse(at(500)),
    );
    expect(t.lanes.map((l) => [l.position, l.bars.map((b) => [b.task.id, b.attempt])])).toEqual([
      ['do/0/validate', [['a', 1]]],
      ['do/1/pick', [['b', 1], ['c', 2], ['d', 3]]],
      ['do/2/ship', [['e', 1]]],
    ]);
    const pick = t.lanes[1]?.bars ?? [];
    expect(pick.map((b) => [b.left, b.width])).toEqual([
      [0.1, 0.1],
      [0.3, 0.1],
      [0.5, 0.1],
    ]);
    expect(t.ticks[0]).toEqual({ at: Date.parse(at(0)), fraction: 0 });
  });

  it('lets a running execution (and a running run) grow to now', () => {
    const now = Date.parse(at(80));
    const t = layoutTimeline([task('a', 'do/0/a', 0, 20), task('b', 'do/1/b', 20, null, 'RUNNING')], at(0), null, now);
    expect(t.end).toBe(now);
    const running = t.lanes[1]?.bars[0];
    expect(running?.open).toBe(true);
    expect((running?.left ?? 0) + (running?.width ?? 0)).toBeCloseTo(1, 10);
    const later = layoutTimeline([task('a', 'do/0/a', 0, 20), task('b', 'do/1/b', 20, null, 'RUNNING')], at(0), null, now + 80_000);
    expect(later.lanes[1]?.bars[0]?.width).toBeGreaterThan(running?.width ?? 1);
  });

  it('keeps every bar inside the axis and every execution on exactly one bar, whatever the times', () => {
    const taskArb = fc.record({
      position: fc.constantFrom('do/0/a', 'do/1/b', 'do/1/b/do/0/c'),
      start: fc.integer({ min: 0, max: 10_000 }),
      length: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(taskArb, { maxLength: 30 }), fc.integer({ min: 0, max: 30_000 }), (specs, nowOffset) => {
        const tasks = specs.map((s, i) => task(`t${i}`, s.position, s.start, s.length === null ? null : s.start + s.length, s.length === null ? 'RUNNING' : 'COMPLETED'));
        const t = layoutTimeline(tasks, at(0), null, Date.parse(at(nowOffset)));
        const bars = t.lanes.flatMap((l) => l.bars);
        expect(bars.map((b) => b.task.id).sort()).toEqual(tasks.map((x) => x.id).sort());
        for (const b of bars) {
          expect(b.left).toBeGreaterThanOrEqual(0);
          expect(b.width).toBeGreaterThanOrEqual(0);
          expect(b.left + b.width).toBeLessThanOrEqual(1 + 1e-9);
        }
        expect(new Set(t.lanes.map((l) => l.position)).size).toBe(t.lanes.length);
        expect(t.ticks.length).toBeLessThanOrEqual(8);
      }),
      { numRuns: 300 },
    );
  });
});
