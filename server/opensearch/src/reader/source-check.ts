// The documents a keyword query cannot decide are read and checked on their `_source` text, with PostgreSQL's rule:
// capped or unindexed JSON leaves (json-fallback.ts), the JSON operators' undecided payloads (extended/), a string
// beyond the keyword limit (long-detail-filter.ts). They are read in pages by id, and the filter then matches the ids
// that passed, besides what its keyword query matches.
import { type Query, and, MAX_TERMS_COUNT, or, terms } from './query-dsl.js';
import type { Searcher } from './search-requests.js';

const PAGE = 1000;
/** The `what` of a check's searches: speculative-page.ts knows them by it. */
export const CHECK_SEARCH = 'filter check on the stored text';

/** The ids of the documents of `query` whose `_source` field `field` passes `matches` (null: the field is absent). */
export async function checkedIds(
  requests: Searcher,
  index: string,
  query: Query,
  field: string,
  matches: (text: string | null) => boolean,
): Promise<string[]> {
  const ids: string[] = [];
  let lastId: string | null = null;
  for (;;) {
    const page = lastId === null ? query : and([query, { range: { id: { gt: lastId } } }]);
    const response = await requests.search(index, { query: page, size: PAGE, sort: [{ id: { order: 'asc' } }], _source: ['id', field] }, CHECK_SEARCH);
    const hits = response.hits.hits;
    for (const hit of hits) {
      const text = sourceAt(hit._source, field);
      if (matches(typeof text === 'string' ? text : null)) ids.push(String(hit._source['id']));
    }
    if (hits.length < PAGE) return ids;
    lastId = String(hits[hits.length - 1]!._source['id']);
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
