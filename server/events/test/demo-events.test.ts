// The demo event set: the reference stream placed before a base time with the same shape every time, a run still
// running, and a loop whose iterations carry input and output.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEMO_LOOP_INSTANCE, DEMO_LOOP_ITERATION_POSITION, DEMO_NEWEST_EVENT_OFFSET_S, DEMO_REFERENCE_EVENTS, DEMO_RUNNING_INSTANCE,
  DEMO_RUN_OFFSETS_S, demoBaseMs, demoEventLines, demoEventLinesOf,
} from '../src/index.js';

type Event = Record<string, unknown> & { instanceId: string; eventType: string; timestamp: number };
const reference = readFileSync(DEMO_REFERENCE_EVENTS, 'utf8').split('\n').filter((l) => l.trim() !== '');
const parse = (lines: string[]): Event[] => lines.map((l) => JSON.parse(l) as Event);

describe('demo events', () => {
  const base = Date.UTC(2026, 10, 30, 12, 0, 0);
  const events = parse(demoEventLines(reference, base));

  it('rounds the base down to the whole second', () => {
    expect(demoBaseMs(Date.UTC(2026, 0, 1, 0, 0, 0, 999))).toBe(Date.UTC(2026, 0, 1));
  });

  it('keeps every reference event and adds the running run', () => {
    expect(events).toHaveLength(reference.length + 7);
    expect(new Set(events.map((e) => e.instanceId)).size).toBe(9);
  });

  it('starts each reference run at its offset before the base and keeps its inner shape', () => {
    const original = parse(reference);
    for (const [id, offset] of Object.entries(DEMO_RUN_OFFSETS_S)) {
      const before = original.filter((e) => e.instanceId === id).map((e) => e.timestamp);
      const after = events.filter((e) => e.instanceId === id).map((e) => e.timestamp);
      expect(after[0]).toBe(base / 1000 - offset);
      expect(after.map((t) => Math.round((t - after[0]!) * 1e6))).toEqual(before.map((t) => Math.round((t - before[0]!) * 1e6)));
    }
  });

  it('puts the newest event shortly before the base, and nothing after it', () => {
    const newest = Math.max(...events.map((e) => e.timestamp));
    expect(newest).toBe(base / 1000 - DEMO_NEWEST_EVENT_OFFSET_S);
    expect(Math.min(...events.map((e) => e.timestamp))).toBeGreaterThanOrEqual(base / 1000 - 24 * 3600);
  });

  it('has a run still running: tasks completed, one started without an end, no workflow end event', () => {
    const run = events.filter((e) => e.instanceId === DEMO_RUNNING_INSTANCE);
    expect(run.map((e) => e.eventType.replace('io.serverlessworkflow.', ''))).toEqual([
      'workflow.status-changed.v1', 'workflow.started.v1', 'task.started.v1', 'task.completed.v1', 'task.started.v1', 'task.completed.v1', 'task.started.v1',
    ]);
    expect(run[1]).toMatchObject({ workflowName: 'shipment-dispatch', status: 'RUNNING', input: expect.any(Object) });
  });

  it('gives the loop iterations input and output, each input the previous output', () => {
    const iterations = events.filter((e) => e.instanceId === DEMO_LOOP_INSTANCE && e['taskPosition'] === DEMO_LOOP_ITERATION_POSITION);
    expect(iterations).toHaveLength(6);
    const started = iterations.filter((e) => e.eventType.endsWith('task.started.v1'));
    const completed = iterations.filter((e) => e.eventType.endsWith('task.completed.v1'));
    expect(completed.map((e) => (e['output'] as { picked: string[] }).picked)).toEqual([['BK-101'], ['BK-101', 'MG-007'], ['BK-101', 'MG-007', 'TB-3']]);
    expect(started[1]!['input']).toEqual(completed[0]!['output']);
    expect(started[2]!['input']).toEqual(completed[1]!['output']);
    expect(started[0]!['input']).toEqual(events.find((e) => e.instanceId === DEMO_LOOP_INSTANCE && e.eventType.endsWith('workflow.started.v1'))!['input']);
  });

  it('is the same for the same base, and moves with it', () => {
    expect(demoEventLines(reference, base)).toEqual(demoEventLines(reference, base));
    const later = parse(demoEventLines(reference, base + 3_600_000));
    expect(later.map((e) => Math.round((e.timestamp - 3600) * 1e6))).toEqual(events.map((e) => Math.round(e.timestamp * 1e6)));
  });

  it('loads a file other than the reference stream as it is', () => {
    const other = `${DEMO_REFERENCE_EVENTS}`.replace(/quarkus-flow-events\.jsonl$/, 'line-repairs.json');
    expect(demoEventLinesOf(other, base)).toEqual(readFileSync(other, 'utf8').split('\n').filter((l) => l.trim() !== ''));
  });
});
