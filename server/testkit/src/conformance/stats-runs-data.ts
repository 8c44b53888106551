// The runs the statistics conformance cases load (stats-suite.ts): durations for percentiles of 1, 2, 3 and 100
// values, runs without an endDate, without namespace / version / error fields, ties in topErrors and topFailingTasks,
// and runs on the edges of the range (exactly at `from`, exactly at `to`, the last µs of a day).
import type { StatsRunSpec } from '../stats-runs.js';

const at = (hhmmss: string, micros = 0): string => `2026-06-01T${hhmmss}.${String(micros).padStart(6, '0')}Z`;

/** 1..100 shuffled deterministically (a permutation by a multiplier coprime with 101). */
const SHUFFLED = Array.from({ length: 100 }, (_, i) => ((i + 1) * 37) % 101);

export const STATS_RUNS: readonly StatsRunSpec[] = Object.freeze([
  { id: 'st-one', name: 'one', namespace: 'ns.a', version: '1', status: 'COMPLETED', start: at('10:00:00'), durationMicros: 1500 },
  { id: 'st-two-a', name: 'two', namespace: 'ns.a', version: '1', status: 'COMPLETED', start: at('10:01:00'), durationMicros: 3000 },
  { id: 'st-two-b', name: 'two', namespace: 'ns.a', version: '1', status: 'COMPLETED', start: at('10:02:00'), durationMicros: 1000 },
  ...[2000, 3000, 1000].map((d, k): StatsRunSpec => ({ id: `st-three-${k}`, name: 'three', namespace: 'ns.b', status: 'CANCELLED', start: at('10:03:00', k), durationMicros: d })),
  ...SHUFFLED.map((k, i): StatsRunSpec => ({
    id: `st-hundred-${String(i).padStart(3, '0')}`,
    name: 'hundred',
    namespace: 'ns.b',
    version: '2',
    status: k % 10 === 0 ? 'FAULTED' : 'COMPLETED',
    start: at(`10:${String(10 + (i % 40)).padStart(2, '0')}:00`, i),
    durationMicros: k * 1000 + 7,
    ...(k % 10 === 0 ? { error: k % 20 === 0 ? { type: 'timeout', title: 'Timed out', status: 504 } : { type: 'communication', title: 'Bad gateway', status: 502 } } : {}),
    tasks: [{ position: 'do/0/charge', faulted: k % 10 === 0 }],
  })),
  // No endDate: counted in statusCounts, not in durations.
  { id: 'st-open-running', name: 'open', status: 'RUNNING', start: at('11:00:00') },
  { id: 'st-open-suspended', name: 'open', version: '3', status: 'SUSPENDED', start: at('11:30:00') },
  // Errors with missing fields; a faulted run without any error.
  { id: 'st-err-null-type', name: 'errs', namespace: 'ns.c', status: 'FAULTED', start: at('12:00:00'), durationMicros: 10, error: { title: 'Bad gateway', status: 502 } },
  { id: 'st-err-null-all', name: 'errs', namespace: 'ns.c', status: 'FAULTED', start: at('12:00:01'), durationMicros: 20 },
  { id: 'st-err-null-status', name: 'errs', namespace: 'ns.c', status: 'FAULTED', start: at('12:00:02'), durationMicros: 30, error: { type: 'communication', title: 'Bad gateway' },
    tasks: [{ position: 'do/0/charge', faulted: true }, { position: 'do/1/ship', faulted: true }] },
  { id: 'st-err-null-status-2', name: 'errs', namespace: 'ns.c', status: 'FAULTED', start: at('12:00:03'), durationMicros: 40, error: { type: 'communication', title: 'Bad gateway' },
    tasks: [{ position: 'do/1/ship', faulted: true }] },
  // The edges of a range from 00:00 to 23:00 of the day, and the last µs of the day.
  { id: 'st-edge-from', name: 'edge', namespace: 'ns.d', status: 'COMPLETED', start: at('00:00:00'), durationMicros: 5 },
  { id: 'st-edge-to', name: 'edge', namespace: 'ns.d', status: 'COMPLETED', start: at('23:00:00'), durationMicros: 5 },
  { id: 'st-edge-last', name: 'edge', namespace: 'ns.d', status: 'COMPLETED', start: at('23:59:59', 999999), durationMicros: 6 },
]);
