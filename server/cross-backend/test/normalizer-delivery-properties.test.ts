// Whatever the delivery, the normalized documents are the ones PostgreSQL gives for one clean delivery of the same
// events: any arrival order, any split into flushes with normalization cycles in between (late events for instances
// normalized long ago), re-deliveries with another record time (another `@timestamp`, another daily index, another
// generated id), exact re-sends (409s), and bad events beside good ones (each recorded once per raw document).
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { TestDatabase } from '@workflow-index/postgresql/testing';
import { crossTest as it, describeBoth } from './support/fixtures.js';
import { FIXTURE_PATH, withRecordTimes } from '@workflow-index/testkit';
import { loopStream } from '@workflow-index/testkit';
import { randomInt, seededRandom, shuffled } from '@workflow-index/testkit';
import { writeEventLines } from '@workflow-index/opensearch';
import type { TestNamespace } from '@workflow-index/opensearch/testing';
import { leasedNormalizer } from '@workflow-index/opensearch/testing';
import { openSearchState } from '@workflow-index/opensearch/testing';
import type { ComparableState } from '@workflow-index/opensearch/testing';
import { type Delivery, postgresqlState, writeToPostgreSQL } from './support/postgresql-twin.js';

const DAY = 86_400_000;
const RECORD_TIME = Date.UTC(2026, 4, 12, 9, 14, 3);
const reference = readFileSync(FIXTURE_PATH, 'utf8').split('\n').filter((l) => l.trim() !== '');
const known = (JSON.parse(reference[0]!) as { instanceId: string }).instanceId;
const T = '1.7785772435E9';
const BAD_LINES = [
  `{"eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":"do/0/x"}`,
  `{"instanceId":{"nested":true},"eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${T}}`,
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":"yesterday","taskPosition":"do/0/validateOrder"}`,
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.workflow.exploded.v1","timestamp":${T}}`,
  `{"instanceId":"only-bad-events","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${T}}`,
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.workflow.faulted.v1","timestamp":${T},"error":{"status":"five hundred"}}`,
  `{"instanceId":"${known}","eventType":"io.serverlessworkflow.workflow.status-changed.v1","timestamp":"2026-02-30T10:00:00Z","status":"RUNNING"}`,
  `{"instanceId":"a:b","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":"do/0/a"}`,
];
// An instance known only from task events: stored as a placeholder, its executions flagged, never served.
const placeholderOnly = [
  `{"instanceId":"placeholder-only","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${T},"taskPosition":"do/0/wait"}`,
  `{"instanceId":"placeholder-only","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":1.7785772436E9,"taskPosition":"do/0/wait"}`,
];
const good = [...placeholderOnly, ...reference, ...loopStream({ seed: 11, format: 'epoch-millis', items: 40, instances: 1, chains: true }).lines];

describeBoth('OpenSearch normalizer: delivery-proof', () => {
  let ns: TestNamespace;
  let db: TestDatabase;
  let expected: ComparableState;
  it.beforeAll(async ({ namespace, database }) => {
    ns = namespace;
    db = database;
    await writeToPostgreSQL(db, withRecordTimes([...good, ...BAD_LINES], RECORD_TIME));
    expected = await postgresqlState(db);
  });

  it('PostgreSQL rejects every bad line (the reference the property compares with)', () => {
    expect(expected.ingestErrors).toBe(BAD_LINES.length);
    expect(expected.instances.some((i) => i.id === 'only-bad-events')).toBe(false);
    expect(expected.instances.find((i) => i.id === 'placeholder-only')?.placeholder).toBe(true);
    expect(expected.executions.filter((e) => e.placeholder).map((e) => e.id)).toEqual(['placeholder-only:do/0/wait']);
  });

  let run = 0;
  it('any order, flush split, re-delivery and bad events give PostgreSQL\'s documents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const random = seededRandom(seed);
        const prefix = `${ns.prefix}r${run++}-`;
        const once: Delivery[] = withRecordTimes([...good, ...BAD_LINES], RECORD_TIME);
        const again: Delivery[] = good.filter(() => random() < 0.3).map((line) => ({ line, recordTimeMs: RECORD_TIME + randomInt(random, 1, 40) * DAY + randomInt(random, 0, 999) }));
        const resent = once.filter(() => random() < 0.1);
        const all = shuffled([...once, ...again, ...resent], random);
        const flushes = randomInt(random, 1, 4);
        const normalizer = await leasedNormalizer(ns.client, prefix);
        const size = Math.ceil(all.length / flushes);
        for (let i = 0; i < all.length; i += size) {
          const result = await writeEventLines(ns.client, all.slice(i, i + size), prefix);
          expect(result.items.filter((item) => item.status !== 201 && item.status !== 409)).toEqual([]);
          await ns.refresh();
          await normalizer.cycle();
        }
        const actual = await openSearchState(ns.client, normalizer.names);
        expect(actual.instances).toEqual(expected.instances);
        expect(actual.executions).toEqual(expected.executions);
        // one error document per raw document of a bad line (a bad line sent twice with one record time is one document)
        expect(actual.ingestErrors).toBe(expected.ingestErrors);
        expect(actual.ingestErrorReasons).toEqual(expected.ingestErrorReasons);
      }),
      { numRuns: 4 },
    );
  }, 600_000);
});
