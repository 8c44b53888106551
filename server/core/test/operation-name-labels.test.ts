// Operation names as label values: bounded, and the first clients cannot keep every slot for everyone after them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../src/metrics/create-metrics.js';
import { OperationNameLabels } from '../src/operation-name-labels.js';
import type { Reader } from '../src/reader.js';
import { WindowMax } from '../src/window-max.js';
import { MemoryLog, testConfig } from '@workflow-index/testkit';
import { RecordingReader } from '@workflow-index/testkit';

const WINDOW = 600_000;

function labels(maxNames: number, clock: { t: number }, released: string[] = []): OperationNameLabels {
  return new OperationNameLabels({ maxNames, minRequests: 3, windowMs: WINDOW, maxCandidates: 1000, now: () => clock.t, onRelease: (n) => released.push(n) });
}

describe('OperationNameLabels', () => {
  it('gives names their own value while there is room', () => {
    const clock = { t: 0 };
    const l = labels(3, clock);
    expect(['A', 'B', 'A', 'C'].map((n) => l.of(n))).toEqual(['A', 'B', 'A', 'C']);
    expect(l.names()).toEqual(['B', 'A', 'C']);
  });

  it('a burst of 200 one-off names fills the slots for one window at most; then a name in use takes the least recently used idle slot', () => {
    const clock = { t: 0 };
    const released: string[] = [];
    const l = labels(200, clock, released);
    for (let i = 0; i < 200; i++) expect(l.of(`burst${i}`)).toBe(`burst${i}`);
    clock.t = 1000;
    // Within the window every slot is still in use: the newcomer waits.
    expect([l.of('Orders'), l.of('Orders'), l.of('Orders')]).toEqual(['other', 'other', 'other']);
    clock.t = WINDOW + 1;
    l.of('burst7'); // still used: keeps its slot
    // A new window: the newcomer qualifies again by use (3 requests), then takes burst0's slot (idle, least recently used).
    expect([l.of('Orders'), l.of('Orders'), l.of('Orders'), l.of('Orders')]).toEqual(['other', 'other', 'Orders', 'Orders']);
    expect(released).toEqual(['burst0']);
    expect(l.names()).toHaveLength(200);
    expect(l.names()).toContain('burst7');
  });

  it('names generated per request never take a slot from an idle name once the slots are full', () => {
    const clock = { t: 0 };
    const released: string[] = [];
    const l = labels(2, clock, released);
    l.of('A');
    l.of('B');
    clock.t = 2 * WINDOW;
    for (let i = 0; i < 5000; i++) expect(l.of(`gen${i}`)).toBe('other');
    expect(released).toEqual([]);
    expect(l.names()).toEqual(['A', 'B']);
  });

  it('what is not a GraphQL name, and the reserved `other`, are `other`', () => {
    const l = labels(10, { t: 0 });
    expect(['', '1abc', 'a b', 'x'.repeat(101), 'other', 'déjà'].map((n) => l.of(n))).toEqual(Array(6).fill('other'));
    expect(l.names()).toEqual([]);
  });

  it('property: never more than maxNames values; every value is the name itself or `other`; a name used within the last window keeps its slot', () => {
    const step = fc.record({ name: fc.constantFrom(...Array.from({ length: 12 }, (_, i) => `N${i}`)), advance: fc.integer({ min: 0, max: WINDOW / 2 }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        const clock = { t: 0 };
        const l = labels(4, clock);
        const lastUse = new Map<string, number>();
        for (const { name, advance } of steps) {
          clock.t += advance;
          const value = l.of(name);
          expect([name, 'other']).toContain(value);
          expect(l.names().length).toBeLessThanOrEqual(4);
          if (value === name) lastUse.set(name, clock.t);
          for (const [n, t] of lastUse) if (clock.t - t < WINDOW) expect(l.names()).toContain(n);
          for (const n of [...lastUse.keys()]) if (!l.names().includes(n)) lastUse.delete(n);
        }
      }),
    );
  });
});

describe('operation-name series in the registry', () => {
  it('a released name\'s duration and error series leave the registry', async () => {
    const clock = { t: 0 };
    const metrics = createMetrics({
      config: testConfig(),
      reader: new RecordingReader() as Reader,
      logger: new MemoryLog().logger(),
      backend: 'test',
      now: () => clock.t,
      operationNames: { maxNames: 1, minRequests: 2, windowMs: WINDOW },
    });
    metrics.observeOperation('query', 'Old', 0.01, ['BAD_USER_INPUT']);
    clock.t = WINDOW;
    metrics.observeOperation('query', 'New', 0.01, []);
    expect(await metrics.registry.metrics()).toContain('graphql_errors_total{operation_type="query",operation_name="Old",code="BAD_USER_INPUT",backend="test"} 1');
    metrics.observeOperation('query', 'New', 0.02, ['BAD_USER_INPUT']);
    const text = await metrics.registry.metrics();
    expect(text).not.toContain('operation_name="Old"');
    expect(text).toContain('graphql_operation_duration_seconds_count{backend="test",operation_type="query",operation_name="other"} 1');
    expect(text).toContain('graphql_operation_duration_seconds_count{backend="test",operation_type="query",operation_name="New"} 1');
    expect(text).toContain('graphql_errors_total{operation_type="query",operation_name="New",code="BAD_USER_INPUT",backend="test"} 1');
  });
});

describe('WindowMax', () => {
  it('reports the largest value of the current and previous window, then decays to 0', () => {
    const clock = { t: 0 };
    const max = new WindowMax(60_000, () => clock.t);
    const a = { uri: '/a' };
    max.observe(a, 3);
    max.observe(a, 1);
    expect(max.values()).toEqual([{ labels: a, value: 3 }]);
    clock.t = 60_000;
    max.observe(a, 2);
    expect(max.values()).toEqual([{ labels: a, value: 3 }]);
    clock.t = 120_000;
    expect(max.values()).toEqual([{ labels: a, value: 2 }]);
    clock.t = 240_000;
    expect(max.values()).toEqual([{ labels: a, value: 0 }]);
  });
});
