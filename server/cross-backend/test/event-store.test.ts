// The event store makes the raw indices an inbox: the normalizer recomputes instances from the stored events, so
// deleting every raw index after each cycle (what retention does to processed indices) gives exactly PostgreSQL's
// documents, including for late events of instances whose raw events are gone; and a re-delivery of everything (other
// record times, other daily indices) adds no stored event.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { TestDatabase } from '@workflow-index/postgresql/testing';
import { crossTest as it, describeBoth } from './support/fixtures.js';
import { FIXTURE_PATH, withRecordTimes } from '@workflow-index/testkit';
import { loopStream } from '@workflow-index/testkit';
import { randomInt, seededRandom, shuffled } from '@workflow-index/testkit';
import { writeEventLines } from '@workflow-index/opensearch';
import { rawIndices } from '@workflow-index/opensearch';
import type { TestNamespace } from '@workflow-index/opensearch/testing';
import { leasedNormalizer } from '@workflow-index/opensearch/testing';
import { openSearchState } from '@workflow-index/opensearch/testing';
import type { ComparableState } from '@workflow-index/opensearch/testing';
import { type Delivery, postgresqlState, writeToPostgreSQL } from './support/postgresql-twin.js';

const DAY = 86_400_000;
const RECORD_TIME = Date.UTC(2026, 4, 12, 9, 14, 3);
const reference = readFileSync(FIXTURE_PATH, 'utf8').split('\n').filter((l) => l.trim() !== '');
const T = '1.7785772435E9';
const BAD_LINES = [
  `{"instanceId":"only-bad-events","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${T}}`,
  `{"instanceId":"a:b","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":"do/0/a"}`,
];
const good = [...reference, ...loopStream({ seed: 5, format: 'epoch-millis', items: 30, instances: 1, chains: true }).lines];

async function count(ns: TestNamespace, index: string): Promise<number> {
  await ns.refresh();
  const response = await ns.client.transport.request({ method: 'POST', path: `/${index}/_count`, querystring: { allow_no_indices: 'true', ignore_unavailable: 'true' } });
  return (response.body as { count: number }).count;
}

async function deleteRawIndices(ns: TestNamespace, prefix: string): Promise<void> {
  await ns.client.transport.request({ method: 'DELETE', path: `/${rawIndices(prefix)}`, querystring: { allow_no_indices: 'true', ignore_unavailable: 'true' } });
}

describeBoth('OpenSearch event store', () => {
  let ns: TestNamespace;
  let db: TestDatabase;
  let expected: ComparableState;
  it.beforeAll(async ({ namespace, database }) => {
    ns = namespace;
    db = database;
    await writeToPostgreSQL(db, withRecordTimes([...good, ...BAD_LINES], RECORD_TIME));
    expected = await postgresqlState(db);
  });

  let run = 0;
  it('raw indices deleted after every cycle: late events and re-deliveries still give PostgreSQL\'s documents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const random = seededRandom(seed);
        const prefix = `${ns.prefix}r${run++}-`;
        const once: Delivery[] = withRecordTimes([...good, ...BAD_LINES], RECORD_TIME);
        const again: Delivery[] = good.filter(() => random() < 0.3).map((line) => ({ line, recordTimeMs: RECORD_TIME + randomInt(random, 1, 40) * DAY + randomInt(random, 0, 999) }));
        const all = shuffled([...once, ...again], random);
        const flushes = randomInt(random, 2, 5);
        const normalizer = await leasedNormalizer(ns.client, prefix);
        const size = Math.ceil(all.length / flushes);
        for (let i = 0; i < all.length; i += size) {
          await writeEventLines(ns.client, all.slice(i, i + size), prefix);
          await ns.refresh();
          await normalizer.cycle();
          await deleteRawIndices(ns, prefix);
        }
        expect(await count(ns, rawIndices(prefix))).toBe(0);
        const actual = await openSearchState(ns.client, normalizer.names);
        expect(actual.instances).toEqual(expected.instances);
        expect(actual.executions).toEqual(expected.executions);
        expect(actual.ingestErrorReasons).toEqual(expected.ingestErrorReasons);
      }),
      { numRuns: 3 },
    );
  }, 600_000);

  it('a cycle right after another counts what that one stored, though nothing was refreshed in between', async () => {
    const oneGo = `${ns.prefix}onego-`;
    const split = `${ns.prefix}split-`;
    const reference = await leasedNormalizer(ns.client, oneGo);
    // production settings: no forced refresh; the event store and executions refresh only when asked to
    const normalizer = await leasedNormalizer(ns.client, split, { refresh: false });
    await ns.client.transport.request({ method: 'PUT', path: `/${normalizer.names.eventStore},${normalizer.names.taskExecutions}/_settings`, body: { index: { refresh_interval: '-1' } } });
    const deliveries = withRecordTimes(good, RECORD_TIME);
    await writeEventLines(ns.client, deliveries, oneGo);
    await ns.refresh();
    await reference.cycle();
    // every instance's events in three parts, each normalized by its own cycle
    for (let part = 0; part < 3; part++) {
      await writeEventLines(ns.client, deliveries.filter((_, i) => i % 3 === part), split);
      await ns.client.transport.request({ method: 'POST', path: `/${rawIndices(split)}/_refresh` });
      await normalizer.cycle();
    }
    expect(await openSearchState(ns.client, normalizer.names)).toEqual(await openSearchState(ns.client, reference.names));
  }, 120_000);

  it('stores each event identity once: re-delivering everything with other record times adds nothing', async () => {
    const prefix = `${ns.prefix}once-`;
    const normalizer = await leasedNormalizer(ns.client, prefix);
    await writeEventLines(ns.client, withRecordTimes(good, RECORD_TIME), prefix);
    await ns.refresh();
    await normalizer.cycle();
    const stored = await count(ns, normalizer.names.eventStore);
    // byte-identical lines are one event (write-path.md), so the store can hold fewer documents than lines
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThanOrEqual(good.length);
    const before = await openSearchState(ns.client, normalizer.names);
    await writeEventLines(ns.client, withRecordTimes(good, RECORD_TIME + 3 * DAY), prefix);
    await ns.refresh();
    const cycle = await normalizer.cycle();
    expect(cycle.newRawEvents).toBe(good.length);
    expect(await count(ns, normalizer.names.eventStore)).toBe(stored);
    expect(await count(ns, rawIndices(prefix))).toBe(2 * good.length);
    expect(await openSearchState(ns.client, normalizer.names)).toEqual(before);
  }, 120_000);
});
