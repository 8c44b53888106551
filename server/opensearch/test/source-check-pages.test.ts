// Checks on the stored text (src/reader/source-check.ts) on a real node: the documents a keyword query cannot decide
// are read in pages sized by the text they bring. A page of 1,000 payloads of Fluent Bit's longest line was a quarter
// of a gigabyte in one response; now the first page holds FIRST_CHECK_PAGE documents and each next one what the
// character budget allows at the longest text seen. The answer is the same whatever the budget.
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackendUnavailableError, type ExtendedInstanceFilter } from '@workflow-index/core/reader';
import { normalizedIndexNames } from '../src/normalized-indices.js';
import { createOpenSearchReader } from '../src/reader/opensearch-reader.js';
import { MATCH_ALL } from '../src/reader/query-dsl.js';
import { CHECK_SEARCH, checkedIds, FIRST_CHECK_PAGE } from '../src/reader/source-check.js';
import { SearchRequests, type SearchBody, type SearchResponse, type Searcher } from '../src/reader/search-requests.js';
import { eventLines, loadNormalized } from './support/normalized-store.js';
import { createTestNamespace, OPENSEARCH_URL, openSearchReachable, type TestNamespace } from './support/test-node.js';

const available = await openSearchReachable();

const WF = 'io.serverlessworkflow.workflow.';
const T0 = 1778577243;
const RUNS = 70;
/** A leaf longer than the keyword limit: the payload is marked incomplete, so JSON filters check its text. */
const BLOB = 12_000;
const idOf = (k: number): string => `sc-${String(k).padStart(3, '0')}`;
/** Runs whose text is longer than the others: the page after them must shrink. */
const LONGER = new Set([5, 40]);

const EVENTS = Array.from({ length: RUNS }, (_, k) => [
  {
    instanceId: idOf(k), eventType: `${WF}started.v1`, timestamp: T0 + k, startTime: T0 + k, workflowName: 'check', workflowNamespace: 'ns', status: 'RUNNING',
    input: { blob: `${k}-${'x'.repeat(LONGER.has(k) ? BLOB * 4 : BLOB)}`, customer: { id: k % 3 === 0 ? 'gold' : 'plain' } },
  },
  { instanceId: idOf(k), eventType: `${WF}completed.v1`, timestamp: T0 + 500 + k, endTime: T0 + 500 + k, status: 'COMPLETED' },
]).flat();

/**
 * Records each check page: how many documents it asked for, how many it got, the characters of their text and the
 * timeout it was given. `pauseMs` holds each answer back (a check that takes longer than its timeout).
 */
class RecordingSearcher implements Searcher {
  readonly pages: { size: number; hits: number; chars: number; longest: number; timeoutMs: number | undefined }[] = [];
  constructor(private readonly inner: Searcher, private readonly field: string, readonly timeoutMs = 60_000, private readonly pauseMs = 0) {}

