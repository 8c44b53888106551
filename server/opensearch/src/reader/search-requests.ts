// The reader's requests to OpenSearch, each with its own timeout and no client-side retry (a query that fails is
// answered at once; the client retries, not the server) except on another node: when the client knows several nodes
// (OPENSEARCH_HOST a list), a request whose connection failed (refused, reset: a node that died) is sent again to the
// next live node, at most once per other node; a node that does not answer in time is not retried (that would
// multiply the timeout). A partial answer (some shards failed: a node that died between the query and the fetch
// phase of a search, whose shard copies the node cannot retry elsewhere) is never served: the search is sent again,
// and a second partial answer is an error. And the one place that turns failures into what the GraphQL
// layer serves: a search the node stopped at its timeout (the body's `timeout`; its partial hits are never served) is
// QueryTimeoutError (QUERY_TIMEOUT); unreachable, not answering within the timeout and a margin, refused credentials, a
// missing index or an overloaded node is BackendUnavailableError (SERVICE_UNAVAILABLE, readiness DOWN with the
// reason); a wildcard pattern OpenSearch finds too complex, a query with too many clauses or a terms query with too
// many values is BAD_USER_INPUT; anything else is an internal error with OpenSearch's reason.
import { type Client, errors } from '@opensearch-project/opensearch';
import { badUserInput } from '@workflow-index/core';
import { BackendUnavailableError, QueryTimeoutError } from '@workflow-index/core';

export interface SearchHit {
  readonly _id: string;
  readonly _source: Readonly<Record<string, unknown>>;
  /** The hit's sort values, when the search was sorted. */
  readonly sort?: readonly unknown[];
  /** Script fields' values, when the search asked for some. */
  readonly fields?: Readonly<Record<string, readonly unknown[]>>;
}

export interface SearchBody {
  readonly query: Readonly<Record<string, unknown>>;
  readonly size: number;
  readonly from?: number;
  readonly sort?: readonly Record<string, unknown>[];
  /** The sort values the hits come after (from must then be 0). */
  readonly search_after?: readonly string[];
  readonly _source?: readonly string[] | false;
  /** true: count every hit (hits.total); a number: count exactly up to it. */
  readonly track_total_hits?: boolean | number;
  readonly aggs?: Readonly<Record<string, unknown>>;
  readonly script_fields?: Readonly<Record<string, unknown>>;
}

export interface SearchResponse {
  /** The node stopped the search at the body's `timeout`: the hits are partial. */
  readonly timed_out?: boolean;
  readonly hits: { readonly hits: readonly SearchHit[]; readonly total?: { readonly value: number } };
  readonly aggregations?: Readonly<Record<string, unknown>>;
  /** Shards searched; `failed` > 0: the answer lacks what those shards hold. */
  readonly _shards?: { readonly total?: number; readonly failed?: number; readonly failures?: readonly { readonly status?: number; readonly reason?: ErrorBody }[] };
}

interface ErrorBody {
  readonly type?: string;
  readonly reason?: string;
  readonly root_cause?: readonly ErrorBody[];
  readonly caused_by?: ErrorBody;
  readonly index?: string;
}

const UNAVAILABLE_STATUS = new Set([401, 403, 429, 502, 503, 504]);

/** Every type and reason in an OpenSearch error body (root causes and causes included). */
function reasonsOf(error: ErrorBody | undefined, out: string[] = []): string[] {
  if (error === undefined || error === null) return out;
  out.push(`${error.type ?? ''}: ${error.reason ?? ''}`);
  for (const cause of error.root_cause ?? []) reasonsOf(cause, out);
  reasonsOf(error.caused_by, out);
  return out;
}

/**
 * An error OpenSearch answered (status + error body) as the error the reader throws. `timeoutMs`: the search's own
 * timeout, which the node may also enforce by failing the shards with time_exceeded_exception (HTTP 500, seen on the
 * first search over freshly written documents and under load) instead of answering `timed_out: true`.
 */
