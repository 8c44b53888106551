// The app's subscriptions and its one change feed: the feed runs while someone is subscribed (and a little longer,
// so clients reconnecting one by one do not restart it), each batch it delivers goes to every subscriber, and
// draining ends every stream cleanly. Metrics: the active subscriptions gauge and the pushes counter.
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { InstanceFilter, Reader } from '../reader.js';
import type { ChangeBatch, ChangeFeed } from './change-feed.js';
import type { LiveSelection } from './live-selection.js';
import { LiveSubscriber } from './live-subscriber.js';

/** How long the feed keeps running after the last subscriber left. */
export const FEED_LINGER_MS = 10_000;

export interface LiveHubOptions {
  readonly feed: ChangeFeed;
  readonly logger: Logger;
  readonly registry: Registry;
  /** How many runs the state on subscribe holds (GRAPHQL_DEFAULT_LIMIT). */
  readonly snapshotLimit: number;
}

export interface LiveSubscription {
  /** The subscriber's own view: scoped to its subject, bounded like its request's reads. */
  readonly reader: Reader;
  readonly filter: InstanceFilter | null;
  readonly selection: LiveSelection;
  /** Aborted: the stream ends (an expired token). */
  readonly signal: AbortSignal;
}

export class LiveHub {
  private readonly subscribers = new Set<LiveSubscriber>();
  private readonly pushes: Counter;
  private feedOn = false;
  private transition: Promise<void> = Promise.resolve();
  private linger: NodeJS.Timeout | null = null;
  private draining = false;

  constructor(private readonly options: LiveHubOptions) {
    const subscribers = this.subscribers;
    new Gauge({
      name: 'workflow_index_live_subscriptions',
      help: 'Active workflowInstanceChanged subscriptions (GraphQL over Server-Sent Events).',
      registers: [options.registry],
      collect() {
        this.set(subscribers.size);
      },
    });
    this.pushes = new Counter({ name: 'workflow_index_live_pushes_total', help: 'Runs pushed to subscriptions (the state on subscribe included).', registers: [options.registry] });
  }

  get active(): number {
    return this.subscribers.size;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Registers first (so no change is missed), then reads the state on subscribe; a failed read ends it again. */
  async subscribe(subscription: LiveSubscription): Promise<LiveSubscriber> {
    await this.feedStarted();
    const subscriber = new LiveSubscriber({
      reader: subscription.reader,
      filter: subscription.filter,
      selection: subscription.selection,
      snapshotLimit: this.options.snapshotLimit,
      logger: this.options.logger,
      onPush: () => this.pushes.inc(),
      onEnd: (ended) => this.remove(ended),
    });
    this.subscribers.add(subscriber);
    const onAbort = (): void => subscriber.end();
    subscription.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await subscriber.start();
    } catch (error) {
      subscriber.end();
      throw error;
    }
    if (this.draining || subscription.signal.aborted) subscriber.end();
    return subscriber;
  }

  /** Draining: every stream ends (its client sees `complete`) and no new one is taken by the transport. */
  endAll(): void {
    this.draining = true;
    for (const subscriber of [...this.subscribers]) subscriber.end();
  }

  /** Stops the feed at once (dispose). */
  async close(): Promise<void> {
    this.endAll();
    if (this.linger !== null) clearTimeout(this.linger);
    this.linger = null;
    this.stopFeed();
    await this.transition;
  }

  private deliver(batch: ChangeBatch): void {
    for (const subscriber of this.subscribers) subscriber.deliver(batch);
  }

  private feedStarted(): Promise<void> {
    if (this.linger !== null) clearTimeout(this.linger);
    this.linger = null;
    if (!this.feedOn) {
      this.feedOn = true;
      this.transition = this.transition.then(() => this.options.feed.start((batch) => this.deliver(batch))).catch((error: unknown) => {
        this.options.logger.warn({ err: error }, 'live update feed did not start');
      });
    }
    return this.transition;
  }

  private remove(subscriber: LiveSubscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size > 0 || !this.feedOn || this.linger !== null) return;
    this.linger = setTimeout(() => {
      this.linger = null;
      if (this.subscribers.size === 0) this.stopFeed();
    }, FEED_LINGER_MS);
    this.linger.unref();
  }

  private stopFeed(): void {
    if (!this.feedOn) return;
    this.feedOn = false;
    this.transition = this.transition.then(() => this.options.feed.stop()).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'live update feed did not stop cleanly');
    });
  }
}
