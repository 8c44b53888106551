// One filter's lookups (its checks on the stored text, source-check.ts) share one OPENSEARCH_QUERY_TIMEOUT_MS, as a
// PostgreSQL statement has one statement_timeout, however many conditions need a check and however many pages each
// reads. Without it a filter of 100 undecided conditions (GRAPHQL_MAX_FILTER_CONDITIONS) could read for 100 times
// the timeout. Made when a filter is translated for real (speculative-page.ts, lookups/lookup-reader.ts).
import type { SearchBody, SearchResponse, Searcher } from './search-requests.js';

export class LookupDeadline implements Searcher {
  readonly #started: number;

  constructor(
    private readonly inner: Searcher,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#started = now();
  }

  get timeoutMs(): number {
    return this.inner.timeoutMs;
  }

  remainingMs(): number {
    return Math.min(this.inner.remainingMs(), this.inner.timeoutMs - (this.now() - this.#started));
  }

  search(index: string, body: SearchBody, what: string, timeoutMs?: number): Promise<SearchResponse> {
    return this.inner.search(index, body, what, timeoutMs);
  }
}
