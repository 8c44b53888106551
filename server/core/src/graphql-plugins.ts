import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { ASTVisitor, ExecutionArgs, ExecutionResult, GraphQLSchema, ValidationContext } from 'graphql';
import { createGraphQLError, isAsyncIterable } from 'graphql-yoga';
import type { FetchAPI, Plugin, YogaInitialContext } from 'graphql-yoga';
import type { CoreConfig } from './config.js';
import { ErrorCode, SERVICE_UNAVAILABLE_MESSAGE, badUserInput, UNEXPECTED_ERROR_MESSAGE, errorCodeOf, isBackendUnavailable, queryTimeoutMessage, queryTimeoutOf, withExtensions } from './errors.js';
import { excerpt } from './client-text.js';
import { graphql, isGraphQLError } from './graphql-runtime.js';
import { jsonDepthExceeds } from './json-depth.js';
import { queryExcerpt, variablesExcerpt } from './log-excerpt.js';
import type { Logger } from './logger.js';
import type { ServerContext } from './request-state.js';
import { costMessage, operationCost, type CostSettings } from './query-cost.js';
import { CostQueueTimeout } from './cost-budget.js';
import type { CostBudget } from './cost-budget.js';
import { expandShorthandInDocument, expandShorthandInVariables } from './shorthand.js';

type Context = YogaInitialContext & ServerContext;
type ArmorConfig = NonNullable<Parameters<typeof EnvelopArmorPlugin>[0]>;
type RejectCallback = NonNullable<NonNullable<ArmorConfig['maxDepth']>['onReject']>[number];

/** Expands shorthand filters in the parsed document (before validation) and in the variables (before coercion). */
export function useShorthandFilters(schema: GraphQLSchema): Plugin<Context> {
  return {
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (result !== null && !(result instanceof Error)) replaceParseResult(expandShorthandInDocument(schema, result));
      };
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      const expanded = expandedVariables(args);
      if (expanded !== null) setExecuteFn((executeArgs) => executeFn({ ...executeArgs, variableValues: expanded }));
    },
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const expanded = expandedVariables(args);
      if (expanded !== null) setSubscribeFn((subscribeArgs) => subscribeFn({ ...subscribeArgs, variableValues: expanded }));
    },
  };
}

function expandedVariables(args: ExecutionArgs): Record<string, unknown> | null {
  const variables = args.variableValues;
  if (variables === null || variables === undefined) return null;
  const operation = graphql.getOperationAST(args.document, args.operationName);
  if (operation === null || operation === undefined) return null;
  return expandShorthandInVariables(args.schema, operation, variables);
}

/** How deep a request's variables may nest in JSON for filters of GRAPHQL_MAX_FILTER_DEPTH (see below). */
export function variablesJsonDepth(maxFilterDepth: number): number {
  return 2 * maxFilterDepth + 8;
}

/**
 * Variables nested deeper than any filter the depth limit allows are refused before graphql-js coerces them
 * (recursively: 10,000 levels overflowed the stack). An `and` level is two JSON levels (list, object), a
 * `not` one; the leaves need a few more.
 */
export function useVariablesDepthLimit(maxFilterDepth: number): Plugin<Context> {
  const maxJsonDepth = variablesJsonDepth(maxFilterDepth);
  return {
    onParams({ params, setResult }) {
      if (!jsonDepthExceeds(params.variables, maxJsonDepth)) return;
      setResult({
        errors: [
          badUserInput(
            `variables nest more than ${maxJsonDepth} levels deep; filters may nest and/or/not at most ${maxFilterDepth} levels (GRAPHQL_MAX_FILTER_DEPTH): flatten the filter, e.g. and: [a, b, c] instead of and: [a, {and: [b, c]}]`,
          ),
        ],
      });
    },
  };
}

