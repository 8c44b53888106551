// A cycle recomputes the instances new raw events touched in batches of at most NORMALIZER_BATCH_SIZE instances and,
// beyond a batch's first instance, at most NORMALIZER_CYCLE_EVENT_BUDGET stored and new events
// (normalizer-batches.ts): the cut in batches is pure and tested here for every input shape; on the real node, the
// event counts come from the event store, and any budget gives exactly the documents of one batch for all.
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import { batchesWithinBudget, storedEventCounts } from '../src/normalizer-batches.js';
import type { OpenSearchNormalizer } from '../src/normalizer-job.js';
import { generatedEventLines } from './support/generated-events.js';
import { DAY_ONE, DAY_TWO, FIXTURE_LINES, leasedNormalizer, records } from './support/leased-normalizer.js';
import { openSearchState } from './support/opensearch-state.js';
import type { TestNamespace } from './support/test-node.js';

describe('the cut of a cycle\'s instances in batches', () => {
  it('keeps the order and every instance once; each batch within the instance limit, and within the budget beyond its first instance', () => {
    const sized = fc.array(fc.nat({ max: 50 }), { maxLength: 60 }).map((events) => events.map((n, i) => ({ id: `i${String(i).padStart(3, '0')}`, events: n })));
    fc.assert(fc.property(sized, fc.integer({ min: 0, max: 120 }), fc.integer({ min: 1, max: 10 }), (instances, budget, limit) => {
      const batches = batchesWithinBudget(instances, budget, limit);
      expect(batches.flat()).toEqual(instances);
      for (const batch of batches) {
        expect(batch.length).toBeGreaterThanOrEqual(1);
        expect(batch.length).toBeLessThanOrEqual(limit);
        if (batch.length > 1) expect(batch.reduce((sum, i) => sum + i.events, 0)).toBeLessThanOrEqual(budget);
      }
      // greedy: a batch ends only where the next instance would break the limit or the budget
      for (let b = 0; b + 1 < batches.length; b++) {
        const batch = batches[b]!;
        const nextOne = batches[b + 1]![0]!;
        expect(batch.length === limit || batch.reduce((sum, i) => sum + i.events, 0) + nextOne.events > budget).toBe(true);
      }
    }));
  });

  it('a run longer than the budget is a batch of its own; nothing is a batch of nothing', () => {
    expect(batchesWithinBudget([{ id: 'a', events: 3 }, { id: 'long', events: 500 }, { id: 'b', events: 2 }], 10, 200).map((b) => b.map((i) => i.id))).toEqual([['a'], ['long'], ['b']]);
    expect(batchesWithinBudget([], 10, 200)).toEqual([]);
  });
});

describeOpenSearch('cycle batches on the real node', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  const FIRST = [...FIXTURE_LINES, ...generatedEventLines(30, 11)];
  const LATER = generatedEventLines(30, 12).map((l) => l.replace(/"gen-/g, '"later-'));

  async function normalize(prefix: string, budget: number | undefined): Promise<{ n: OpenSearchNormalizer; batches: number[] }> {
    const n = await leasedNormalizer(ns.client, prefix, { batchSize: 8, ...(budget === undefined ? {} : { cycleEventBudget: budget }) });
    const batches: number[] = [];
    for (const [lines, day] of [[FIRST, DAY_ONE], [LATER, DAY_TWO], [FIRST.filter((_, i) => i % 4 === 0), DAY_TWO + 1000]] as const) {
      expect((await writeEventLines(ns.client, records(lines, day), prefix)).errors).toBe(false);
      await ns.refresh();
      for (let guard = 0; ; guard++) {
        if (guard === 10) throw new Error('no quiescence in 10 cycles');
        const cycle = await n.cycle();
        if (cycle.newRawEvents === 0) break;
        batches.push(cycle.batches);
      }
    }
    return { n, batches };
  }

  it('counts each instance\'s stored events (none for a run with none)', async () => {
    const { n } = await normalize(`${ns.prefix}counts-`, undefined);
    const state = await openSearchState(ns.client, n.names);
    const ids = state.instances.map((i) => i.id);
    const counts = await storedEventCounts(ns.client, n.names.eventStore, [...ids, 'no-such-run']);
    expect(counts.get('no-such-run')).toBeUndefined();
    expect([...counts.values()].every((c) => c > 0)).toBe(true);
    expect(counts.size).toBe(ids.length);
    const all = (await ns.client.transport.request({ method: 'POST', path: `/${n.names.eventStore}/_count` })).body as { count: number };
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(all.count);
  }, 120_000);

  it('any event budget gives the documents of unbudgeted batches; a tiny one puts each instance in a batch of its own', async () => {
    const whole = await normalize(`${ns.prefix}whole-`, 1_000_000);
    const tiny = await normalize(`${ns.prefix}tiny-`, 1);
    const some = await normalize(`${ns.prefix}some-`, 40);
    const expected = await openSearchState(ns.client, whole.n.names);
    expect(expected.instances.length).toBeGreaterThan(30);
    for (const run of [tiny, some]) {
      const got = await openSearchState(ns.client, run.n.names);
      expect([got.instances, got.executions, got.ingestErrorReasons]).toEqual([expected.instances, expected.executions, expected.ingestErrorReasons]);
    }
    // unbudgeted: batches of 8 instances; tiny: one instance a batch (every generated run has several events)
    const touchedFirst = new Set(FIRST.map((l) => (JSON.parse(l) as { instanceId: string }).instanceId)).size;
    expect(whole.batches[0]).toBe(Math.ceil(touchedFirst / 8));
    expect(tiny.batches[0]).toBe(touchedFirst);
    expect(some.batches[0]).toBeGreaterThan(whole.batches[0]!);
    expect(some.batches[0]).toBeLessThan(touchedFirst);
  }, 180_000);
});
