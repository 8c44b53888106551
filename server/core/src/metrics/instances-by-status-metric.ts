// The per-status counts of workflowInstanceStatusCounts (exact up to COUNT_EXACT_LIMIT, the backend's estimate
// above), read at most every STATUS_COUNTS_MAX_AGE_MS and within METRICS_BACKEND_TIMEOUT_MS; no series until the
// backend has answered once.
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { CoreConfig } from '../config.js';
import { countExactLimitOf } from '../count-limit.js';
import type { Logger } from '../logger.js';
import type { Reader } from '../reader.js';
import { StatusCountsCache } from '../status-counts-cache.js';

export function instancesByStatusMetric(registry: Registry, deps: { readonly config: CoreConfig; readonly reader: Reader; readonly logger: Logger }): void {
  const { config, logger } = deps;
  const statusCounts = new StatusCountsCache(deps.reader, {
    exactLimit: countExactLimitOf(config),
    timeoutMs: config.metrics.backendTimeoutMs,
    onError: (error) => logger.warn({ err: error }, 'metrics: instances by status unavailable; reporting the last values'),
  });
  new Gauge({
    name: 'workflow_index_instances_by_status',
    aggregator: 'first',
    help: 'Workflow instances served, by status: exact up to COUNT_EXACT_LIMIT per status, the backend\'s estimate above; refreshed at most every 15 s.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const byStatus = await statusCounts.get();
      if (byStatus === null) return;
      this.reset();
      for (const [status, count] of Object.entries(byStatus)) this.set({ status }, count);
    },
  });
}
