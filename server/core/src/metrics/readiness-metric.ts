import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** The outcome of the last readiness evaluation (the probes'), exported as workflow_index_ready. */
export type ObserveReadiness = (up: boolean) => void;

export function readinessMetric(registry: Registry): ObserveReadiness {
  const ready = new Gauge({
    name: 'workflow_index_ready',
    aggregator: 'min',
    help: 'Outcome of the last readiness evaluation (the readiness probe): 1 UP, 0 DOWN; 0 before the first probe.',
    registers: [registry],
  });
  ready.set(0);
  return (up) => ready.set(up ? 1 : 0);
}
