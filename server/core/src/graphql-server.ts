import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { createSchema, createYoga } from 'graphql-yoga';
import type { GraphQLSchema } from 'graphql';
import type { YogaLogger, YogaServerInstance } from 'graphql-yoga';
import { NO_ACCESS } from './auth/access.js';
import { scopedReader } from './auth/scoped-reader.js';
import { boundedReader } from './bounded-reader.js';
import { ConfigError, type CoreConfig } from './config.js';
import { useCompiledExecution } from './compiled-execution.js';
import { createHotAnswer, HotOperations } from './hot-operations.js';
import type { HotAnswer } from './hot-operations.js';
import { useRootFieldOrder } from './root-field-order.js';
import { UNEXPECTED_ERROR_MESSAGE } from './errors.js';
import type { CostBudget } from './cost-budget.js';
import type { CostSettings } from './query-cost.js';
import { maskUnexpectedError, useCsrfPrevention, useErrorPolicy, useOperationFacts, useQueryCost, useQueryLimits, useReadOnlyOperations, useRequestBodyLimit, useShorthandFilters, useVariablesDepthLimit } from './graphql-plugins.js';
import type { Logger } from './logger.js';
import type { LiveHub } from './live/live-hub.js';
import { useEventStreamResults } from './live/event-stream-results.js';
import type { Reader } from './reader.js';
import type { RequestState, ServerContext } from './request-state.js';
import { createResolvers } from './resolvers.js';
import type { ResolverContext } from './resolvers.js';
import { TaskLoaders } from './task-loader.js';
import { activeTracing } from './tracing.js';
import { useTracing } from './tracing-graphql.js';
import { tracedReader } from './tracing-reader.js';

export const GRAPHQL_ENDPOINT = '/graphql';

export type GraphQLServer = YogaServerInstance<ServerContext, ResolverContext>;

export function buildSchema(sdl: string, config: CoreConfig): GraphQLSchema {
  return createSchema<ResolverContext>({ typeDefs: sdl, resolvers: createResolvers({ config }) });
}

function yogaLogger(logger: Logger): YogaLogger {
  const child = logger.child({ component: 'graphql-yoga' });
  // Yoga logs free-form arguments; pino wants a message first.
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]): void => {
      // Yoga logs three debug lines per request: below the level, nothing is built.
      if (!child.isLevelEnabled(level)) return;
      const [first, ...rest] = args;
      if (first instanceof Error) child[level]({ err: first, details: rest }, first.message);
      else child[level]({ details: rest.length > 0 ? rest : undefined }, String(first));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * The query cost's settings: the configured limits and the backend's work prices. A page at the maximum limit must fit
 * the budget with its statement, or it could never run.
 */
function costSettingsOf(config: CoreConfig, reader: Reader): CoreConfig['graphql'] & CostSettings {
  const prices = reader.workPrices;
  const { maxCost, maxLimit } = config.graphql;
  if (maxCost < maxLimit + prices.statement) {
    throw new ConfigError([
      `GRAPHQL_MAX_COST (${maxCost}) must be at least GRAPHQL_MAX_LIMIT (${maxLimit}) plus what a statement costs on the ${reader.backendName} backend (${prices.statement}), ${maxLimit + prices.statement}: below it a page at the maximum limit could never run`,
    ]);
  }
  return { ...config.graphql, prices };
}

interface GraphQLServerDeps {
  readonly config: CoreConfig;
  readonly reader: Reader;
  readonly logger: Logger;
  readonly schema: GraphQLSchema;
  /** GRAPHQL_MAX_COST_IN_FLIGHT, shared by the app's requests; whoever passes it releases requestState.costHeld. */
  readonly costBudget?: CostBudget;
  /** The app's subscriptions; absent or null: subscriptions are refused (no change feed). */
  readonly liveHub?: LiveHub | null;
}

/**
 * The GraphQL endpoint only: routing, UI, health and metrics live in app.ts and http/, which hand
 * POST /graphql requests to this instance. `hot`: the answer of hot requests without yoga (hot-operations.ts),
 * null when compiled execution is off or tracing is on (a request's spans are yoga's plugin's).
 */
export function createGraphQLServer(deps: GraphQLServerDeps): { readonly yoga: GraphQLServer; readonly hot: HotAnswer | null } {
  const { config, reader, logger, schema } = deps;
  const introspectionOff = config.graphql.introspection !== 'DEFAULT';
  // Tracing is decided once, at start-up: with it off, requests run without a span plugin or a wrapped reader.
  const tracer = activeTracing();
  const backendReader = tracer === null ? reader : tracedReader(reader, tracer, reader.backendName);
  // The subject's view (auth/scoped-reader.ts) over the bounded one: its own lookups count in the request's reads.
  const context = (state: RequestState | undefined): Omit<ResolverContext, 'params'> => {
    const bounded = boundedReader(backendReader, config.graphql.maxConcurrentReads);
    // With sign-in on, a request without verified credentials (none reach here through the transports) reads nothing.
    const access = state?.access ?? (config.auth.mode === 'none' ? null : NO_ACCESS);
    const reader = access === null ? bounded : scopedReader(bounded, access);
    return { reader, loaders: new TaskLoaders(reader), liveHub: deps.liveHub ?? null };
  };
  const hot = config.graphql.compiledExecution && tracer === null ? new HotOperations() : null;
  const costSettings = costSettingsOf(config, reader);
  const yoga = createYoga<ServerContext, ResolverContext>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    context: (initial) => context(initial.requestState),
    logging: yogaLogger(logger),
    graphiql: false,
    landingPage: false,
    cors: false,
    multipart: false,
    batching: false,
    // Enforced by useRequestBodyLimit, with the same errors.
    maxRequestBodySize: false,
    maskedErrors: { maskError: maskUnexpectedError(logger), errorMessage: UNEXPECTED_ERROR_MESSAGE, isDev: false },
    plugins: [
      // First: its onExecute replaces the executor itself, and every later onExecute wraps that (tracing runs it
      // in the request's span, useShorthandFilters passes it the expanded variables).
      ...(config.graphql.compiledExecution ? [useCompiledExecution(schema, undefined, undefined, hot)] : []),
      // The request's span covers every other plugin's work, refusals included.
      ...(tracer === null ? [] : [useTracing(tracer)]),
      useCsrfPrevention(),
      useOperationFacts(),
      useVariablesDepthLimit(config.graphql.maxFilterDepth),
      useQueryLimits(config.graphql),
      useReadOnlyOperations(),
      // Before useShorthandFilters, whose onExecute already works on the variables.
      useQueryCost(costSettings, deps.costBudget ?? null),
      useShorthandFilters(schema),
      useErrorPolicy(logger),
      useEventStreamResults(config.graphql.subscriptionHeartbeatMs),
      useRootFieldOrder(),
      ...(introspectionOff ? [useDisableIntrospection()] : []),
      // Last: after every request parser is registered, so it wraps the one selected.
      useRequestBodyLimit(config.http.maxBodyBytes),
    ],
  });
  return {
    yoga,
    hot: hot === null ? null : createHotAnswer({ hot, schema, graphqlConfig: costSettings, costBudget: deps.costBudget ?? null, context }),
  };
}
