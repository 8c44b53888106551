// What the normalizer's jobs (cycle, re-normalization walk, retention schedule) share: the client, the index names,
// the metrics and logger, the lease's write fence, and whether what this process wrote is searchable yet.
import type { Client } from '@opensearch-project/opensearch';
import type { NormalizedIndexNames } from './normalized-indices.js';
import type { NormalizerMetrics } from './normalizer-metrics.js';

export interface NormalizerLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export const SILENT_LOGGER: NormalizerLogger = { info: () => undefined, warn: () => undefined };

/**
 * Instances are recomputed from their stored events and their existing executions, both read by search, which sees
 * only refreshed documents: what this process wrote before (up to a refresh interval ago) must count. True at start,
 * since an earlier process may have written without a refresh.
 */
export class WrittenVisibility {
  private unrefreshed = true;

  constructor(
    private readonly client: Client,
    private readonly names: NormalizedIndexNames,
    /** Writes refresh on their own (tests): nothing is ever left unrefreshed by this process. */
    private readonly refreshOnWrite: boolean,
  ) {}

  /** Makes the event store and the executions searchable up to now when this process may have left them behind. */
  async ensureSearchable(): Promise<void> {
    if (!this.unrefreshed) return;
    await this.client.transport.request({ method: 'POST', path: `/${this.names.eventStore},${this.names.taskExecutions}/_refresh` });
    this.unrefreshed = false;
  }

  /** Another replica may have written what this process reads next (it took that replica's slots). */
  othersWrote(): void {
    this.unrefreshed = true;
  }

  /** This process wrote (or may have written) normalized documents or stored events. */
  wrote(): void {
    this.unrefreshed ||= !this.refreshOnWrite;
  }
}

export interface NormalizerContext {
  readonly client: Client;
  /** Prefix of every index name (raw and normalized); tests only. Production: ''. */
  readonly prefix: string;
  readonly names: NormalizedIndexNames;
  readonly metrics: NormalizerMetrics;
  readonly logger: NormalizerLogger;
  /** Refresh the normalized indices after each write (tests; production relies on the 1 s refresh interval). */
  readonly refresh: boolean;
  /** Right before each bulk of normalized documents: throws when another normalizer has taken one of its slots over. */
  readonly fence: () => Promise<void>;
  readonly visibility: WrittenVisibility;
}
