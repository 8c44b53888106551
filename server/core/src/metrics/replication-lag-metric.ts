// The replay lag of the streaming replica the backend reads from (IngestionStats.replicationLagSeconds), read at
// each scrape through the shared ingestion-statistics call. Absent (no sample) when the backend is not a replica
// or the statistics could not be read, so an alert on it never fires for a primary. (The role="standby" label is what
// lets it be absent: prom-client always reports a label-less gauge, as 0 after a reset.)
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { IngestionStatsScrape } from './ingestion-stats-scrape.js';

export function replicationLagMetric(registry: Registry, scrape: IngestionStatsScrape): void {
  new Gauge({
    name: 'workflow_index_replication_lag_seconds',
    aggregator: 'max',
    help: 'Seconds the streaming replica the server reads from is behind its primary (0 when it replayed all it received); absent on a primary.',
    labelNames: ['role'],
    registers: [registry],
    async collect() {
      await scrape.read();
      const lag = scrape.last?.replicationLagSeconds ?? null;
      this.reset();
      if (lag !== null) this.set({ role: 'standby' }, lag);
    },
  });
}
