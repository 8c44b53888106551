// /q/metrics of a server of several processes: a scrape reaches one worker, which asks the primary; the primary
// collects the registry of every started worker (a worker still loading could not answer, and would hold the scrape
// until the collection gives up) and merges them with prom-client's AggregatorRegistry.aggregate, each metric by its
// `aggregator`: sums for counters, histograms and per-process gauges, the first answer for values read from the
// backend (the same in every process), min for readiness, max for uptimes and windows' maxima.
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import {
  isProcessMessage,
  type MetricsCollectMessage,
  type MetricsPartMessage,
  type MetricsRequestMessage,
  type MetricsResponseMessage,
} from './process-messages.js';

/** How long the primary waits for the workers' registries. */
export const COLLECT_TIMEOUT_MS = 5_000;
/** How long a worker waits for the primary's answer. */
export const CLUSTER_METRICS_TIMEOUT_MS = 10_000;

type Parts = Parameters<typeof AggregatorRegistry.aggregate>[0];

interface Collection {
  readonly asker: Worker;
  readonly requestId: number;
  readonly waiting: Set<Worker>;
  readonly parts: Parts;
  readonly timer: NodeJS.Timeout;
}

/** Primary: the collections in progress, one per scrape. */
export class ClusterMetrics {
  readonly #collections = new Map<number, Collection>();
  #next = 0;

  constructor(private readonly logger: Logger, private readonly timeoutMs = COLLECT_TIMEOUT_MS) {}

  /** A worker's scrape: the registries of `members` (the started workers), merged and sent back to it. */
  collect(asker: Worker, request: MetricsRequestMessage, members: Iterable<Worker>): void {
    const id = ++this.#next;
    const waiting = new Set(members);
    const timer = setTimeout(() => this.#finish(id, `no answer from ${this.#collections.get(id)?.waiting.size ?? 0} server process(es) within ${this.timeoutMs} ms`), this.timeoutMs);
    this.#collections.set(id, { asker, requestId: request.id, waiting, parts: [], timer });
    for (const worker of waiting) send(worker, { type: 'wi:metrics-collect', id } satisfies MetricsCollectMessage);
    this.#finishIfComplete(id);
  }

  /** A worker's registry for a collection. */
  part(worker: Worker, message: MetricsPartMessage): void {
    const collection = this.#collections.get(message.id);
    if (collection === undefined || !collection.waiting.delete(worker)) return;
    if (message.error !== undefined) {
      this.#finish(message.id, message.error);
      return;
    }
    collection.parts.push((message.metrics ?? []) as Parts[number]);
    this.#finishIfComplete(message.id);
  }

  /** A worker that exited answers nothing more: the collections waiting for it go on without it. */
  gone(worker: Worker): void {
    for (const [id, collection] of this.#collections) if (collection.waiting.delete(worker)) this.#finishIfComplete(id);
  }

  #finishIfComplete(id: number): void {
    if (this.#collections.get(id)?.waiting.size === 0) this.#finish(id);
  }

  #finish(id: number, error?: string): void {
    const collection = this.#collections.get(id);
    if (collection === undefined) return;
    this.#collections.delete(id);
    clearTimeout(collection.timer);
    const reply = (answer: Omit<MetricsResponseMessage, 'type' | 'id'>): void =>
      send(collection.asker, { type: 'wi:metrics-response', id: collection.requestId, ...answer } satisfies MetricsResponseMessage);
    if (error !== undefined) {
      this.logger.warn({ reason: error }, "collecting the server processes' metrics failed");
      reply({ error });
      return;
    }
    AggregatorRegistry.aggregate(collection.parts).metrics().then(
      (text) => reply({ text }),
      (failure: unknown) => reply({ error: failure instanceof Error ? failure.message : String(failure) }),
    );
  }
}

function send(worker: Worker, message: MetricsCollectMessage | MetricsResponseMessage): void {
  if (worker.isConnected()) worker.send(message);
}

/**
 * Worker: gives its registry to the primary's collections, and returns how to get the whole server's metrics text
 * (asked of the primary).
 */
export function workerMetricsText(registry: Registry, timeoutMs = CLUSTER_METRICS_TIMEOUT_MS): () => Promise<string> {
  const pending = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (isProcessMessage(message, 'wi:metrics-collect')) {
      registry.getMetricsAsJSON().then(
        (metrics) => process.send?.({ type: 'wi:metrics-part', id: message.id, metrics } satisfies MetricsPartMessage),
        (error: unknown) => process.send?.({ type: 'wi:metrics-part', id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies MetricsPartMessage),
      );
      return;
    }
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