/** The API is read-only: a mutation is the client's mistake, reported before anything runs (subscriptions only read). */
export function useReadOnlyOperations(): Plugin<Context> {
  const rule = (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(node) {
      if (node.operation !== 'mutation') return;
      context.reportError(
        new graphql.GraphQLError(`This API is read-only: ${node.operation} operations are not supported. Send a query, e.g. query { getWorkflowInstances { id status } }, or a subscription over Server-Sent Events.`, {
          nodes: node,
          extensions: { code: ErrorCode.BAD_USER_INPUT },
        }),
      );
    },
  });
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
    },
  };
}

/**
 * GRAPHQL_MAX_COST: an operation that may read more rows than the budget is refused as a whole, before any
 * resolver runs (so before any Reader call). Must come before plugins whose onExecute does work per request.
 * With a CostBudget (GRAPHQL_MAX_COST_IN_FLIGHT), the priced cost is then acquired from the server-wide budget
 * (waiting, cheapest first, when it does not fit) and recorded in requestState.costHeld; the HTTP layer releases it
 * once the response has been written or the request failed. A request admitted at once allocates nothing here.
 */
export function useQueryCost(limits: CoreConfig['graphql'] & CostSettings, budget: CostBudget | null = null): Plugin<Context> {
  return {
    // A subscription is priced as one pushed run with its selection and refused above the budget; it holds nothing of
    // the budget in flight (a stream lives long), its reads are bounded per push by GRAPHQL_MAX_CONCURRENT_READS.
    onSubscribe({ args, setResultAndStopExecution }) {
      const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues, limits);
      (args.contextValue as Context).requestState.cost = cost.total;
      if (cost.total > limits.maxCost) setResultAndStopExecution({ errors: [badUserInput(costMessage(cost, limits.maxCost, limits))] });
    },
    onExecute({ args, setResultAndStopExecution }) {
      const cost = operationCost(args.schema, args.document, args.operationName, args.variableValues, limits);
      const state = (args.contextValue as Context).requestState;
      state.cost = cost.total;
      if (cost.total > limits.maxCost) {
        setResultAndStopExecution({ errors: [badUserInput(costMessage(cost, limits.maxCost, limits))] });
        return;
      }
      if (budget === null) return;
      if (budget.tryAcquire(cost.total)) {
        state.costHeld = cost.total;
        return;
      }
      const signal = (args.contextValue as Context).request.signal as AbortSignal | undefined;
      return budget.wait(cost.total, signal).then(
        () => {
          state.costHeld = cost.total;
        },
        (error: unknown) => {
          // Timed out, or the client went away while waiting: nothing is held, nothing runs.
          setResultAndStopExecution({ errors: [costQueueError(error instanceof CostQueueTimeout, budget, limits.costQueueTimeoutMs)] });
        },
      );
    },
  };
}

function costQueueError(timedOut: boolean, budget: CostBudget, timeoutMs: number): Error {
  const message = timedOut
    ? `The server is busy: this request waited ${timeoutMs} ms (GRAPHQL_COST_QUEUE_TIMEOUT_MS) for room in the budget of ${budget.capacity} rows in flight (GRAPHQL_MAX_COST_IN_FLIGHT) and did not run. Retry after the Retry-After delay, or lower the limits of the query.`
    : 'The request was aborted while it waited for room in the budget of rows in flight (GRAPHQL_MAX_COST_IN_FLIGHT); it did not run.';
  return new graphql.GraphQLError(message, { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE, http: { status: 503, headers: { 'Retry-After': '1' } } } });
}

/**
 * Query-shape limits by GraphQL Armor, reported with our stable codes (Armor's own errors carry none).
 * Field suggestions ("Did you mean …") are hidden only when introspection is off, since they would leak the schema.
 */