  async search(index: string, body: SearchBody, what: string, timeoutMs?: number): Promise<SearchResponse> {
    const response = await this.inner.search(index, body, what, timeoutMs);
    if (this.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    if (what === CHECK_SEARCH) {
      const lengths = response.hits.hits.map((hit) => String(hit._source[this.field] ?? '').length);
      this.pages.push({ size: Number(body.size), hits: lengths.length, chars: lengths.reduce((a, b) => a + b, 0), longest: Math.max(1, ...lengths), timeoutMs });
    }
    return response;
  }
}

describe.skipIf(!available)('checks on the stored text read pages bounded by their text', () => {
  let ns: TestNamespace;
  let requests: SearchRequests;
  let index: string;
  const gold = Array.from({ length: RUNS }, (_, k) => k).filter((k) => k % 3 === 0).map(idOf);
  const isGold = (text: string | null): boolean => text !== null && (JSON.parse(text) as { customer?: { id?: string } }).customer?.id === 'gold';

  beforeAll(async () => {
    ns = createTestNamespace();
    await loadNormalized(ns.client, ns.prefix, eventLines(EVENTS));
    requests = new SearchRequests(new Client({ node: OPENSEARCH_URL }), 30_000);
    index = normalizedIndexNames(ns.prefix).workflowInstances;
  }, 240_000);

  afterAll(async () => {
    await ns?.drop();
  });

  it('the first page holds FIRST_CHECK_PAGE documents, each next one at most the budget at the longest text seen; the ids are those of the whole set', async () => {
    const budget = 100_000;
    const searcher = new RecordingSearcher(requests, 'input_json');
    const ids = await checkedIds(searcher, index, MATCH_ALL, 'input_json', isGold, budget);
    expect(ids).toEqual(gold);
    const [first, ...rest] = searcher.pages;
    expect(first).toMatchObject({ size: FIRST_CHECK_PAGE, hits: FIRST_CHECK_PAGE });
    expect(rest.length).toBeGreaterThan(0);
    for (const page of rest) {
      expect(page.hits).toBeLessThanOrEqual(page.size);
      expect(page.chars).toBeLessThanOrEqual(budget);
    }
    // Every run was read once: the pages follow one another by id.
    expect(searcher.pages.reduce((sum, p) => sum + p.hits, 0)).toBe(RUNS);
    // Each page holds what the budget allows at the longest text of the pages before it: after the first long text
    // (run 5, in the first page) pages shrink, and they never grow back past it.
    let longest = 1;
    searcher.pages.forEach((page, i) => {
      if (i > 0) expect(page.size).toBe(Math.max(1, Math.floor(budget / longest)));
      longest = Math.max(longest, page.longest);
    });
    expect(longest).toBeGreaterThan(BLOB * 4);
  });

  it('any budget gives the same ids, down to one document a page', async () => {
    for (const budget of [1, 30_000, 250_000, 10_000_000]) {
      const searcher = new RecordingSearcher(requests, 'input_json');
      expect(await checkedIds(searcher, index, MATCH_ALL, 'input_json', isGold, budget)).toEqual(gold);
      if (budget === 1) expect(searcher.pages.slice(1).every((p) => p.size === 1)).toBe(true);
    }
  });

  it('a check is bounded in all by the query timeout: later pages search within what is left, and one past it fails as a timed-out search', async () => {
    const generous = new RecordingSearcher(requests, 'input_json', 60_000);
    expect(await checkedIds(generous, index, MATCH_ALL, 'input_json', isGold, 100_000)).toEqual(gold);
    expect(generous.pages[0]!.timeoutMs).toBeUndefined();
    for (const page of generous.pages.slice(1)) expect(page.timeoutMs).toBeLessThanOrEqual(60_000);
    // Each answer held back 20 ms against a timeout of 1 ms: the first page is read (it has its own search timeout),
    // the second is not searched.
    const slow = new RecordingSearcher(requests, 'input_json', 1, 20);
    const failure = checkedIds(slow, index, MATCH_ALL, 'input_json', isGold, 100_000);
    await expect(failure).rejects.toThrow(BackendUnavailableError);
    await expect(failure).rejects.toThrow(`read ${FIRST_CHECK_PAGE} documents and was not done after 1 ms (OPENSEARCH_QUERY_TIMEOUT_MS`);
    expect(slow.pages).toHaveLength(1);
  });

  it('a JSON filter through the reader answers the runs whose unindexed payload matches', async () => {
    const reader = createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix: ns.prefix });
    try {
      const filter: ExtendedInstanceFilter = { kind: 'json', field: 'input', path: ['customer', 'id'], value: 'gold' };
      const rows = await reader.listInstances({ filter, orderBy: [{ field: 'id', direction: 'ASC' }], limit: 100, offset: 0, payloads: false });
      expect(rows.map((r) => r.id)).toEqual(gold);
    } finally {
      await reader.close();
    }
  });
});
