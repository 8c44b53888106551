// /q/metrics of a server of several processes: a scrape reaches one worker, which asks the primary; the primary
// collects every worker's registry (prom-client's AggregatorRegistry over the cluster's IPC channel) and merges each
// metric by its `aggregator`: sums for counters, histograms and per-process gauges, the first answer for values read
// from the backend (the same in every process), min for readiness, max for uptimes and windows' maxima.
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import { isProcessMessage, type MetricsRequestMessage, type MetricsResponseMessage } from './process-messages.js';

/** How long a worker waits for the primary's aggregate (prom-client's own collection gives up after 5 s). */
export const CLUSTER_METRICS_TIMEOUT_MS = 10_000;

/** Primary: answers each worker's request with the whole server's exposition text. */
export function clusterMetricsResponder(logger: Logger): (worker: Worker, request: MetricsRequestMessage) => void {
  const aggregator = new AggregatorRegistry();
  return (worker, request) => {
    const reply = (answer: Omit<MetricsResponseMessage, 'type' | 'id'>): void => {
      if (!worker.isConnected()) return;
      worker.send({ type: 'wi:metrics-response', id: request.id, ...answer } satisfies MetricsResponseMessage);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => {
        logger.warn({ err: error }, 'collecting the server processes\' metrics failed');
        reply({ error: error instanceof Error ? error.message : String(error) });
      },
    );
  };
}

/**
 * Worker: from the start, answers the primary's collection requests (a worker still starting answers with an empty
 * registry instead of making the scrape wait); once the registry exists, it is what the worker answers with.
 */
export function answerClusterCollection(registry?: Registry): void {
  if (registry !== undefined) AggregatorRegistry.setRegistries([registry]);
  // The constructor installs prom-client's listener for the primary's requests (once per process).
  new AggregatorRegistry();
}

/** Worker: the whole server's metrics text, asked of the primary. */
export function workerMetricsText(registry: Registry, timeoutMs = CLUSTER_METRICS_TIMEOUT_MS): () => Promise<string> {
  answerClusterCollection(registry);
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (!isProcessMessage(message, 'wi:metrics-response')) return;
    const waiter = pending.get(message.id);
    if (waiter === undefined) return;
    pending.delete(message.id);
    if (message.text !== undefined) waiter.resolve(message.text);
    else waiter.reject(new Error(`server processes' metrics: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`server processes' metrics: no answer from the primary within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      process.send?.({ type: 'wi:metrics-request', id } satisfies MetricsRequestMessage);
    });
}

/** True in a worker of a server of several processes. */
export function isServerWorker(): boolean {
  return cluster.isWorker;
}