export function useQueryLimits(limits: CoreConfig['graphql']): Plugin<Context> {
  const reject =
    (code: ErrorCode): RejectCallback =>
    (validation, error) => {
      const coded = new graphql.GraphQLError(error.message.replace(/^Syntax Error: /, ''), { extensions: { code } });
      // Token counting runs in the lexer, without a validation context to report to.
      if (validation === null) throw coded;
      validation.reportError(coded);
    };
  return EnvelopArmorPlugin({
    // Introspection is counted too (Armor skips it by default): a deep __schema query must not bypass the limit.
    // The standard introspection query of GraphiQL is exactly 15 levels deep.
    maxDepth: { n: limits.maxDepth, flattenFragments: true, ignoreIntrospection: false, onReject: [reject(ErrorCode.MAX_DEPTH_EXCEEDED)], propagateOnRejection: false },
    maxAliases: { n: limits.maxAliases, onReject: [reject(ErrorCode.MAX_ALIASES_EXCEEDED)], propagateOnRejection: false },
    maxTokens: { n: limits.maxTokens, onReject: [reject(ErrorCode.MAX_TOKENS_EXCEEDED)], propagateOnRejection: false },
    maxDirectives: { n: limits.maxDirectives, onReject: [reject(ErrorCode.MAX_DIRECTIVES_EXCEEDED)], propagateOnRejection: false },
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: limits.introspection !== 'DEFAULT' },
  }) as Plugin<Context>;
}

/**
 * Gives every error a stable code: parse and validation failures, BAD_USER_INPUT for variables
 * that do not coerce, SERVICE_UNAVAILABLE when the backend is down; anything else is logged with
 * the query and variables and masked as INTERNAL_SERVER_ERROR. Runs before yoga's own masking,
 * which then only sees errors that are safe to show.
 */
export function useErrorPolicy(logger: Logger): Plugin<Context> {
  return {
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (isGraphQLError(result) && errorCodeOf(result) === undefined) {
          replaceParseResult(withExtensions(result, { code: ErrorCode.GRAPHQL_PARSE_FAILED }));
        }
      };
    },
    onValidate() {
      return ({ result, setResult }) => {
        if (result.some((e) => errorCodeOf(e) === undefined)) {
          setResult(result.map((e) => (errorCodeOf(e) === undefined ? withExtensions(e, { code: ErrorCode.GRAPHQL_VALIDATION_FAILED }) : e)));
        }
      };
    },
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result) || result.errors === undefined || result.errors.length === 0) return;
          setResult(applyErrorPolicy(result, args.contextValue as Context, logger));
        },
      };
    },
  };
}

function applyErrorPolicy(result: ExecutionResult, context: Context, logger: Logger): ExecutionResult {
  // Without data the request failed before execution: variable values that do not coerce.
  const requestError = !('data' in result) || result.data === undefined;
  const operationName = context.requestState.operationName ?? context.params.operationName ?? null;
  let logged = false;
  const errors = (result.errors ?? []).map((error) => {
    const original = error.originalError;
    if (isBackendUnavailable(original)) {
      if (!logged) logger.warn({ err: original, operationName }, 'backend unavailable');
      logged = true;
      return withExtensions(error, { code: ErrorCode.SERVICE_UNAVAILABLE }, SERVICE_UNAVAILABLE_MESSAGE);
    }
    const timeout = queryTimeoutOf(original);
    if (timeout !== null) {
      const cost = context.requestState.cost;
      if (!logged) logger.warn({ err: original, operationName, cost, query: queryExcerpt(context.params.query), variables: variablesExcerpt(context.params.variables) }, 'query timed out');
      logged = true;
      return withExtensions(error, { code: ErrorCode.QUERY_TIMEOUT, cost, timeoutMs: timeout.ms }, queryTimeoutMessage(timeout, cost));
    }
    const expected = original === undefined || original === null || isGraphQLError(original);
    if (expected && errorCodeOf(error) !== undefined) return error;
    if (expected && requestError) return withExtensions(error, { code: ErrorCode.BAD_USER_INPUT });
    logger.error(
      {
        err: original ?? error,
        path: error.path,
        operationName,
        query: queryExcerpt(context.params.query),
        variables: variablesExcerpt(context.params.variables),
      },
      'unexpected error while executing a GraphQL operation',
    );
    return new graphql.GraphQLError(UNEXPECTED_ERROR_MESSAGE, { nodes: error.nodes, path: error.path, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } });
  });
  return { ...result, errors };
}

