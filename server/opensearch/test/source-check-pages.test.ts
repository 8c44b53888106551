// Checks on the stored text (src/reader/source-check.ts) on a real node. The documents a keyword query cannot decide
// are listed by id with the length of their text (no text sent), then read in batches bounded by their text: a page of
// 1,000 payloads of Fluent Bit's longest line was a quarter of a gigabyte in one response, and id order says nothing
// about sizes. A filter's lookups share one OPENSEARCH_QUERY_TIMEOUT_MS (lookup-deadline.ts). The answer is the same
// whatever the budget.
import { Client } from '@opensearch-project/opensearch';
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { QueryTimeoutError, type InstanceFilter, type SimpleInstanceFilter } from '@workflow-index/core';
import { normalizedIndexNames } from '../src/normalized-indices.js';
import { INSTANCE_FIELDS } from '../src/reader/fields.js';
import { resolveJsonFallback } from '../src/reader/json-fallback.js';
import { LookupDeadline } from '../src/reader/lookup-deadline.js';
import { createOpenSearchReader } from '../src/reader/opensearch-reader.js';
import { MATCH_ALL } from '../src/reader/query-dsl.js';
import { CHECK_LISTING, CHECK_SEARCH, checkedIds } from '../src/reader/source-check.js';
import { SearchRequests, type SearchBody, type SearchResponse, type Searcher } from '../src/reader/search-requests.js';
import { eventLines, loadNormalized } from './support/normalized-store.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

const WF = 'io.serverlessworkflow.workflow.';
const T0 = 1778577243;
const RUNS = 70;
/** A leaf longer than the keyword limit and than the listing's inline bound (16,384 units): read in batches. */
const BLOB = 20_000;
const idOf = (k: number): string => `sc-${String(k).padStart(3, '0')}`;
/** Runs whose text is four times the others', spread over the id order. */
const LONGER = new Set([5, 33, 34, 61]);
/** Runs whose text is short: it comes with the listing. */
const SHORT = new Set([1, 8, 15, 22, 29, 36, 43, 64]);
/** Runs without an input: nothing to read, decided as an absent text. */
const NO_INPUT = new Set([10, 50]);
const blobOf = (k: number): number => (LONGER.has(k) ? BLOB * 4 : SHORT.has(k) ? 500 : BLOB);

const EVENTS = Array.from({ length: RUNS }, (_, k) => [
  {
    instanceId: idOf(k), eventType: `${WF}started.v1`, timestamp: T0 + k, startTime: T0 + k, workflowName: 'check', workflowNamespace: 'ns', status: 'RUNNING',
    ...(NO_INPUT.has(k) ? {} : { input: { blob: `${k}-${'x'.repeat(blobOf(k))}`, customer: { id: k % 3 === 0 ? 'gold' : 'plain' } } }),
  },
  { instanceId: idOf(k), eventType: `${WF}completed.v1`, timestamp: T0 + 500 + k, endTime: T0 + 500 + k, status: 'COMPLETED' },
]).flat();

type Search = { kind: 'listing' | 'batch'; size: number; hits: number; chars: number; timeoutMs: number | undefined };

/**
 * Records each search of a check: a listing (ids and lengths) or a batch of texts, how many documents it asked for and
 * got, the characters of text it brought, and the timeout it was given (the node gets a generous one: a loaded machine
 * must not make a test search time out). `tick` runs after each search (a test clock).
 */
class RecordingSearcher implements Searcher {
  readonly searches: Search[] = [];
  constructor(private readonly inner: Searcher, private readonly field: string, readonly timeoutMs = 60_000, private readonly tick: () => void = () => {}) {}

  remainingMs(): number {
    return this.timeoutMs;
  }

  async search(index: string, body: SearchBody, what: string, timeoutMs?: number): Promise<SearchResponse> {
    const response = await this.inner.search(index, body, what);
    this.tick();
    if (what === CHECK_SEARCH) {
      // the texts a batch brings in `_source`, or a listing inline in its script field (a number there is a length)
      const textOf = (hit: SearchResponse['hits']['hits'][number]): unknown => hit._source[this.field] ?? hit.fields?.['text']?.[0];
      const chars = response.hits.hits.reduce((sum, hit) => sum + (typeof textOf(hit) === 'string' ? String(textOf(hit)).length : 0), 0);
      this.searches.push({ kind: body.script_fields === undefined ? 'batch' : 'listing', size: body.size, hits: response.hits.hits.length, chars, timeoutMs });
    }
    return response;
  }
}

