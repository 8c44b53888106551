// bench:query's heaviest legal request is sized from the backend's prices (Reader.workPrices) and the server's limits:
// under each backend's prices and the default limits the server accepts it (the heaviest request must be measured, not
// refused), and one row more is refused, so it is the heaviest. Priced by the server itself (core's query cost), over
// a recording reader that holds the backend's prices.
import { Client } from '@opensearch-project/opensearch';
import type { WorkPrices } from '@workflow-index/core';
import { createOpenSearchReader } from '@workflow-index/opensearch';
import { createPostgresqlReader } from '@workflow-index/postgresql';
import { codes, postGraphQL, RecordingReader, testApp, testConfig } from '@workflow-index/testkit';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { heaviestLegalRequest } from '../mix/heaviest-request.js';

/** A backend reader's prices; the reader is never asked to read (nothing connects). */
async function pricesOf(backend: 'postgresql' | 'opensearch'): Promise<WorkPrices> {
  const reader = backend === 'postgresql'
    ? createPostgresqlReader({ pool: new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' }) })
    : createOpenSearchReader({ client: new Client({ node: 'http://127.0.0.1:1' }) });
  const prices = reader.workPrices;
  await reader.close();
  return prices;
}

describe('bench:query heaviest legal request', () => {
  for (const backend of ['postgresql', 'opensearch'] as const) {
    it(`${backend}: costs at most GRAPHQL_MAX_COST and is accepted; one row more is refused`, async () => {
      const prices = await pricesOf(backend);
      const limits = testConfig().graphql;
      const heavy = heaviestLegalRequest(prices, limits);
      expect(heavy.cost).toBeLessThanOrEqual(limits.maxCost);
      expect(heavy.cost).toBe(limits.maxCost);
      expect(heavy.aliases.length).toBeLessThanOrEqual(limits.maxAliases);
      expect(heavy.aliases.every((a) => a.limit > 0 && a.limit <= limits.maxLimit)).toBe(true);

      const reader = new RecordingReader({ workPrices: prices });
      const accepted = await postGraphQL(testApp({ reader }).app, heavy.query);
      expect(accepted.body.errors).toBeUndefined();
      expect(reader.calls.map((c) => (c.method === 'listInstances' ? c.query.limit : c.method))).toEqual(heavy.aliases.map((a) => a.limit));

      const over = heaviestLegalRequest(prices, { ...limits, maxCost: limits.maxCost + 1 });
      const refusing = new RecordingReader({ workPrices: prices });
      const refused = await postGraphQL(testApp({ reader: refusing }).app, over.query);
      expect(codes(refused.body)).toEqual(['BAD_USER_INPUT']);
      expect(refused.body.errors?.[0]?.message).toContain(`Query cost ${limits.maxCost + 1} exceeds the budget of ${limits.maxCost} rows`);
      expect(refusing.calls).toEqual([]);
    });
  }

  it('fewer aliases than the budget holds when GRAPHQL_MAX_ALIASES is lower; refused sizes are named', () => {
    const prices = { statement: 25, condition: 1, inValue: 0.3, pattern: 140, jsonLookup: 27, jsonTest: 3800, jsonInValue: 1.1, relation: 140 };
    const capped = heaviestLegalRequest(prices, { maxCost: 20_000, maxLimit: 1000, maxAliases: 5 });
    expect(capped.aliases.map((a) => a.limit)).toEqual([1000, 1000, 1000, 1000, 1000]);
    expect(capped.cost).toBe(5 * 1026);
    expect(heaviestLegalRequest(prices, { maxCost: 1000, maxLimit: 1000, maxAliases: 30 }).aliases.map((a) => a.limit)).toEqual([974]);
    expect(() => heaviestLegalRequest(prices, { maxCost: 26, maxLimit: 1000, maxAliases: 30 })).toThrow('no request fits GRAPHQL_MAX_COST 26');
  });
});