/** Final safety net for yoga's masking: errors that escaped the policy above (e.g. thrown by a plugin). */
export function maskUnexpectedError(logger: Logger) {
  return (error: unknown): Error => {
    if (isGraphQLError(error)) {
      const original = error.originalError;
      if (original === undefined || original === null || isGraphQLError(original)) return error;
      if (isBackendUnavailable(original)) return withExtensions(error, { code: ErrorCode.SERVICE_UNAVAILABLE }, SERVICE_UNAVAILABLE_MESSAGE);
      const timeout = queryTimeoutOf(original);
      if (timeout !== null) return withExtensions(error, { code: ErrorCode.QUERY_TIMEOUT, timeoutMs: timeout.ms }, queryTimeoutMessage(timeout, null));
    }
    if (isBackendUnavailable(error)) return new graphql.GraphQLError(SERVICE_UNAVAILABLE_MESSAGE, { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } });
    logger.error({ err: error }, 'unexpected error outside execution');
    return new graphql.GraphQLError(UNEXPECTED_ERROR_MESSAGE, { extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } });
  };
}

/** Records the operation's name and type for the request log and the GraphQL metrics. */
export function useOperationFacts(): Plugin<Context, ServerContext> {
  return {
    onParse({ context }) {
      return ({ result }) => {
        if (result === null || result instanceof Error) return;
        const operation = graphql.getOperationAST(result, context.params.operationName ?? undefined);
        context.requestState.operationType = operation?.operation ?? null;
        context.requestState.operationName = operation?.name?.value ?? context.params.operationName ?? null;
      };
    },
    onExecutionResult({ result, context }) {
      // No params when a plugin answered in onParams (e.g. variables nested too deep).
      const params = context.params as YogaInitialContext['params'] | undefined;
      if (context.requestState.operationName === null && typeof params?.operationName === 'string') {
        context.requestState.operationName = params.operationName;
      }
      const results = Array.isArray(result) ? result : [result];
      for (const r of results) {
        if (r === undefined || isAsyncIterable(r)) continue;
        for (const error of (r as ExecutionResult).errors ?? []) {
          context.requestState.errorCodes.push(errorCodeOf(error) ?? ErrorCode.INTERNAL_SERVER_ERROR);
        }
      }
    },
  };
}

