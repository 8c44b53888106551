import type { Registry } from 'prom-client';
import { isServerWorker, workerMetricsText } from '../processes/cluster-metrics.js';
import { text } from './responses.js';
import { readRoute } from './route-table.js';
import type { Route } from './route-table.js';

/** /q/metrics: the registry in Prometheus text (a worker of several server processes: all of theirs), never cached. */
export function metricsRoute(registry: Registry): Route {
  const exposition = isServerWorker() ? workerMetricsText(registry) : () => registry.metrics();
  return readRoute(async () => text(200, await exposition(), { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }));
}
