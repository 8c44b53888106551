// One subscription: the changes its feed reported, read again through the subscriber's own scoped Reader (so a run
// its filter or its subject does not cover is never pushed), and the runs waiting to be pushed. Reads are serial per
// subscriber and each starts after the change it serves was delivered, so the last push of a run is the run's state
// after its last change. Pending work coalesces: while a read runs, further changes only add ids to the next read,
// and a run waiting to be pushed is replaced by its newer state instead of queueing twice (memory stays bounded by
// the runs, not the changes, when a client reads slowly).
import type { InstanceFilter, Reader } from '../reader.js';
import type { Logger } from '../logger.js';
import type { ChangeBatch } from './change-feed.js';
import { readRuns, withIds } from './live-selection.js';
import type { LiveRun, LiveSelection } from './live-selection.js';

export interface LiveSubscriberOptions {
  readonly reader: Reader;
  readonly filter: InstanceFilter | null;
  readonly selection: LiveSelection;
  /** How many runs the state on subscribe (and on a re-sync) holds: the newest matching ones. */
  readonly snapshotLimit: number;
  readonly logger: Logger;
  /** Called once per pushed run. */
  readonly onPush: () => void;
  /** Called once, when the subscription ends for whatever reason. */
  readonly onEnd: (subscriber: LiveSubscriber) => void;
}

/** Most ids one read names: a larger batch is read in several. */
export const IDS_PER_READ = 1000;
/** After a failed read (the backend away), the pending work is tried again this much later. */
export const RETRY_MS = 1000;

export class LiveSubscriber implements AsyncIterableIterator<LiveRun> {
  private readonly pendingIds = new Set<string>();
  private resyncWanted = false;
  private reading = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly outbox = new Map<string, LiveRun>();
  private wake: (() => void) | null = null;
  private ended = false;

  constructor(private readonly options: LiveSubscriberOptions) {}

  /** The state on subscribe: read now, so a filter or a subject the backend refuses fails the subscription itself. */
  async start(): Promise<void> {
    this.queue(await this.snapshot());
  }

  deliver(batch: ChangeBatch): void {
    if (this.ended) return;
    if (batch.kind === 'resync') this.resyncWanted = true;
    else for (const id of batch.ids) this.pendingIds.add(id);
    this.kick();
  }

  /** Ends the stream after the runs already read have been pushed (draining, an expired token). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.retry !== null) clearTimeout(this.retry);
    this.options.onEnd(this);
    this.wakeUp();
  }

  async next(): Promise<IteratorResult<LiveRun>> {
    for (;;) {
      const first = this.outbox.entries().next();
      if (first.done !== true) {
        const [id, run] = first.value;
        this.outbox.delete(id);
        this.options.onPush();
        return { done: false, value: run };
      }
      if (this.ended) return { done: true, value: undefined };
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The client went away (yoga cancels the stream): nothing more is read for it. */
  return(): Promise<IteratorResult<LiveRun>> {
    this.outbox.clear();
    this.end();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private snapshot(): Promise<LiveRun[]> {
    const { reader, filter, snapshotLimit, selection } = this.options;
    return readRuns(reader, filter, snapshotLimit, selection);
  }

  private kick(): void {
    if (this.reading || this.ended || this.retry !== null) return;
    if (!this.resyncWanted && this.pendingIds.size === 0) return;
    this.reading = true;
    void this.readPending().finally(() => {
      this.reading = false;
      this.kick();
    });
  }

  private async readPending(): Promise<void> {
    const resync = this.resyncWanted;
    const ids = [...this.pendingIds].slice(0, IDS_PER_READ);
    this.resyncWanted = false;
    for (const id of ids) this.pendingIds.delete(id);
    try {
      if (resync) this.queue(await this.snapshot());
      if (ids.length > 0) {
        const { reader, filter, selection } = this.options;
        this.queue(await readRuns(reader, withIds(filter, ids), ids.length, selection));
      }
    } catch (error) {
      // Nothing is lost: the same work is tried again, after changes that arrive meanwhile have joined it.
      this.options.logger.warn({ err: error }, 'live update: reading changed runs failed; retrying');
      if (resync) this.resyncWanted = true;
      for (const id of ids) this.pendingIds.add(id);
      this.retry = setTimeout(() => {
        this.retry = null;
        this.kick();
      }, RETRY_MS);
      this.retry.unref();
    }
  }

  private queue(runs: readonly LiveRun[]): void {
    if (this.ended) return;
    for (const run of runs) {
      // A newer state of a run still waiting replaces it, and takes its turn at the end.
      this.outbox.delete(run.id);
      this.outbox.set(run.id, run);
    }
    if (runs.length > 0) this.wakeUp();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
