// Whatever the delivery, the normalized documents are the ones PostgreSQL gives for one clean delivery of the same
// events: any arrival order, any split into flushes with normalization cycles in between (late events for instances
// normalized long ago), re-deliveries with another record time (another `@timestamp`, another daily index, another
// generated id), exact re-sends (409s), and bad events beside good ones (each recorded once per raw document).
import fc from 'fast-check';
import { expect } from 'vitest';
import type { TestDatabase } from '@workflow-index/postgresql/testing';
import { crossTest as it, describeBoth } from './support/fixtures.js';
import { randomInt, seededRandom } from '@workflow-index/testkit';
import { writeEventLines } from '@workflow-index/opensearch';
import type { TestNamespace } from '@workflow-index/opensearch/testing';
import { leasedNormalizer } from '@workflow-index/opensearch/testing';
import { openSearchState } from '@workflow-index/opensearch/testing';
import type { ComparableState } from '@workflow-index/opensearch/testing';
import { BAD_LINES, cleanDelivery, messyDelivery } from './support/generated-deliveries.js';
import { postgresqlState, writeToPostgreSQL } from './support/postgresql-twin.js';

describeBoth('OpenSearch normalizer: delivery-proof', () => {
  let ns: TestNamespace;
  let db: TestDatabase;
  let expected: ComparableState;
  it.beforeAll(async ({ namespace, database }) => {
    ns = namespace;
    db = database;
    await writeToPostgreSQL(db, cleanDelivery());
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
        const all = messyDelivery(random);
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
