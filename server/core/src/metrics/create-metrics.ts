import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CoreConfig } from '../config.js';
import type { CostBudget } from '../cost-budget.js';
import type { Logger } from '../logger.js';
import { methodLabel, outcomeLabel, statusLabel, uriLabel } from '../http-labels.js';
import { MonotonicTotal } from '../monotonic-total.js';
import { DEFAULT_OPERATION_NAME_LABELS, OperationNameLabels } from '../operation-name-labels.js';
import type { OperationNameLimits } from '../operation-name-labels.js';
import { countExactLimitOf } from '../count-limit.js';
import type { IngestionStats, Reader } from '../reader.js';
import { StatusCountsCache } from '../status-counts-cache.js';
import { withTimeout } from '../timeout.js';
import { WindowMax } from '../window-max.js';

/**
 * What a backend may report beyond IngestionStats: instances per status (served instances only). Read when
 * present, so a backend can add it without a change here.
 */
type IngestionStatsWithStatus = IngestionStats & { readonly instancesByStatus?: Readonly<Record<string, number>> };

export interface AppMetrics {
  readonly registry: Registry;
  /** `route` as routeLabel gives it (`other` for any path that is not a route). */
  observeHttp(method: string, route: string, status: number, seconds: number): void;
  observeOperation(operationType: string | null, operationName: string | null, seconds: number, errorCodes: readonly string[]): void;
  /** The outcome of the last readiness evaluation (the probes'), exported as workflow_index_ready. */
  observeReadiness(up: boolean): void;
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

