// HTTP requests under Micrometer's names and labels (Quarkus' http_server_requests_seconds), so dashboards written
// for the Java Data Index keep working: a histogram with buckets for quantiles, and its `_max`.
import { Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { methodLabel, outcomeLabel, statusLabel, uriLabel } from '../http-labels.js';
import { WindowMax } from '../window-max.js';

const LABELS = ['method', 'uri', 'status', 'outcome'] as const;

export interface HttpMetrics {
  /** `route` as routeLabel gives it (`other` for any path that is not a route). */
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function httpMetrics(registry: Registry, now: () => number): HttpMetrics {
  const durations = new Histogram({
    name: 'http_server_requests_seconds',
    help: 'HTTP request duration until the response headers, by method, uri (route template), status and outcome.',
    labelNames: LABELS,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const max = new WindowMax(60_000, now);
  new Gauge({
    name: 'http_server_requests_seconds_max',
    aggregator: 'max',
    help: 'Longest HTTP request of the last one to two minutes, by method, uri, status and outcome (Micrometer _max).',
    labelNames: LABELS,
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, value } of max.values()) this.set(labels, value);
    },
  });
  return {
    observe(method, route, status, seconds) {
      const labels = { method: methodLabel(method), uri: uriLabel(route, status), status: statusLabel(status), outcome: outcomeLabel(status) };
      durations.observe(labels, seconds);
      max.observe(labels, seconds);
    },
  };
}