describeOpenSearch('checks on the stored text read batches bounded by their text, within one timeout per filter', () => {
  let ns: TestNamespace;
  let requests: SearchRequests;
  let index: string;
  const gold = Array.from({ length: RUNS }, (_, k) => k).filter((k) => k % 3 === 0 && !NO_INPUT.has(k)).map(idOf);
  const isGold = (text: string | null): boolean => text !== null && (JSON.parse(text) as { customer?: { id?: string } }).customer?.id === 'gold';

  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    await loadNormalized(ns.client, ns.prefix, eventLines(EVENTS));
    requests = new SearchRequests(new Client({ node: OPENSEARCH_URL }), 30_000);
    index = normalizedIndexNames(ns.prefix).workflowInstances;
  }, 240_000);

  it('a listing sends no text; each batch brings at most the budget, or one longer text alone; the ids are those of the whole set, in id order', async () => {
    const budget = 100_000;
    const searcher = new RecordingSearcher(requests, 'input_json');
    const ids = await checkedIds(searcher, index, MATCH_ALL, 'input_json', isGold, budget);
    expect(ids).toEqual(gold);
    const listings = searcher.searches.filter((s) => s.kind === 'listing');
    const batches = searcher.searches.filter((s) => s.kind === 'batch');
    // One listing; of the texts only the short ones came with it (each about 530 units).
    expect(listings).toHaveLength(1);
    expect(listings[0]).toMatchObject({ size: CHECK_LISTING, hits: RUNS, timeoutMs: 60_000 });
    expect(listings[0]!.chars).toBeGreaterThan(SHORT.size * 500);
    expect(listings[0]!.chars).toBeLessThan(SHORT.size * 600);
    for (const batch of batches) {
      expect(batch.hits).toBe(batch.size);
      if (batch.hits > 1) expect(batch.chars).toBeLessThanOrEqual(budget);
    }
    // Every long text was read once; the short ones came with the listing, the runs without one were decided as null.
    expect(batches.reduce((sum, b) => sum + b.hits, 0)).toBe(RUNS - NO_INPUT.size - SHORT.size);
    // 100,000 units hold 4 texts of 20,000 and change but a text of 80,000 and change alone.
    expect(Math.max(...batches.map((b) => b.hits))).toBe(4);
    expect(Math.min(...batches.map((b) => b.hits))).toBe(1);
  });

  it('any budget gives the same ids, down to one text a batch; an absent text is checked as null', async () => {
    for (const budget of [1, 30_000, 250_000, 10_000_000]) {
      const searcher = new RecordingSearcher(requests, 'input_json');
      expect(await checkedIds(searcher, index, MATCH_ALL, 'input_json', isGold, budget)).toEqual(gold);
      if (budget === 1) expect(searcher.searches.filter((s) => s.kind === 'batch').every((b) => b.hits === 1)).toBe(true);
    }
    const orAbsent = await checkedIds(requests, index, MATCH_ALL, 'input_json', (text) => text === null || isGold(text));
    expect(orAbsent).toEqual([...gold, ...[...NO_INPUT].map(idOf)].sort());
  });

  it("a filter's checks share one timeout: each search gets what is left, and a check with nothing left fails as a timed-out search", async () => {
    // A test clock: each search takes 400 ms of a 1,000 ms timeout. Four conditions whose values are over the keyword
    // limit each check every served payload (a listing and its batch).
    let now = 0;
    const searcher = new RecordingSearcher(requests, 'input_json', 1_000, () => {
      now += 400;
    });
    const long = (c: string): string => c.repeat(9_000);
    const filter: SimpleInstanceFilter = { kind: 'or', nodes: ['a', 'b', 'c', 'd'].map((c) => ({ kind: 'json' as const, field: 'input' as const, path: ['customer', 'id'], value: long(c) })) };
    const failure = resolveJsonFallback(new LookupDeadline(searcher, () => now), index, filter, INSTANCE_FIELDS, MATCH_ALL);
    await expect(failure).rejects.toThrow(QueryTimeoutError);
    await expect(failure).rejects.toThrow(/was not done within 1000 ms \(OPENSEARCH_QUERY_TIMEOUT_MS bounds a filter's lookups together\)/);
    expect(searcher.searches.map((s) => s.timeoutMs)).toEqual([1_000, 600, 200]);
  });

  it('a JSON filter through the reader answers the runs whose unindexed payload matches', async () => {
    const reader = createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: ns.prefix });
    try {
      const filter: InstanceFilter = { kind: 'json', field: 'input', path: ['customer', 'id'], value: 'gold' };
      const rows = await reader.listInstances({ filter, orderBy: [{ field: 'id', direction: 'ASC' }], limit: 100, offset: 0, payloads: false });
      expect(rows.map((r) => r.id)).toEqual(gold);
    } finally {
      await reader.close();
    }
  });
});
