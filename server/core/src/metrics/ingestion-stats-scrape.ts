// Every ingestion gauge is collected in the same scrape: they share one backend call, bounded by
// METRICS_BACKEND_TIMEOUT_MS. A call that fails or times out leaves the last values in place.
import type { CoreConfig } from '../config.js';
import type { Logger } from '../logger.js';
import type { IngestionStats, Reader } from '../reader.js';
import { withTimeout } from '../timeout.js';

export class IngestionStatsScrape {
  private inflight: Promise<IngestionStats | null> | null = null;
  /** The statistics of the last call that answered in time; null before the first. */
  last: IngestionStats | null = null;

  constructor(
    private readonly reader: Reader,
    private readonly config: CoreConfig,
    private readonly logger: Logger,
  ) {}

  /** This scrape's statistics (concurrent calls share one backend call), or null when they could not be read. */
  read(): Promise<IngestionStats | null> {
    this.inflight ??= withTimeout(this.reader.ingestionStats(), this.config.metrics.backendTimeoutMs, 'ingestion statistics')
      .then((stats) => {
        this.last = stats;
        return stats;
      })
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, 'metrics: ingestion statistics unavailable; reporting the last values');
        return null;
      })
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }
}
