// The documents a keyword query cannot decide are read and checked on their `_source` text, with PostgreSQL's rule:
// capped or unindexed JSON leaves (json-fallback.ts), the JSON operators' undecided payloads (lookups/), a string
// beyond the keyword limit (long-detail-filter.ts). They are read in pages by id, and the filter then matches the ids
// that passed, besides what its keyword query matches.
import { QueryTimeoutError } from '@workflow-index/core';
import { type Query, and, MAX_TERMS_COUNT, or, terms } from './query-dsl.js';
import type { Searcher, SearchHit } from './search-requests.js';

/**
 * A check lists its documents by id, CHECK_LISTING at a time, each with its text when that is at most
 * CHECK_LISTING_CHARS / CHECK_LISTING = 16,384 UTF-16 units long and its length otherwise (a script field), then
 * reads the longer texts in batches of at most CHECK_BATCH_CHARS units (a longer text alone): every response holds
 * at most about 8 MiB of text in the heap. Id order says nothing about sizes: a page of 1,000 payloads of 256 kB
 * (Fluent Bit's longest line) was a quarter of a gigabyte in one response. The documents checked are mostly the
 * ones with a text over the keyword limit (8,191 units), so the listing's inline bound is twice that.
 */
export const CHECK_LISTING = 256;
export const CHECK_LISTING_CHARS = 4 * 1024 * 1024;
/** About 8 MiB of heap. */
export const CHECK_BATCH_CHARS = 4 * 1024 * 1024;
/** The `what` of a check's searches: speculative-page.ts knows them by it. */
export const CHECK_SEARCH = 'filter check on the stored text';

/**
 * The `_source` string at params.path: itself when at most params.inline units long, else its length; null when there
 * is none (absent, null, not a string).
 */
const TEXT_OR_LENGTH = `def v = params['_source'];
for (def key : params.path) { if (!(v instanceof Map)) { return null; } v = v.get(key); }
if (!(v instanceof String)) { return null; }
String s = (String) v;
return s.length() <= params.inline ? s : s.length();`;

/**
 * The ids of the documents of `query` whose `_source` field `field` passes `matches` (null: the field is absent).
 * Every search takes what is left of the searcher's time (`remainingMs`: a filter's lookups share one
 * OPENSEARCH_QUERY_TIMEOUT_MS, lookup-deadline.ts, as a PostgreSQL statement its statement_timeout); a check with
 * none left fails as a timed-out search does (QueryTimeoutError, QUERY_TIMEOUT).
 */
export async function checkedIds(
  requests: Searcher,
  index: string,
  query: Query,
  field: string,
  matches: (text: string | null) => boolean,
  batchChars = CHECK_BATCH_CHARS,
): Promise<string[]> {
  const ids: string[] = [];
  let read = 0;
  const search = (body: Parameters<Searcher['search']>[1]): Promise<SearchHit[]> => {
    const left = requests.remainingMs();
    if (left <= 0) {
      throw new QueryTimeoutError(`a filter's check of the stored text read ${read} documents and was not done within ${requests.timeoutMs} ms (OPENSEARCH_QUERY_TIMEOUT_MS bounds a filter's lookups together): narrow the filter`, { ms: requests.timeoutMs, setting: 'OPENSEARCH_QUERY_TIMEOUT_MS' });
    }
    return requests.search(index, body, CHECK_SEARCH, Math.min(left, requests.timeoutMs)).then((r) => [...r.hits.hits]);
  };
  const path = field.split('.');
  let lastId: string | null = null;
  for (;;) {
    const page = lastId === null ? query : and([query, { range: { id: { gt: lastId } } }]);
    const listed = await search({
      query: page, size: CHECK_LISTING, sort: [{ id: { order: 'asc' } }], _source: ['id'],
      script_fields: { text: { script: { lang: 'painless', source: TEXT_OR_LENGTH, params: { path, inline: Math.floor(CHECK_LISTING_CHARS / CHECK_LISTING) } } } },
    });
    let batch: string[] = [];
    let chars = 0;
    const readBatch = async (): Promise<void> => {
      if (batch.length === 0) return;
      const hits = await search({ query: and([query, terms('id', batch)]), size: batch.length, _source: ['id', field] });
      const passed = new Set<string>();
      for (const hit of hits) {
        const text = sourceAt(hit._source, field);
        if (matches(typeof text === 'string' ? text : null)) passed.add(String(hit._source['id']));
      }
      for (const id of batch) if (passed.has(id)) ids.push(id); // in id order, as listed
      read += hits.length;
      batch = [];
      chars = 0;
    };
    for (const hit of listed) {
      const id = String(hit._source['id']);
      const value = hit.fields?.['text']?.[0] ?? null;
      if (typeof value !== 'number') {
        // the text itself, or none: decided now (after the batch before it, to keep the id order)
        await readBatch();
        read += 1;
        if (matches(typeof value === 'string' ? value : null)) ids.push(id);
        continue;
      }
      const length = value;
      if (batch.length > 0 && chars + length > batchChars) await readBatch();
      batch.push(id);
      chars += length;
    }
    await readBatch();
    if (listed.length < CHECK_LISTING) return ids;
    lastId = String(listed[listed.length - 1]!._source['id']);
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
