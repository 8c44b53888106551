// The test oracle (support/expected-executions.ts) on hand-written streams, before it judges the normalizer.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { distinctEvents, expectedIndex, microsToIso, timeMicros } from '@workflow-index/testkit';
import type { Event } from './support/load-events.js';

const P = 'io.serverlessworkflow.';
const ID = '01KTESTORACLE0000000000001';
const POS = 'do/0/loop/do/0/step';
const T = 1_795_441_523_000; // epoch millis

const task = (action: string, ms: number, extra: Event = {}): Event => ({
  eventType: `${P}task.${action}.v1`, instanceId: ID, taskPosition: POS, taskName: 'step', timestamp: ms,
  ...(action === 'started' ? { startTime: ms, status: 'RUNNING' } : {}),
  ...(action === 'completed' ? { endTime: ms, status: 'COMPLETED' } : {}),
  ...(action === 'faulted' ? { endTime: ms, status: 'FAILED' } : {}),
  ...extra,
});
const wf = (action: string, ms: number, extra: Event = {}): Event => ({ eventType: `${P}workflow.${action}.v1`, instanceId: ID, timestamp: ms, ...extra });
const iso = (ms: number): string => microsToIso(BigInt(ms) * 1000n);
const rows = (events: Event[]) => expectedIndex(events).tasks.map((t) => [t.id, t.status, t.start_time, t.end_time, t.input, t.output]);

