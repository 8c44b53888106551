// /q/metrics: one registry with the process metrics and one module per domain, registered in the order they are
// exported (Micrometer's process and system gauges, HTTP, GraphQL operations, readiness, backend pool, cost budget,
// ingestion).
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { CoreConfig } from '../config.js';
import type { CostBudget } from '../cost-budget.js';
import type { Logger } from '../logger.js';
import type { OperationNameLimits } from '../operation-name-labels.js';
import type { Reader } from '../reader.js';
import { authRefusalsMetric } from './auth-refusals-metric.js';
import { costBudgetMetrics } from './cost-budget-metrics.js';
import { graphqlOperationMetrics } from './graphql-operation-metrics.js';
import { httpMetrics } from './http-metrics.js';
import { ingestionMetrics } from './ingestion-metrics.js';
import { replicationLagMetric } from './replication-lag-metric.js';
import { IngestionStatsScrape } from './ingestion-stats-scrape.js';
import { instancesByStatusMetric } from './instances-by-status-metric.js';
import { poolMetric } from './pool-metric.js';
import { readinessMetric } from './readiness-metric.js';
import { systemMetrics } from './system-metrics.js';

export interface AppMetrics {
  readonly registry: Registry;
  /** `route` as routeLabel gives it (`other` for any path that is not a route). */
  observeHttp(method: string, route: string, status: number, seconds: number): void;
  observeOperation(operationType: string | null, operationName: string | null, seconds: number, errorCodes: readonly string[]): void;
  /** The outcome of the last readiness evaluation (the probes'), exported as workflow_index_ready. */
  observeReadiness(up: boolean): void;
  /** A request refused for its credentials (AUTH_MODE=oidc), by reason: workflow_index_auth_refusals_total. */
  observeAuthRefusal(reason: string): void;
}

export interface MetricsDeps {
  readonly config: CoreConfig;
  readonly reader: Reader;
  readonly logger: Logger;
  readonly backend: string;
  /** Milliseconds for the time windows (operation-name slots, `_max`); tests pass their own clock. */
  readonly now?: () => number;
  readonly operationNames?: Partial<OperationNameLimits>;
  /** GRAPHQL_MAX_COST_IN_FLIGHT, exported as workflow_index_cost_rows and workflow_index_cost_waiting_requests. */
  readonly costBudget?: CostBudget;
}

export function createMetrics(deps: MetricsDeps): AppMetrics {
  const { config, reader, logger } = deps;
  const now = deps.now ?? (() => performance.now());
  const registry = new Registry();
  registry.setDefaultLabels({ backend: deps.backend });
  collectDefaultMetrics({ register: registry });
  systemMetrics(registry);
  const http = httpMetrics(registry, now);
  const operations = graphqlOperationMetrics(registry, now, deps.operationNames);
  const observeReadiness = readinessMetric(registry);
  const observeAuthRefusal = authRefusalsMetric(registry);
  poolMetric(registry, reader);
  if (deps.costBudget !== undefined) costBudgetMetrics(registry, deps.costBudget);
  const scrape = new IngestionStatsScrape(reader, config, logger);
  ingestionMetrics(registry, scrape);
  replicationLagMetric(registry, scrape);
  instancesByStatusMetric(registry, { config, reader, logger });
  return {
    registry,
    observeHttp: (method, route, status, seconds) => http.observe(method, route, status, seconds),
    observeOperation: (operationType, operationName, seconds, errorCodes) => operations.observe(operationType, operationName, seconds, errorCodes),
    observeReadiness,
    observeAuthRefusal,
  };
}
