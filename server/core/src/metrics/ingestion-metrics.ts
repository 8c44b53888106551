// What the backend has ingested, read at each scrape through one shared call (IngestionStatsScrape): whether it
// could be read, raw events per store, ingest errors as a counter, the newest event and the row counts.
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { MonotonicTotal } from '../monotonic-total.js';
import type { IngestionStats } from '../reader.js';
import type { IngestionStatsScrape } from './ingestion-stats-scrape.js';

export function ingestionMetrics(registry: Registry, scrape: IngestionStatsScrape): void {
  new Gauge({
    name: 'workflow_index_ingestion_stats_up',
    aggregator: 'min',
    help: '1 when the last scrape could read ingestion statistics from the backend in time, else 0.',
    registers: [registry],
    async collect() {
      this.set((await scrape.read()) === null ? 0 : 1);
    },
  });
  rawEventsMetric(registry, scrape);
  ingestErrorsMetric(registry, scrape);
  const gauge = (name: string, help: string, pick: (s: IngestionStats) => number): void => ingestionGauge(registry, scrape, name, help, pick);
  gauge('workflow_index_newest_event_timestamp_seconds', 'Newest event time among normalized rows, unix seconds (0 when there is none).', (s) =>
    s.newestEventTime === null ? 0 : Date.parse(s.newestEventTime) / 1000 + microsRemainder(s.newestEventTime),
  );
  gauge('workflow_index_placeholder_instances', 'Instances with events but no workflow.started yet (not served).', (s) => s.placeholderInstances);
  gauge('workflow_index_instances', 'Workflow instances served.', (s) => s.instances);
  gauge('workflow_index_task_executions', 'Task executions stored.', (s) => s.taskExecutions);
}

function rawEventsMetric(registry: Registry, scrape: IngestionStatsScrape): void {
  new Gauge({
    name: 'workflow_index_raw_events',
    aggregator: 'first',
    help: 'Raw events stored, per raw store.',
    labelNames: ['store'],
    registers: [registry],
    async collect() {
      await scrape.read();
      if (scrape.last === null) return;
      this.reset();
      for (const [store, count] of Object.entries(scrape.last.rawEvents)) this.set({ store }, count);
    },
  });
}

function ingestErrorsMetric(registry: Registry, scrape: IngestionStatsScrape): void {
  const total = new MonotonicTotal();
  new Counter({
    name: 'workflow_index_ingest_errors_total',
    aggregator: 'max',
    help: 'Events the normalizer could not apply (kept in the raw store, see the ingest errors table): the backend\'s running count, never decreasing (a prune or rebuild that lowers it starts a new baseline).',
    registers: [registry],
    async collect() {
      await scrape.read();
      if (scrape.last === null) return;
      const value = total.observe(scrape.last.ingestErrors);
      // A counter only has inc(): move it to the derived total.
      this.reset();
      this.inc(value);
    },
  });
}

function ingestionGauge(registry: Registry, scrape: IngestionStatsScrape, name: string, help: string, pick: (s: IngestionStats) => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      await scrape.read();
      if (scrape.last !== null) this.set(pick(scrape.last));
    },
  });
}

/** Date.parse keeps milliseconds; add the microseconds it drops. */
function microsRemainder(timestamp: string): number {
  const fraction = /\.(\d+)Z$/.exec(timestamp)?.[1] ?? '';
  const micros = fraction.padEnd(6, '0').slice(3, 6);
  return Number(micros) / 1_000_000;
}