export function classifyResponse(status: number, error: ErrorBody | undefined, what: string, timeoutMs?: number): Error {
  const reasons = reasonsOf(error);
  const summary = reasons[0] ?? `HTTP ${status}`;
  if (timeoutMs !== undefined && reasons.some((r) => r.startsWith('time_exceeded_exception'))) {
    return new QueryTimeoutError(`OpenSearch stopped the search at its timeout (${what}): ${summary}`, { ms: timeoutMs, setting: TIMEOUT_SETTING });
  }
  if (reasons.some((r) => r.startsWith('index_not_found_exception'))) {
    const index = error?.index ?? error?.root_cause?.[0]?.index ?? 'a normalized index';
    return new BackendUnavailableError(`OpenSearch index ${index} does not exist (${what}): run init-job opensearch-setup`);
  }
  if (UNAVAILABLE_STATUS.has(status)) {
    const hint = status === 401 ? ' (credentials refused)' : status === 403 ? ' (this user may not read the normalized indices)' : '';
    return new BackendUnavailableError(`OpenSearch answered ${status}${hint} (${what}): ${summary}`);
  }
  if (reasons.some((r) => /too_complex_to_determinize|TooComplexToDeterminize|maxDeterminizedStates/i.test(r))) {
    return badUserInput('like/contains/endsWith pattern is too complex for the OpenSearch backend; use fewer wildcards or a shorter pattern');
  }
  // A query wider than the node allows: the core's filter limits (GRAPHQL_MAX_FILTER_CONDITIONS, _IN_VALUES) keep the
  // filters within it at their defaults; a raised limit, or a node configured lower, still meets the client's error.
  if (reasons.some((r) => /too_many_clauses|too_many_nested_clauses|maxClauseCount/i.test(r))) {
    return badUserInput(
      'filter is too wide for the OpenSearch backend (more clauses than indices.query.bool.max_clause_count allows); use fewer conditions (in: [...] for many values of one field) or split the query',
    );
  }
  if (reasons.some((r) => /max_terms_count/.test(r))) {
    return badUserInput('filter has an in list longer than the OpenSearch backend allows (index.max_terms_count); use fewer values or split the query');
  }
  return new Error(`OpenSearch ${what} failed with HTTP ${status}: ${reasons.join('; ') || JSON.stringify(error)}`);
}

