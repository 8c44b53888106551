// The per-status instance counts for /q/metrics (workflow_index_instances_by_status): a scrape must stay cheap
// and bounded, so the counts are read at most once per max age (concurrent scrapes share one read), within a
// timeout, and the last values are kept when a read fails.
import type { Reader } from './reader.js';
import { withTimeout } from './timeout.js';

/** How long one reading of the counts serves scrapes. */
export const STATUS_COUNTS_MAX_AGE_MS = 15_000;

export interface StatusCountsOptions {
  readonly exactLimit: number;
  readonly timeoutMs: number;
  readonly maxAgeMs?: number;
  readonly now?: () => number;
  readonly onError?: (error: unknown) => void;
}

export class StatusCountsCache {
  private last: { readonly at: number; readonly counts: Readonly<Record<string, number>> } | null = null;
  private inflight: Promise<void> | null = null;

  constructor(
    private readonly reader: Reader,
    private readonly options: StatusCountsOptions,
  ) {}

  /** The counts by status; null until the backend has answered once. */
  async get(): Promise<Readonly<Record<string, number>> | null> {
    const now = this.options.now ?? Date.now;
    if (this.last === null || now() - this.last.at >= (this.options.maxAgeMs ?? STATUS_COUNTS_MAX_AGE_MS)) {
      this.inflight ??= withTimeout(this.reader.countInstancesByStatus(null, { exactLimit: this.options.exactLimit }), this.options.timeoutMs, 'instances by status')
        .then((counts) => {
          this.last = { at: now(), counts: Object.fromEntries(Object.entries(counts).map(([status, count]) => [status, count.value])) };
        })
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          this.inflight = null;
        });
      await this.inflight;
    }
    return this.last?.counts ?? null;
  }
}
