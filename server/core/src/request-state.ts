import type { ExecutionResult } from 'graphql';
import type { Access } from './auth/access.js';

/**
 * Facts about one HTTP request that the GraphQL layer learns and the HTTP layer reports
 * (request log, metrics). Passed to yoga as server context.
 */
export interface RequestState {
  operationName: string | null;
  operationType: string | null;
  /** Codes of the errors of the GraphQL result, in order. */
  errorCodes: string[];
  /** Rows this request holds of GRAPHQL_MAX_COST_IN_FLIGHT (cost-budget.ts), released once its response is written. */
  costHeld: number;
  /** What the operation was priced at (query-cost.ts), once it has been; QUERY_TIMEOUT errors tell it. */
  cost: number | null;
  /** The request's compiled operation already ran and failed on the hot path (hot-operations.ts): yoga runs it on graphql-js. */
  compiledFailed: boolean;
  /**
   * The hot path's result when its reads timed out: yoga answers it as it is instead of running the reads again
   * (they would time out again, after as long).
   */
  timedOutResult: ExecutionResult | null;
  /** AUTH_MODE=oidc: the verified token's `sub`, once it is; null otherwise. */
  subject: string | null;
  /** What the request may read (auth/access.ts); null: everything (AUTH_MODE=none). */
  access: Access | null;
  /** Why the request's token was refused (the reason label of workflow_index_auth_refusals_total), or null. */
  authRefusal: string | null;
}

/** Set by the event-stream transport (http/graphql-sse.ts) for the request it serves. */
export interface LiveStream {
  /** Aborted when the stream must end (the subject's token expired). */
  readonly signal: AbortSignal;
}

export interface ServerContext {
  readonly requestState: RequestState;
  /** Present only on a request served as an event stream: the only way a subscription is taken. */
  readonly live?: LiveStream;
  /** The body is read by node:http, framed by its Content-Length header when it has one (never longer). */
  readonly bodyFramed?: boolean;
}

export function newRequestState(): RequestState {
  return { operationName: null, operationType: null, errorCodes: [], costHeld: 0, cost: null, compiledFailed: false, timedOutResult: null, subject: null, access: null, authRefusal: null };
}
