// The per-status counts of workflowInstanceStatusCounts (exact up to COUNT_EXACT_LIMIT, the backend's estimate
// above), read at most every STATUS_COUNTS_MAX_AGE_MS and within METRICS_BACKEND_TIMEOUT_MS; a backend without
// them may still report instancesByStatus with its ingestion statistics.
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { CoreConfig } from '../config.js';
import { countExactLimitOf } from '../count-limit.js';
import type { Logger } from '../logger.js';
import type { IngestionStats, Reader } from '../reader.js';
import { StatusCountsCache } from '../status-counts-cache.js';
import type { IngestionStatsScrape } from './ingestion-stats-scrape.js';

/** What a backend may report beyond IngestionStats: read when present, so a backend can add it without a change here. */
type IngestionStatsWithStatus = IngestionStats & { readonly instancesByStatus?: Readonly<Record<string, number>> };

export function instancesByStatusMetric(registry: Registry, deps: { readonly config: CoreConfig; readonly reader: Reader; readonly logger: Logger; readonly scrape: IngestionStatsScrape }): void {
  const { config, logger, scrape } = deps;
  const statusCounts = new StatusCountsCache(deps.reader, {
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
      let byStatus: Readonly<Record<string, number>> | undefined = (await statusCounts.get()) ?? undefined;
      if (byStatus === undefined) {
        await scrape.read();
        byStatus = (scrape.last as IngestionStatsWithStatus | null)?.instancesByStatus;
      }
      if (byStatus === undefined) return;
      this.reset();
      for (const [status, count] of Object.entries(byStatus)) this.set({ status }, count);
    },
  });
}
