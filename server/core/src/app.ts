// app.ts builds, main.ts runs: this factory takes a frozen config and a Reader, opens no sockets and reads no
// process.env. Tests drive it in-process through fetch(). Each HTTP concern is a module of http/; the route table
// below says which path each serves.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { createAuthenticator } from './auth/authenticator.js';
import type { CoreConfig } from './config.js';
import { CONSOLE_PATH } from './console-assets.js';
import { CostBudget } from './cost-budget.js';
import { GRAPHQL_ENDPOINT, buildSchema, createGraphQLServer } from './graphql-server.js';
import { consoleRoutes } from './http/console-routes.js';
import { EXPORT_PATH, exportRoute } from './http/export-route.js';
import type { ExportDeps } from './http/export-route.js';
import { createFetchHandler } from './http/fetch-handler.js';
import type { ClientInfo } from './http/fetch-handler.js';
import { graphqlRoute } from './http/graphql-endpoint.js';
import type { GraphQLEndpoint } from './http/graphql-endpoint.js';
import { healthRoutes } from './http/health-routes.js';
import type { HealthDeps } from './http/health-routes.js';
import { metricsRoute } from './http/metrics-route.js';
import { createNodeRequestHandler } from './http/node-request-handler.js';
import { PerClientLimit } from './http/per-client-limit.js';
import { queryPages } from './http/query-pages.js';
import { requestRecorder } from './http/request-log.js';
import { routeTable } from './http/route-table.js';
import type { RouteTable } from './http/route-table.js';
import type { Logger } from './logger.js';
import { createMetrics } from './metrics/create-metrics.js';
import type { Reader } from './reader.js';
import type { ChangeFeed } from './live/change-feed.js';
import { LiveHub } from './live/live-hub.js';
import { SubscriptionSlots } from './live/subscription-slots.js';
import { loadSchemaSdl } from './schema-sdl.js';

export type { ClientInfo } from './http/fetch-handler.js';

export interface App {
  /** Answers one request in-process (no sockets); without a client address, requests are not counted per client. */
  fetch(request: Request, client?: ClientInfo): Promise<Response>;
  /** The same, for node:http / node:https servers. */
  handleNodeRequest(req: IncomingMessage, res: ServerResponse): void;
  readonly registry: Registry;
  readonly config: CoreConfig;
  readonly logger: Logger;
  /** From now on readiness reports DOWN, so load balancers stop routing here (graceful shutdown). */
  startDraining(): void;
  /** Releases what the app holds; the reader is the caller's to close. */
  dispose(): Promise<void>;
}

export interface AppOptions {
  readonly config: CoreConfig;
  readonly reader: Reader;
  readonly logger: Logger;
  /** Backend name, e.g. `postgresql`: a metrics label and health data. */
  readonly backend: string;
  /** What the backend's write path says changed (live/change-feed.ts); absent or null: subscriptions are refused. */
  readonly changeFeed?: ChangeFeed | null;
}

export function createApp(options: AppOptions): App {
  const { config, reader, logger, backend } = options;
  const startedAt = Date.now();
  const sdl = loadSchemaSdl();
  const schema = buildSchema(sdl, config);
  const costBudget = new CostBudget(config.graphql.maxCostInFlight, config.graphql.costQueueTimeoutMs);
  const metrics = createMetrics({ config, reader, logger, backend, costBudget });
  const feed = options.changeFeed ?? null;
  const liveHub = feed === null ? null : new LiveHub({ feed, logger, registry: metrics.registry, snapshotLimit: config.graphql.defaultLimit });
  const { yoga, hot } = createGraphQLServer({ config, reader, logger, schema, costBudget, liveHub });
  const endpoint: GraphQLEndpoint = { config, yoga, hot, costBudget, auth: createAuthenticator(config.auth, logger) };
  let draining = false;
  const health: HealthDeps = { config, reader, backend, startedAt, draining: () => draining, observeReadiness: (up) => metrics.observeReadiness(up) };
  const perClient = new PerClientLimit(config.http);
  const routes = appRoutes({ config, sdl, endpoint, health, registry: metrics.registry, exports: { config, logger, reader, schema, endpoint, perClient } });
  const record = requestRecorder(metrics, logger);
  const sse = { endpoint, perClient, record, logger, hub: liveHub, slots: new SubscriptionSlots(config.graphql.maxSubscriptions, config.graphql.maxSubscriptionsPerClient) };
  const fetch = createFetchHandler({ config, logger, routes, endpoint, perClient, record, sse });
  return {
    fetch,
    handleNodeRequest: createNodeRequestHandler({ endpoint, perClient, record, logger, fetch, sse }),
    registry: metrics.registry,
    config,
    logger,
    startDraining() {
      draining = true;
      // Every event stream ends cleanly (`complete`), so the server's close does not wait for them.
      liveHub?.endAll();
    },
    async dispose() {
      await liveHub?.close();
      await yoga.dispose();
      metrics.registry.clear();
    },
  };
}

interface RouteDeps {
  readonly config: CoreConfig;
  readonly sdl: string;
  readonly endpoint: GraphQLEndpoint;
  readonly health: HealthDeps;
  readonly registry: Registry;
  readonly exports: ExportDeps;
}

/** path → methods → handler; a null route is not served in this configuration (404). */
function appRoutes(deps: RouteDeps): RouteTable {
  const pages = queryPages(deps.config, deps.sdl);
  const consolePages = consoleRoutes(deps.config);
  const health = healthRoutes(deps.health);
  return routeTable(
    {
      [GRAPHQL_ENDPOINT]: graphqlRoute(deps.endpoint),
      '/graphql/schema.graphql': pages.schema,
      '/q/graphql-ui': pages.ui,
      '/docs': pages.docs,
      '/': consolePages.page,
      [CONSOLE_PATH]: consolePages.page,
      '/q/health': health.all,
      '/q/health/live': health.live,
      '/q/health/ready': health.ready,
      '/q/metrics': metricsRoute(deps.registry),
      [EXPORT_PATH]: exportRoute(deps.exports),
    },
    [consolePages.assets, pages.uiAssets],
  );
}