function requestBodyTooLarge(): Error {
  return createGraphQLError('Request body too large', { extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' } });
}

const CONTENT_LENGTH = /^\d+$/;

function badRequest(message: string, status = 400): Error {
  return createGraphQLError(message, { extensions: { http: { status }, code: 'BAD_REQUEST' } });
}

/**
 * HTTP_MAX_BODY_BYTES, with the errors of yoga's own `maxRequestBodySize` (which is off): a Content-Length
 * above the limit (or an invalid one) is refused before the body is read, and a body without one is counted
 * while it is read. Yoga counts every body through a TransformStream; a body that node:http reads framed by
 * its Content-Length cannot be longer than that, so it is passed through as it is (`bodyFramed`).
 * `Content-Encoding: gzip` bodies are decompressed, and the limit applies to what they decompress to (a small
 * gzip bomb stops at the limit); other encodings are refused with 415. A body that is not JSON is refused
 * without echoing it (the parser's message quotes the whole body).
 */
export function useRequestBodyLimit(limit: number): Plugin<Context, ServerContext> {
  return {
    onRequestParse({ request, requestParser, setRequestParser, serverContext, fetchAPI }) {
      const encoding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
      const gzip = encoding === 'gzip' || encoding === 'x-gzip';
      if (!gzip && encoding !== 'identity') {
        throw badRequest(`Content-Encoding ${excerpt(encoding)} is not supported: send the body uncompressed or with Content-Encoding: gzip.`, 415);
      }
      const contentLength = request.headers.get('content-length');
      let counted = true;
      if (contentLength !== null) {
        if (!CONTENT_LENGTH.test(contentLength)) throw badRequest('Content-Length header is invalid.');
        if (Number(contentLength) > limit) throw requestBodyTooLarge();
        if (serverContext.bodyFramed === true && !gzip) counted = false;
      }
      if (requestParser === undefined || (request.body ?? null) === null) return;
      const parse = requestParser;
      setRequestParser(async (req) => {
        try {
          return await parse(counted ? countedBody(req, limit, fetchAPI, gzip) : req);
        } catch (error) {
          throw withoutBodyEcho(error, gzip);
        }
      });
    },
  };
}

/** Yoga's invalid-JSON error carries the parser's message, which quotes the body: keep only what went wrong, and where. */
function withoutBodyEcho(error: unknown, gzip: boolean): unknown {
  if (!isGraphQLError(error) || error.extensions['code'] !== 'BAD_REQUEST') return error;
  const original = error.extensions['originalError'] as { name?: unknown; message?: unknown } | undefined;
  if (original === undefined) return error;
  if (gzip && original.name !== 'SyntaxError') return badRequest('The request body is not valid gzip data (Content-Encoding: gzip).');
  const message = typeof original.message === 'string' ? original.message : '';
  // "Unterminated string in JSON at position 215, "{…" is not valid JSON" → the part before the quoted body.
  const what = message.split(/,? "/)[0]?.slice(0, 120).trim() ?? '';
  return badRequest(`POST body sent invalid JSON${what === '' ? '' : `: ${what}`}.`);
}

function countedBody(request: Request, limit: number, fetchAPI: FetchAPI, gzip: boolean): Request {
  const raw = request.body ?? null;
  if (raw === null) return request;
  // A native stream needs the native TransformStream, the ponyfill's its own (graphql-yoga#4583).
  const native = raw instanceof ReadableStream;
  const Transform = native ? globalThis.TransformStream : fetchAPI.TransformStream;
  const Decompression = native ? globalThis.DecompressionStream : fetchAPI.DecompressionStream;
  const body: ReadableStream<Uint8Array> = gzip ? raw.pipeThrough(new Decompression('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>) : raw;
  let bytesRead = 0;
  const counted = body.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytesRead += chunk.byteLength;
        if (bytesRead > limit) {
          controller.error(requestBodyTooLarge());
          return;
        }
        controller.enqueue(chunk);
      },
    }),
  );
  const headers = new fetchAPI.Headers(request.headers);
  if (gzip) {
    headers.delete('content-encoding');
    headers.delete('content-length');
  }
  return new fetchAPI.Request(request.url, { method: request.method, headers, signal: request.signal, body: counted, duplex: 'half' } as RequestInit);
}

/** Cross-site "simple" requests (no preflight) could come from any web page: they must show a custom header. */
const NON_PREFLIGHTED_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'x-requested-with', 'apollo-require-preflight'] as const;

/** @graphql-yoga/plugin-csrf-prevention's rule, with a refusal that says what to send instead. */
export function useCsrfPrevention(): Plugin<Context> {
  return {
    onRequestParse({ request }) {
      const type = request.headers.get('content-type')?.toLowerCase() ?? null;
      const preflighted = type !== null && !NON_PREFLIGHTED_TYPES.some((t) => type.startsWith(t));
      if (preflighted || CSRF_HEADERS.some((h) => request.headers.has(h))) return;
      throw createGraphQLError(
        `Refused as a possible cross-site request forgery: send the request with Content-Type: application/json, or add one of the headers ${CSRF_HEADERS.join(', ')} (any value).`,
        { extensions: { http: { status: 403 }, code: ErrorCode.CSRF_HEADER_REQUIRED } },
      );
    },
  };
}
