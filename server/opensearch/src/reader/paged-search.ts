// One page of a list query in a sort order, after a keyset position and an offset (every list query
// shares it). Deep offsets: OpenSearch answers `from + size` only up to the index's max_result_window
// (10,000). Beyond it the page is walked there: each skipped window is one search fetching only its last row's sort
// values (from = skip − 1, size 1, no _source), the position the next window continues after (keyset.ts). The answer
// is the same as a plain offset; its cost grows with the offset, as PostgreSQL's OFFSET does.
//
// After a position whose first key is a time: OpenSearch visits the candidate rows in index order, which is about the
// order runs were written, oldest first, so the page after a position near the newest end, newest first, reads nearly
// every row older than it (the sort's pruning only helps when the rows arrive in the sort's order); oldest first, the
// page after a position in the middle of 1,000,000 runs took 50-60 ms with search_after alone. The page is therefore
// searched in a time window beside the position first, [position − span, position] newest first and [position,
// position + span] oldest first: when the window fills the page, those are its rows (every row outside it, nulls
// included, sorts after every row inside), else the span grows (by the density the window showed, at least twice,
// sixteen-fold when it found nothing) up to a century, then the search is unbounded. The span that filled the last
// page of an index, key and direction is where the next one starts (PositionSpans).
import { afterDsl, positionOf, positionOfSort, type PositionValues, searchAfterValues } from './keyset.js';
import { micros } from './filter-dsl.js';
import { type Query, and, MATCH_NONE, range } from './query-dsl.js';
import type { SearchBody, SearchHit, SearchRequests } from './search-requests.js';
import { type OrderKey, sortDsl } from './sort-dsl.js';

export interface PageRequest {
  readonly index: string;
  /** The filter with the served condition; MATCH_NONE reads nothing. */
  readonly base: Query;
  readonly order: readonly OrderKey[];
  readonly after: PositionValues | null;
  readonly offset: number;
  readonly limit: number;
  /** `_source` fields of a row (the position's fields are added). */
  readonly source: readonly string[];
  readonly what: string;
  /** Pages after a time position start in a time window beside it (see above); without it they search unbounded. */
  readonly spans?: PositionSpans;
}

const HOUR_US = 3_600_000_000n;
const CENTURY_US = 100n * 366n * 24n * HOUR_US;

/** The span (µs) a page after a time position is first searched in, per index, key and direction: the last that filled one. */
export class PositionSpans {
  readonly #last = new Map<string, bigint>();
  constructor(private readonly initial: bigint = HOUR_US) {}

  first(key: string): bigint {
    return this.#last.get(key) ?? this.initial;
  }

  filled(key: string, span: bigint): void {
    this.#last.set(key, span);
  }
}

/** The rows after a position from `from` on: search_after when it can say it (keyset.ts), else the range query. */
function keyset(base: Query, order: readonly OrderKey[], position: PositionValues | null, from: number): { query: Query; search_after?: string[] } {
  if (position === null) return { query: base };
  const values = from === 0 ? searchAfterValues(order, position) : null;
  return values === null ? { query: and([base, afterDsl(order, position)]) } : { query: base, search_after: values };
}

/** The search of `size` rows from `from` on after a position, with the position's fields in `_source`. */
function rowsBody(page: PageRequest, after: PositionValues | null, from: number, size: number): SearchBody {
  const positionSource = page.order.map((o) => o.key.source);
  return { ...keyset(page.base, page.order, after, from), from, size, sort: sortDsl(page.order), _source: [...new Set([...page.source, ...positionSource])] };
}

/** The one search that answers the page, or null when it takes more (or none: a page that reads nothing). */
export function singleSearchBody(window: number, page: PageRequest): SearchBody | null {
  if (page.limit <= 0 || page.base === MATCH_NONE || page.offset + page.limit > window) return null;
  return rowsBody(page, page.after, page.offset, page.limit);
}

export async function pagedSearch(requests: SearchRequests, window: number, page: PageRequest): Promise<SearchHit[]> {
  const { index, base, order, what } = page;
  if (page.limit <= 0 || base === MATCH_NONE) return [];
  let after = page.after;
  let offset = page.offset;
  const sort = sortDsl(order);
  while (offset + Math.min(page.limit, window) > window) {
    const skip = Math.min(offset, window);
    const response = await requests.search(index, { ...keyset(base, order, after, skip - 1), from: skip - 1, size: 1, sort, _source: false }, `${what} (deep offset)`);
    const last = response.hits.hits[0];
    if (last === undefined) return [];
    after = positionOfSort(order, last.sort ?? []);
    offset -= skip;
  }
  // The page itself, in windows when the limit is larger than one.
  const rows: SearchHit[] = [];
  while (rows.length < page.limit) {
    const size = Math.min(page.limit - rows.length, window - offset);
    const hits = offset === 0 && after !== null ? await rowsAfter(requests, page, after, size) : (await requests.search(index, rowsBody(page, after, offset, size), what)).hits.hits;
    rows.push(...hits);
    if (hits.length < size) break;
    after = positionOf(order, hits[hits.length - 1]!._source);
    offset = 0;
  }
  return rows;
}

/** `size` rows after a position, in a growing time window beside it when the order allows it (see the header). */
async function rowsAfter(requests: SearchRequests, page: PageRequest, after: PositionValues, size: number): Promise<readonly SearchHit[]> {
  const first = page.order[0];
  const value = after[0];
  if (page.spans !== undefined && first !== undefined && first.key.time && value !== null && value !== undefined) {
    const at = BigInt(micros(value));
    const descending = first.direction === 'DESC';
    const key = `${page.index}\0${first.key.field}\0${first.direction}`;
    for (let span = page.spans.first(key); span <= CENTURY_US; ) {
      // Both bounds: search_after alone would also exclude the rows before the position, but a range open on that
      // side matches half the index (9-14 ms instead of 1 ms for a page at 1,000,000 runs).
      const window = descending ? { gte: (at - span).toString(), lte: at.toString() } : { gte: at.toString(), lte: (at + span).toString() };
      const windowed = { ...page, base: and([page.base, range(first.key.field, window)]) };
      const hits = (await requests.search(page.index, rowsBody(windowed, after, 0, size), page.what)).hits.hits;
      if (hits.length === size) {
        page.spans.filled(key, span);
        return hits;
      }
      span *= hits.length === 0 ? 16n : BigInt(Math.max(2, Math.ceil((2 * size) / hits.length)));
    }
  }
  return (await requests.search(page.index, rowsBody(page, after, 0, size), page.what)).hits.hits;
}
