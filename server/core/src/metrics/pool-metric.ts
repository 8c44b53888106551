import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Reader } from '../reader.js';

/** The backend's connection pool, read at each scrape; no series for a backend without one. */
export function poolMetric(registry: Registry, reader: Reader): void {
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
}
