import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CoreConfig } from './config.js';
import type { Logger } from './logger.js';
import type { IngestionStats, Reader } from './reader.js';
import { withTimeout } from './timeout.js';

/** Routes reported as metric labels: a fixed set, anything else is `other`. */
export const METRIC_ROUTES = [
  '/graphql',
  '/graphql/schema.graphql',
  '/q/graphql-ui',
  '/q/health',
  '/q/health/live',
  '/q/health/ready',
  '/q/metrics',
  '/docs',
] as const;
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']);

export function routeLabel(pathname: string): string {
  const trimmed = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  return (METRIC_ROUTES as readonly string[]).includes(trimmed) ? trimmed : 'other';
}

export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other';
}

/**
 * Operation names come from clients: keep the first few hundred distinct ones as label values
 * and report the rest as `other`, so a client cannot blow up the series count.
 */
class BoundedLabel {
  private readonly seen = new Set<string>();
  constructor(private readonly max: number) {}
  of(value: string): string {
    const v = value.slice(0, 100);
    if (this.seen.has(v)) return v;
    if (this.seen.size >= this.max) return 'other';
    this.seen.add(v);
    return v;
  }
}

export interface AppMetrics {
  readonly registry: Registry;
  observeHttp(method: string, route: string, status: number, seconds: number): void;
  observeOperation(operationType: string | null, operationName: string | null, seconds: number, errorCodes: readonly string[]): void;
}

export function createMetrics(deps: { readonly config: CoreConfig; readonly reader: Reader; readonly logger: Logger; readonly backend: string }): AppMetrics {
  const { config, reader, logger } = deps;
  const registry = new Registry();
  registry.setDefaultLabels({ backend: deps.backend });
  collectDefaultMetrics({ register: registry });

  const http = new Histogram({
    name: 'http_server_requests_seconds',
    help: 'HTTP request duration until the response headers, by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
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
  const names = new BoundedLabel(200);

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
  ingestionGauge('workflow_index_ingest_errors', 'Events the normalizer could not apply (kept in the raw store, see the ingest errors table).', (s) => s.ingestErrors);
  ingestionGauge('workflow_index_newest_event_timestamp_seconds', 'Newest event time among normalized rows, unix seconds (0 when there is none).', (s) =>
    s.newestEventTime === null ? 0 : Date.parse(s.newestEventTime) / 1000 + microsRemainder(s.newestEventTime),
  );
  ingestionGauge('workflow_index_placeholder_instances', 'Instances with events but no workflow.started yet (not served).', (s) => s.placeholderInstances);
  ingestionGauge('workflow_index_instances', 'Workflow instances served.', (s) => s.instances);
  ingestionGauge('workflow_index_task_executions', 'Task executions stored.', (s) => s.taskExecutions);

  return {
    registry,
    observeHttp(method, route, status, seconds) {
      http.observe({ method: methodLabel(method), route, status: String(status) }, seconds);
    },
    observeOperation(operationType, operationName, seconds, errorCodes) {
      const labels = { operation_type: operationType ?? 'unknown', operation_name: operationName === null ? 'anonymous' : names.of(operationName) };
      operations.observe(labels, seconds);
      for (const code of errorCodes) errors.inc({ ...labels, code });
    },
  };
}

/** Date.parse keeps milliseconds; add the microseconds it drops. */
function microsRemainder(timestamp: string): number {
  const fraction = /\.(\d+)Z$/.exec(timestamp)?.[1] ?? '';
  const micros = fraction.padEnd(6, '0').slice(3, 6);
  return Number(micros) / 1_000_000;
}
