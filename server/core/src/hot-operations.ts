// Hot requests, for the page query's CPU. A POST /graphql whose document and operation already ran compiled
// without errors (compiled-execution.ts registers them here) is answered straight from node:http: body bytes →
// JSON.parse → the same per-request checks yoga's plugins make → the compiled operation → JSON.stringify. No fetch
// Request/Response objects, no envelop hook chain, no parse/validate cache lookups: what only depends on the
// document (parsing, validation, the query-shape limits, read-only, introspection) was settled by the yoga runs that
// registered it, and a document is registered only after one of them answered without errors.
//
// The answer must be the answer yoga gives to the same request, byte for byte. So this path takes only what it can
// answer that way and hands everything else to yoga (`null`): another Content-Type, Accept, encoding or target, a
// body that is not a plain {query, variables?, operationName?} object, variables nested past the limit or priced over
// GRAPHQL_MAX_COST, a full cost budget (yoga queues it), and any answer with errors or extensions (yoga runs it
// again and words them). Every request that answers with data only runs once.
import type { CompiledQuery } from 'graphql-jit';
import type { DocumentNode, ExecutionResult, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { compiledExecutionStats } from './compiled-execution.js';
import type { CoreConfig } from './config.js';
import type { CostBudget } from './cost-budget.js';
import { variablesJsonDepth } from './graphql-plugins.js';
import { timedOut } from './errors.js';
import { jsonDepthExceeds } from './json-depth.js';
import { withValues } from './literal-hoisting.js';
import { operationCost, type CostSettings } from './query-cost.js';
import type { RequestState } from './request-state.js';
import type { ResolverContext } from './resolvers.js';
import { inOrder, rootResponseKeys } from './root-field-order.js';
import { expandShorthandInVariables } from './shorthand.js';

/** One compiled operation that answered without errors through yoga. */
export interface HotOperation {
  readonly compiled: CompiledQuery;
  /** The document as yoga executed it (shorthand filters expanded): what the cost is priced on. */
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** The request's `operationName` (null when it sent none). */
  readonly operationName: string | null;
  /** What useOperationFacts recorded for the request log and metrics. */
  readonly loggedName: string | null;
  /** The values the query text gives its shape's hoisted variables (literal-hoisting.ts); null: none. */
  readonly values: Readonly<Record<string, unknown>> | null;
  readonly rootKeys: readonly string[];
  /** Marks the compiled operation as just executed (its place in the compiled operations' recency order). */
  readonly touch: () => void;
}

/**
 * Query texts registered at most: documents of one shape share a compiled operation, so the compiled bound does not
 * bound the texts; beyond this the earliest registered text is forgotten (its next request goes through yoga once).
 */
export const MAX_HOT_QUERIES = 1000;

/** The hot operations by query text and operation name; an entry lives as long as its compiled operation is kept. */
export class HotOperations {
  readonly #byQuery = new Map<string, Map<string, HotOperation>>();

  constructor(private readonly maxQueries = MAX_HOT_QUERIES) {}

  register(query: string, operationName: string | null, operation: Omit<HotOperation, 'rootKeys'>): HotOperation {
    let byName = this.#byQuery.get(query);
    if (byName === undefined) {
      byName = new Map();
      this.#byQuery.set(query, byName);
      if (this.#byQuery.size > this.maxQueries) this.#byQuery.delete(this.#byQuery.keys().next().value as string);
    }
    const key = operationName ?? '';
    const existing = byName.get(key);
    if (existing !== undefined && existing.compiled === operation.compiled) return existing;
    const entry: HotOperation = { ...operation, rootKeys: rootResponseKeys(operation.document, operation.operation) };
    byName.set(key, entry);
    return entry;
  }

  /** Forgets every registration of this compiled operation (it was dropped to stay within the compiled bound). */
  forget(compiled: CompiledQuery): void {
    for (const [query, byName] of this.#byQuery) {
      for (const [name, entry] of byName) {
        if (entry.compiled === compiled) byName.delete(name);
      }
      if (byName.size === 0) this.#byQuery.delete(query);
    }
  }

  lookup(query: string, operationName: string | null): HotOperation | undefined {
    return this.#byQuery.get(query)?.get(operationName ?? '');
  }

  /** Registrations held (query text and operation name pairs). */
  get size(): number {
    let size = 0;
    for (const byName of this.#byQuery.values()) size += byName.size;
    return size;
  }
}

/** Accept values yoga answers with this Content-Type (its result processor's choice for them); others go to yoga. */
const ANSWER_TYPES = new Map<string | undefined, string>([
  [undefined, 'application/json; charset=utf-8'],
  ['*/*', 'application/json; charset=utf-8'],
  ['application/json', 'application/json; charset=utf-8'],
  ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
  // what GraphQL clients send: yoga answers with the first type of the list
  ['application/graphql-response+json, application/json', 'application/graphql-response+json; charset=utf-8'],
  ['application/json, application/graphql-response+json', 'application/json; charset=utf-8'],
]);
/** Content-Types yoga reads as JSON (its test is case-sensitive: `APPLICATION/JSON` is a 415 there, so it goes to yoga). */
const JSON_REQUEST_TYPES = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8', 'application/json; charset=UTF-8']);
const DIGITS = /^\d+$/;

/**
 * The Content-Type of the answer when the request's framing is one this path takes (POST to the endpoint itself
 * with no query string, a JSON body within HTTP_MAX_BODY_BYTES, no Content-Encoding), else null. On node:http
 * (`framed`) the body must be framed by a Content-Length: the limit is then checked before it is read.
 */
export function hotRequestAnswerType(target: string, header: (name: string) => string | undefined, maxBodyBytes: number, framed: boolean): string | null {
  if (target.includes('?')) return null;
  const type = header('content-type');
  if (type === undefined || !JSON_REQUEST_TYPES.has(type)) return null;
  if (header('content-encoding') !== undefined || header('transfer-encoding') !== undefined) return null;
  const length = header('content-length');
  if (length === undefined ? framed : !DIGITS.test(length) || Number(length) > maxBodyBytes) return null;
  return ANSWER_TYPES.get(header('accept')) ?? null;
}

/** This process's figures (every server of the process adds to them). */
export const hotRequestStats = { answered: 0, handedToYoga: 0 };

/** The request's answer body, or null: yoga answers this request (see the header). */
export type HotAnswer = (body: unknown, state: RequestState) => Promise<string | null>;

export function createHotAnswer(deps: {
  readonly hot: HotOperations;
  readonly schema: GraphQLSchema;
  readonly graphqlConfig: CoreConfig['graphql'] & CostSettings;
  readonly costBudget: CostBudget | null;
  /** The resolvers' context of one request, as yoga's context factory builds it. */
  readonly context: (state: RequestState) => Omit<ResolverContext, 'params'>;
}): HotAnswer {
  const { hot, schema, graphqlConfig: limits, costBudget } = deps;
  const maxJsonDepth = variablesJsonDepth(limits.maxFilterDepth); // useVariablesDepthLimit's bound
  // Without variables the price depends on the document alone (values written inline, as Java clients send them).
  const fixedCosts = new WeakMap<HotOperation, number>();
  const costWithoutVariables = (entry: HotOperation): number => {
    let cost = fixedCosts.get(entry);
    if (cost === undefined) {
      cost = operationCost(schema, entry.document, entry.operationName, null, limits).total;
      fixedCosts.set(entry, cost);
    }
    return cost;
  };
  const answer = async (body: unknown, state: RequestState): Promise<string | null> => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const params = body as Record<string, unknown>;
    let keys = 0;
    for (const key in params) {
      if (key !== 'query' && key !== 'variables' && key !== 'operationName') return null;
      keys += 1;
    }
    const { query, operationName = null } = params;
    let variables = params['variables'] ?? null;
    // "" is not "no name": yoga refuses it (OPERATION_RESOLUTION_FAILURE).
    if (keys === 0 || typeof query !== 'string' || (operationName !== null && (typeof operationName !== 'string' || operationName === ''))) return null;
    if (variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) return null;
    const entry = hot.lookup(query, operationName);
    if (entry === undefined) return null;
    if (variables !== null && jsonDepthExceeds(variables, maxJsonDepth)) return null;
    const cost = variables === null ? costWithoutVariables(entry) : operationCost(schema, entry.document, entry.operationName, variables as Record<string, unknown>, limits).total;
    state.cost = cost;
    if (cost > limits.maxCost) return null;
    if (costBudget !== null && !costBudget.tryAcquire(cost)) return null;
    let held = costBudget === null ? 0 : cost;
    try {
      if (variables !== null) variables = expandShorthandInVariables(schema, entry.operation, variables as Record<string, unknown>);
      const context: ResolverContext = { ...deps.context(state), params: { query, variables, operationName } } as ResolverContext;
      const result = (await entry.compiled.query(undefined, context, withValues(variables as Record<string, unknown> | null, entry.values))) as ExecutionResult;
      compiledExecutionStats.executions += 1;
      entry.touch();
      if ((result.errors !== undefined && result.errors.length > 0) || result.extensions !== undefined || result.data === null || result.data === undefined) {
        // yoga answers it; its reads ran once here already, so it runs them once more on graphql-js, not twice
        // (compiled, then graphql-js for the wording): during a backend outage a failing request reads twice, as before.
        // Reads that timed out are not run again: yoga answers this result.
        state.compiledFailed = true;
        if (timedOut(result)) state.timedOutResult = result;
        return null;
      }
      state.operationType = 'query';
      state.operationName = entry.loggedName;
      state.costHeld = held;
      held = 0;
      return JSON.stringify({ data: entry.rootKeys.length < 2 ? result.data : inOrder(result.data, entry.rootKeys) });
    } catch {
      state.compiledFailed = true;
      return null;
    } finally {
      if (held > 0) costBudget?.release(held);
    }
  };
  return async (body, state) => {
    const answered = await answer(body, state);
    if (answered === null) hotRequestStats.handedToYoga += 1;
    else hotRequestStats.answered += 1;
    return answered;
  };
}