export function classifyError(error: unknown, what: string, timeoutMs?: number): Error {
  if (error instanceof BackendUnavailableError) return error;
  if (error instanceof errors.ResponseError) {
    return classifyResponse(error.statusCode, (error.body as { error?: ErrorBody } | undefined)?.error, what, timeoutMs);
  }
  if (error instanceof errors.TimeoutError || error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError || error instanceof errors.RequestAbortedError) {
    return new BackendUnavailableError(`OpenSearch unavailable (${what}): ${error.message}`, { cause: error });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** What a lookup needs of SearchRequests: one search (speculative-page.ts answers lookups without a node). */
export interface Searcher {
  /** One search, within `timeoutMs` (default: the searcher's own). */
  search(index: string, body: SearchBody, what: string, timeoutMs?: number): Promise<SearchResponse>;
  /** OPENSEARCH_QUERY_TIMEOUT_MS: the longest one search may take. */
  readonly timeoutMs: number;
  /** What is left of the time the lookups of one filter share (lookup-deadline.ts); here, a search's own. */
  remainingMs(): number;
}

/** How much longer than a search's own timeout the client waits for the node's answer before it deems it gone. */
const ANSWER_MARGIN_MS = 1000;

/** The setting that bounds a search, as QUERY_TIMEOUT names it. */
const TIMEOUT_SETTING = 'OPENSEARCH_QUERY_TIMEOUT_MS';

/** `body` bounded on the node by `timeoutMs`, and counted as the reader counts (no total unless asked). */
function boundedBody(body: SearchBody, timeoutMs: number): Record<string, unknown> {
  return { track_total_hits: false, ...body, timeout: `${Math.max(1, Math.floor(timeoutMs))}ms` };
}

/** A response the node cut short at its timeout, as QueryTimeoutError; otherwise the response. */
function complete(response: SearchResponse, timeoutMs: number, what: string): SearchResponse {
  if (response.timed_out === true) {
    throw new QueryTimeoutError(`OpenSearch stopped the search at its timeout (${what})`, { ms: timeoutMs, setting: TIMEOUT_SETTING });
  }
  return response;
}

type RequestParams = Parameters<Client['transport']['request']>[0];

/** The error a partial answer becomes when sending the search again did not cure it. */
function partialAnswerError(response: SearchResponse, what: string, timeoutMs: number): Error {
  const shards = response._shards;
  const failure = shards?.failures?.[0];
  const classified = classifyResponse(failure?.status ?? 500, failure?.reason, what, timeoutMs);
  // A timeout or a query the node refuses stays what it is; anything else is the backend not answering whole.
  if (classified.constructor !== Error) return classified;
  return new BackendUnavailableError(`OpenSearch could not search ${shards?.failed} of ${shards?.total ?? '?'} shards (${what}): ${reasonsOf(failure?.reason)[0] ?? 'no reason given'}`);
}

const isPartial = (response: SearchResponse): boolean => (response._shards?.failed ?? 0) > 0;

export class SearchRequests implements Searcher {
  constructor(
    private readonly client: Client,
    readonly timeoutMs: number,
  ) {}

  /** One request without the client's retries, sent again to another node after a connection failure. */
  private async send(params: RequestParams, requestTimeout: number): Promise<unknown> {
    // The pool marks a node whose connection failed dead, so the next attempt goes to another one.
    const failovers = Math.max(0, this.client.connectionPool.size - 1);
    for (let attempt = 0; ; attempt++) {
      try {
        return (await this.client.transport.request(params, { requestTimeout, maxRetries: 0 })).body;
      } catch (error) {
        if (!(error instanceof errors.ConnectionError) || attempt >= failovers) throw error;
      }
    }
  }

  remainingMs(): number {
    return this.timeoutMs;
  }

  async search(index: string, body: SearchBody, what: string, timeoutMs = this.timeoutMs): Promise<SearchResponse> {
    let response: SearchResponse;
    for (let attempt = 0; ; attempt++) {
      try {
        response = (await this.send({ method: 'POST', path: `/${encodeURIComponent(index)}/_search`, body: boundedBody(body, timeoutMs) }, timeoutMs + ANSWER_MARGIN_MS)) as SearchResponse;
      } catch (error) {
        throw classifyError(error, what, this.timeoutMs);
      }
      if (response.timed_out === true || !isPartial(response)) return complete(response, this.timeoutMs, what);
      if (attempt >= 1) throw partialAnswerError(response, what, this.timeoutMs);
    }
  }

  /** Several searches in one round trip; the first failed one is thrown. */
  async msearch(searches: readonly { index: string; body: SearchBody }[], what: string): Promise<SearchResponse[]> {
    const lines = searches.flatMap(({ index, body }) => [{ index }, boundedBody(body, this.timeoutMs)]);
    let responses: (SearchResponse & { error?: ErrorBody; status?: number })[];
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.send({ method: 'POST', path: '/_msearch', bulkBody: lines }, this.timeoutMs + ANSWER_MARGIN_MS);
        responses = (response as { responses: typeof responses }).responses;
      } catch (error) {
        throw classifyError(error, what, this.timeoutMs);
      }
      for (const r of responses) if (r.error !== undefined) throw classifyResponse(r.status ?? 500, r.error, what, this.timeoutMs);
      const partial = responses.find((r) => r.timed_out !== true && isPartial(r));
      if (partial === undefined) return responses.map((r) => complete(r, this.timeoutMs, what));
      if (attempt >= 1) throw partialAnswerError(partial, what, this.timeoutMs);
    }
  }

  /** Document counts of indices (a pattern may match none: 0), from index stats, which need no read permission. */
  async docCount(pattern: string, what: string): Promise<number> {
    try {
      const response = await this.send(
        { method: 'GET', path: `/${encodeURIComponent(pattern)}/_stats/docs`, querystring: { allow_no_indices: 'true', ignore_unavailable: 'true' } },
        this.timeoutMs,
      );
      const all = (response as { _all?: { primaries?: { docs?: { count?: number } } } })._all;
      return all?.primaries?.docs?.count ?? 0;
    } catch (error) {
      throw classifyError(error, what);
    }
  }
}