describe('expected-executions oracle', () => {
  it('pairs an end and a start of the same millisecond as two executions, not one (the brief\'s example)', () => {
    const events = [
      task('started', T + 61, { input: { i: 1 } }), task('completed', T + 69, { output: { o: 1 } }),
      task('started', T + 69, { input: { i: 2 } }), task('completed', T + 75, { output: { o: 2 } }),
    ];
    expect(rows(events)).toEqual([
      [`${ID}:${POS}`, 'COMPLETED', iso(T + 61), iso(T + 69), { i: 1 }, { o: 1 }],
      [`${ID}:${POS}@${(T + 69) * 1000}`, 'COMPLETED', iso(T + 69), iso(T + 75), { i: 2 }, { o: 2 }],
    ]);
  });

  it('pairs a start and an end of the same millisecond with nothing open as one execution', () => {
    expect(rows([task('completed', T + 69, { output: 1 }), task('started', T + 69, { input: 0 })])).toEqual([
      [`${ID}:${POS}`, 'COMPLETED', iso(T + 69), iso(T + 69), 0, 1],
    ]);
  });

  it('gives the same result for every arrival order of a tied loop', () => {
    const events = [
      task('started', T + 1, { input: 'a' }), task('completed', T + 3, { output: 'a' }), task('started', T + 3, { input: 'b' }),
      task('completed', T + 3, { output: 'b' }), task('started', T + 5, { input: 'c' }), task('completed', T + 5, { output: 'c' }),
    ];
    const expected = expectedIndex(events);
    // At 3: one of the two ends closes a (open before 3), then b opens and the other end closes it.
    expect(expected.tasks.map((t) => [t.start_time, t.end_time])).toEqual([[iso(T + 1), iso(T + 3)], [iso(T + 3), iso(T + 3)], [iso(T + 5), iso(T + 5)]]);
    fc.assert(fc.property(fc.shuffledSubarray(events, { minLength: events.length }), (order) => {
      expect(expectedIndex(order)).toEqual(expected);
    }), { numRuns: 50 });
  });

  it('numbers retries as executions and gives a retried attempt the input its fault carries', () => {
    const events = [
      task('started', T, { input: { n: 1 } }), task('faulted', T + 10, { input: { n: 1 }, error: { type: 'comm', status: 503, instance: POS, title: 'Unavailable', detail: null } }),
      task('retried', T + 20), task('faulted', T + 30, { input: { n: 1 }, error: { type: 'comm', status: '503', instance: POS, title: 'x', detail: 'd' } }),
      task('retried', T + 40), task('completed', T + 50, { output: { ok: true } }),
    ];
    const tasks = expectedIndex(events).tasks;
    expect(tasks.map((t) => [t.execution_index, t.status, t.input, t.output, t.error_status, t.error_title])).toEqual([
      [1, 'FAULTED', { n: 1 }, null, 503, 'Unavailable'],
      [2, 'FAULTED', { n: 1 }, null, 503, 'x'],
      [3, 'COMPLETED', null, { ok: true }, null, null],
    ]);
    expect(tasks[1]!.id).toBe(`${ID}:${POS}@${(T + 20) * 1000}`);
  });

  it('makes completion-only executions and suffixes #n when two executions share an instant', () => {
    const tasks = expectedIndex([task('completed', T + 5, { output: 1 }), task('completed', T + 5, { output: 2 })]).tasks;
    expect(tasks.map((t) => [t.id, t.start_time, t.end_time, t.output])).toEqual([
      [`${ID}:${POS}`, null, iso(T + 5), 1],
      [`${ID}:${POS}@${(T + 5) * 1000}#2`, null, iso(T + 5), 2],
    ]);
  });

  it('treats identical lines as one event, re-delivered or re-printed (double precision, key order)', () => {
    const a = { input: { b: 1, a: [1.5, 'x'] }, ...task('started', 1.7954415230510702e9) };
    const reprinted = { ...JSON.parse(JSON.stringify(a)), timestamp: Number((1.7954415230510702e9).toPrecision(16)), input: { a: [1.5, 'x'], b: 1 } } as Event;
    expect(distinctEvents([a, reprinted, a])).toHaveLength(1);
    expect(distinctEvents([a, { ...a, input: { b: 2, a: [1.5, 'x'] } }])).toHaveLength(2);
  });

  it('serves instance status by the newest terminal event, then the newest event; FAILED as FAULTED', () => {
    const events = [
      wf('status-changed', T, { status: 'RUNNING', lastUpdateTime: T }),
      wf('started', T + 1, { status: 'RUNNING', startTime: T + 1, workflowName: 'w', workflowNamespace: 'n', workflowVersion: '1', input: { x: 1 } }),
      wf('completed', T + 5, { status: 'COMPLETED', endTime: T + 5, output: null }),
      wf('resumed', T + 6, { status: 'RUNNING' }),
    ];
    expect(expectedIndex(events).instances).toEqual([{
      id: ID, namespace: 'n', name: 'w', version: '1', status: 'COMPLETED', start_time: iso(T + 1), end_time: iso(T + 5), last_update: iso(T + 6),
      input: { x: 1 }, output: null, error_type: null, error_title: null, error_detail: null, error_status: null, error_instance: null, placeholder: false,
    }]);
    expect(expectedIndex([wf('status-changed', T, { status: 'WAITING' })]).instances[0]).toMatchObject({ status: 'RUNNING', placeholder: true, last_update: iso(T) });
    expect(expectedIndex([task('faulted', T, { error: { type: 't' } })]).tasks[0]).toMatchObject({ status: 'FAULTED', error_type: 't' });
  });

  it('reads every time representation to µs, half to even; a double and its %.16g re-print agree', () => {
    expect(timeMicros('2026-11-23T13:45:54.915477964Z')).toBe(1_795_441_554_915_478n);
    expect(timeMicros('2026-11-23T13:45:54.9154775Z')).toBe(1_795_441_554_915_478n); // .5 → even (8)
    expect(timeMicros('2026-11-23T13:45:54.9154765Z')).toBe(1_795_441_554_915_476n);
    expect(timeMicros('2026-11-23T15:45:54.915477+02:00')).toBe(1_795_441_554_915_477n);
    expect(timeMicros(1_795_441_554_915)).toBe(1_795_441_554_915_000n); // millis
    expect(timeMicros(1_795_441_554_915_477)).toBe(1_795_441_554_915_477n); // micros
    expect(timeMicros('1795441554915477964')).toBe(1_795_441_554_915_478n); // nanos as a string
    expect(timeMicros('1.7954415549154775E9')).toBe(1_795_441_554_915_478n); // decimal text: exact half → even
    expect(microsToIso(1_795_441_554_000_001n)).toBe('2026-11-23T13:45:54.000001Z');
    // A real epoch-seconds value (e-try-catch's start): its decimal text is an exact half (.3508985 → .350898), but
    // the double it denotes lies above the half, and Fluent Bit re-prints that double as 1795441525.350899. A JSON
    // number is therefore read at double precision, so every path serves the same µs.
    expect(timeMicros(1.7954415253508985e9)).toBe(1_795_441_525_350_899n);
    expect(timeMicros(1795441525.350899)).toBe(1_795_441_525_350_899n);
    fc.assert(fc.property(fc.integer({ min: 1_700_000_000_000_000, max: 1_900_000_000_000_000 }), fc.integer({ min: 0, max: 9 }), (us, tenth) => {
      const seconds = Number(`${Math.floor(us / 1e6)}.${String(us % 1e6).padStart(6, '0')}${tenth}`);
      expect(timeMicros(Number(seconds.toPrecision(16)))).toBe(timeMicros(seconds));
    }), { numRuns: 2000 });
  });
});