  // Micrometer's names and labels (Quarkus' http_server_requests_seconds), with buckets for quantiles.
  const http = new Histogram({
    name: 'http_server_requests_seconds',
    help: 'HTTP request duration until the response headers, by method, uri (route template), status and outcome.',
    labelNames: ['method', 'uri', 'status', 'outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const httpMax = new WindowMax(60_000, now);
  new Gauge({
    name: 'http_server_requests_seconds_max',
    help: 'Longest HTTP request of the last one to two minutes, by method, uri, status and outcome (Micrometer _max).',
    labelNames: ['method', 'uri', 'status', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, value } of httpMax.values()) this.set(labels, value);
    },
  });
  const operations = new Histogram({
    name: 'graphql_operation_duration_seconds',
    help: 'GraphQL request duration (parse, validate, execute, serialize), by operation type and name; unknown type when the document does not parse.',
    labelNames: ['operation_type', 'operation_name'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const errors = new Counter({
    name: 'graphql_errors_total',
    help: 'GraphQL errors returned to clients, by operation type and name and error code.',
    labelNames: ['operation_type', 'operation_name', 'code'],
    registers: [registry],
  });
  const errorLabelSets = new Map<string, Set<string>>();
  const names = new OperationNameLabels({
    ...DEFAULT_OPERATION_NAME_LABELS,
    ...deps.operationNames,
    now,
    onRelease(name) {
      for (const operationType of ['query', 'mutation', 'subscription', 'unknown']) operations.remove({ operation_type: operationType, operation_name: name });
      for (const key of errorLabelSets.get(name) ?? []) {
        const [operationType, code] = JSON.parse(key) as [string, string];
        errors.remove({ operation_type: operationType, operation_name: name, code });
      }
      errorLabelSets.delete(name);
    },
  });
  const ready = new Gauge({
    name: 'workflow_index_ready',
    help: 'Outcome of the last readiness evaluation (the readiness probe): 1 UP, 0 DOWN; 0 before the first probe.',
    registers: [registry],
  });
  ready.set(0);

  new Gauge({
    name: 'workflow_index_pool_connections',
    help: 'Backend connection pool: total, idle and waiting (requests queued for a connection).',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = reader.poolStats();
      this.reset();
      if (stats === null) return;
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });

  const budget = deps.costBudget;
  if (budget !== undefined) {
    new Gauge({
      name: 'workflow_index_cost_rows',
      help: 'Server-wide budget of rows in flight (GRAPHQL_MAX_COST_IN_FLIGHT, 0 = no bound): rows held by running requests (in_flight), rows of the requests waiting for room (waiting), and the budget (capacity).',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        this.set({ state: 'in_flight' }, budget.inFlight);
        this.set({ state: 'waiting' }, budget.waitingRows);
        this.set({ state: 'capacity' }, budget.capacity);
      },
    });
    new Gauge({
      name: 'workflow_index_cost_waiting_requests',
      help: 'Requests waiting for room in the budget of rows in flight (GRAPHQL_MAX_COST_IN_FLIGHT).',
      registers: [registry],
      collect() {
        this.set(budget.waiting);
      },
    });
  }

  // Every ingestion gauge is collected in the same scrape: share one bounded backend call.
  let inflight: Promise<IngestionStats | null> | null = null;
  let last: IngestionStats | null = null;
  const stats = (): Promise<IngestionStats | null> => {
    inflight ??= withTimeout(reader.ingestionStats(), config.metrics.backendTimeoutMs, 'ingestion statistics')
      .then((s) => {
        last = s;
        return s;
      })
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'metrics: ingestion statistics unavailable; reporting the last values');
        return null;
      })
      .finally(() => {
        inflight = null;
      });
    return inflight;
  };
  const ingestionGauge = (name: string, help: string, pick: (s: IngestionStats) => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        await stats();
        if (last !== null) this.set(pick(last));
      },
    });
  };

  new Gauge({
    name: 'workflow_index_ingestion_stats_up',
    help: '1 when the last scrape could read ingestion statistics from the backend in time, else 0.',
    registers: [registry],
    async collect() {
      this.set((await stats()) === null ? 0 : 1);
    },
  });
  new Gauge({
    name: 'workflow_index_raw_events',
    help: 'Raw events stored, per raw store.',
    labelNames: ['store'],
    registers: [registry],
    async collect() {
      await stats();
      if (last === null) return;
      this.reset();
      for (const [store, count] of Object.entries(last.rawEvents)) this.set({ store }, count);
    },
  });
  const ingestErrors = new MonotonicTotal();
  new Counter({
    name: 'workflow_index_ingest_errors_total',
    help: 'Events the normalizer could not apply (kept in the raw store, see the ingest errors table): the backend\'s running count, never decreasing (a prune or rebuild that lowers it starts a new baseline).',
    registers: [registry],
    async collect() {
      await stats();
      if (last === null) return;
      const total = ingestErrors.observe(last.ingestErrors);
      // A counter only has inc(): move it to the derived total.
      this.reset();
      this.inc(total);
    },
  });
  ingestionGauge('workflow_index_newest_event_timestamp_seconds', 'Newest event time among normalized rows, unix seconds (0 when there is none).', (s) =>
    s.newestEventTime === null ? 0 : Date.parse(s.newestEventTime) / 1000 + microsRemainder(s.newestEventTime),
  );
  ingestionGauge('workflow_index_placeholder_instances', 'Instances with events but no workflow.started yet (not served).', (s) => s.placeholderInstances);
  ingestionGauge('workflow_index_instances', 'Workflow instances served.', (s) => s.instances);
  ingestionGauge('workflow_index_task_executions', 'Task executions stored.', (s) => s.taskExecutions);
  // The per-status counts of workflowInstanceStatusCounts (exact up to COUNT_EXACT_LIMIT, the backend's estimate
  // above), read at most every STATUS_COUNTS_MAX_AGE_MS and within METRICS_BACKEND_TIMEOUT_MS; a backend without
  // them may still report instancesByStatus with its ingestion statistics.
  const statusCounts = new StatusCountsCache(reader, {
    exactLimit: countExactLimitOf(config),
    timeoutMs: config.metrics.backendTimeoutMs,
    onError: (error) => logger.warn({ err: error }, 'metrics: instances by status unavailable; reporting the last values'),
  });
  new Gauge({
    name: 'workflow_index_instances_by_status',
    help: 'Workflow instances served, by status: exact up to COUNT_EXACT_LIMIT per status, the backend\'s estimate above; refreshed at most every 15 s.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counted = await statusCounts.get();
      let byStatus: Readonly<Record<string, number>> | undefined = counted ?? undefined;
      if (byStatus === undefined) {
        await stats();
        byStatus = (last as IngestionStatsWithStatus | null)?.instancesByStatus;
      }
      if (byStatus === undefined) return;
      this.reset();
      for (const [status, count] of Object.entries(byStatus)) this.set({ status }, count);
    },
  });

  return {
    registry,
    observeHttp(method, route, status, seconds) {
      const labels = { method: methodLabel(method), uri: uriLabel(route, status), status: statusLabel(status), outcome: outcomeLabel(status) };
      http.observe(labels, seconds);
      httpMax.observe(labels, seconds);
    },
    observeOperation(operationType, operationName, seconds, errorCodes) {
      const name = operationName === null ? 'anonymous' : names.of(operationName);
      const labels = { operation_type: operationType ?? 'unknown', operation_name: name };
      operations.observe(labels, seconds);
      for (const code of errorCodes) {
        errors.inc({ ...labels, code });
        if (name === 'anonymous' || name === 'other') continue;
        const sets = errorLabelSets.get(name) ?? new Set<string>();
        sets.add(JSON.stringify([labels.operation_type, code]));
        errorLabelSets.set(name, sets);
      }
    },
    observeReadiness(up) {
      ready.set(up ? 1 : 0);
    },
  };
}

/** Date.parse keeps milliseconds; add the microseconds it drops. */
function microsRemainder(timestamp: string): number {
  const fraction = /\.(\d+)Z$/.exec(timestamp)?.[1] ?? '';
  const micros = fraction.padEnd(6, '0').slice(3, 6);
  return Number(micros) / 1_000_000;
}
