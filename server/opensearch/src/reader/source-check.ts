// The documents a keyword query cannot decide are read and checked on their `_source` text, with PostgreSQL's rule:
// capped or unindexed JSON leaves (json-fallback.ts), the JSON operators' undecided payloads (extended/), a string
// beyond the keyword limit (long-detail-filter.ts). They are read in pages by id, and the filter then matches the ids
// that passed, besides what its keyword query matches.
import { BackendUnavailableError } from '@workflow-index/core/reader';
import { type Query, and, MAX_TERMS_COUNT, or, terms } from './query-dsl.js';
import type { Searcher } from './search-requests.js';

/**
 * Pages of a check are sized by the text they bring, not only by their documents: a page of 1,000 payloads of
 * 256 kB (Fluent Bit's longest line) was a quarter of a gigabyte in one response. The first page holds
 * FIRST_CHECK_PAGE documents; each next one as many as CHECK_PAGE_CHARS allows at the longest text seen so far
 * (at least 1, at most MAX_CHECK_PAGE).
 */
export const FIRST_CHECK_PAGE = 32;
export const MAX_CHECK_PAGE = 1000;
/** UTF-16 units of stored text one page of a check may bring (about 4 MiB in the heap), after its first page. */
export const CHECK_PAGE_CHARS = 2 * 1024 * 1024;
/** The `what` of a check's searches: speculative-page.ts knows them by it. */
export const CHECK_SEARCH = 'filter check on the stored text';

/**
 * The ids of the documents of `query` whose `_source` field `field` passes `matches` (null: the field is absent).
 * A check is one lookup, bounded in all by the searcher's timeout (OPENSEARCH_QUERY_TIMEOUT_MS), as a statement is by
 * PostgreSQL's statement_timeout: the pages after the first search within what is left of it, and a check still
 * reading after it fails as a timed-out search does (BackendUnavailableError, SERVICE_UNAVAILABLE). Unbounded, a filter
 * value over the keyword limit read every served payload, a search per page, for as long as that took.
 */
export async function checkedIds(
  requests: Searcher,
  index: string,
  query: Query,
  field: string,
  matches: (text: string | null) => boolean,
  pageChars = CHECK_PAGE_CHARS,
): Promise<string[]> {
  const ids: string[] = [];
  let lastId: string | null = null;
  let size = FIRST_CHECK_PAGE;
  let longest = 1;
  let read = 0;
  const started = Date.now();
  for (;;) {
    const page = lastId === null ? query : and([query, { range: { id: { gt: lastId } } }]);
    let timeoutMs: number | undefined;
    if (lastId !== null) {
      timeoutMs = requests.timeoutMs - (Date.now() - started);
      if (timeoutMs <= 0) {
        throw new BackendUnavailableError(`a filter's check of the stored text read ${read} documents and was not done after ${requests.timeoutMs} ms (OPENSEARCH_QUERY_TIMEOUT_MS bounds such a check in all): narrow the filter`);
      }
    }
    const response = await requests.search(index, { query: page, size, sort: [{ id: { order: 'asc' } }], _source: ['id', field] }, CHECK_SEARCH, timeoutMs);
    const hits = response.hits.hits;
    read += hits.length;
    for (const hit of hits) {
      const text = sourceAt(hit._source, field);
      if (typeof text === 'string' && text.length > longest) longest = text.length;
      if (matches(typeof text === 'string' ? text : null)) ids.push(String(hit._source['id']));
    }
    if (hits.length < size) return ids;
    lastId = String(hits[hits.length - 1]!._source['id']);
    size = Math.max(1, Math.min(MAX_CHECK_PAGE, Math.floor(pageChars / longest)));
  }
}

/** A dotted `_source` path (`error.detail`). */
function sourceAt(source: Readonly<Record<string, unknown>>, field: string): unknown {
  let v: unknown = source;
  for (const key of field.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** The documents with one of the ids, in terms queries of at most index.max_terms_count ids each. */
export function idsQuery(ids: readonly string[]): Query {
  const chunks: Query[] = [];
  for (let i = 0; i < ids.length; i += MAX_TERMS_COUNT) chunks.push(terms('id', ids.slice(i, i + MAX_TERMS_COUNT)));
  return or(chunks);
}
