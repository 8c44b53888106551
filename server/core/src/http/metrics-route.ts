import type { Registry } from 'prom-client';
import { text } from './responses.js';
import { readRoute } from './route-table.js';
import type { Route } from './route-table.js';

/** /q/metrics: the registry in Prometheus text, never cached. */
export function metricsRoute(registry: Registry): Route {
  return readRoute(async () => text(200, await registry.metrics(), { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }));
}
