// A list whose filter needs a lookup that almost always finds nothing, in one round trip. The checks on the stored
// text (source-check.ts: JSON filters on capped or unindexed payloads, json-fallback.ts and lookups/; long error
// details, long-detail-filter.ts) each read the documents the keyword fields cannot decide, which are rare. The
// filter is first translated with every check answered "no such document" (DryRun); the checks' first searches, as
// "is there one?", and the page with that query go together in one _msearch. When no check matches a document, that
// translation is the filter's own (a check's answer is a function of the documents it reads) and the page is the
// answer. When one does, the filter is translated again with the checks read and the page searched again: the extra
// round trips are paid only then. A filter with another lookup (a taskExecutions condition, which always reads
// something) is translated once, with its lookups, as before; a page of more than one search too (pagedSearch).
import { LookupDeadline } from './lookup-deadline.js';
import { CHECK_SEARCH } from './source-check.js';
import { type PageRequest, pagedSearch, singleSearchBody } from './paged-search.js';
import type { Query } from './query-dsl.js';
import type { Searcher, SearchBody, SearchHit, SearchRequests, SearchResponse } from './search-requests.js';

class NotSpeculative extends Error {}
/** One instance for every refusal: a list with a taskExecutions condition meets it on each request (no stack each time). */
const NOT_SPECULATIVE = new NotSpeculative('a lookup that is not a check on the stored text');

/** Answers every check on the stored text with no document and records it; refuses any other lookup. */
class DryRun implements Searcher {
  readonly checks: { index: string; query: SearchBody['query'] }[] = [];
  readonly timeoutMs = Number.POSITIVE_INFINITY;
  remainingMs(): number {
    return Number.POSITIVE_INFINITY;
  }

  search(index: string, body: SearchBody, what: string): Promise<SearchResponse> {
    if (what !== CHECK_SEARCH) return Promise.reject(NOT_SPECULATIVE);
    this.checks.push({ index, query: body.query });
    return Promise.resolve({ hits: { hits: [] } });
  }
}

/** The page of `page` under the filter `translate` writes with a searcher's lookups (see above). */
export async function speculativePage(
  requests: SearchRequests,
  window: number,
  translate: (searcher: Searcher) => Promise<Query>,
  page: Omit<PageRequest, 'base'>,
): Promise<SearchHit[]> {
  const dry = new DryRun();
  let base: Query | undefined;
  try {
    base = await translate(dry);
  } catch (error) {
    if (error !== NOT_SPECULATIVE) throw error;
  }
  if (base !== undefined) {
    // No lookup at all: the translation is the filter's.
    if (dry.checks.length === 0) return pagedSearch(requests, window, { ...page, base });
    const body = singleSearchBody(window, { ...page, base });
    if (body !== null) {
      const checks = dry.checks.map(({ index, query }) => ({ index, body: { query, size: 1, _source: false as const } }));
      const responses = await requests.msearch([...checks, { index: page.index, body }], page.what);
      if (responses.slice(0, -1).every((r) => r.hits.hits.length === 0)) return [...responses[responses.length - 1]!.hits.hits];
    }
  }
  return pagedSearch(requests, window, { ...page, base: await translate(new LookupDeadline(requests)) });
}
