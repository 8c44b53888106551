// Retrying a statement that a retry can cure: it was rolled back as a whole, so it is sent again unchanged.
import { IngestError, type IngestTally } from './ingest-summary.js';

export interface IngestRetryPolicy {
  /** Attempts per batch, including the first. */
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_INGEST_RETRY: IngestRetryPolicy = { attempts: 5, initialDelayMs: 200, maxDelayMs: 5000 };

export type RetryListener = (info: { readonly attempt: number; readonly delayMs: number; readonly reason: string; readonly batch: string }) => void;

const RETRYABLE_SQLSTATES = new Set(['40P01', '40001', '57P01', '57P02', '57P03', '53300', '55P03']);
const RETRYABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

export function isRetryableDatabaseError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (RETRYABLE_SQLSTATES.has(code) || code.startsWith('08') || RETRYABLE_NODE_CODES.has(code))) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(error.message);
}

/** Runs statements with exponential back-off; what still fails is an IngestError holding the run's summary. */
export class IngestRetry {
  constructor(
    private readonly policy: IngestRetryPolicy,
    private readonly tally: IngestTally,
    private readonly onRetry: RetryListener | undefined,
  ) {}

  /** `what` names the work in messages ("writing 500 task event(s) from …"). */
  async run<T>(what: () => string, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (!isRetryableDatabaseError(error) || attempt >= this.policy.attempts) {
          const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
          throw new IngestError(`${what()} failed${tries}: ${reason}`, this.tally.summary(), { cause: error });
        }
        await this.#backOff(attempt, reason, what);
      }
    }
  }

  async #backOff(attempt: number, reason: string, what: () => string): Promise<void> {
    const delayMs = Math.min(this.policy.maxDelayMs, this.policy.initialDelayMs * 2 ** (attempt - 1));
    this.tally.retries++;
    this.onRetry?.({ attempt, delayMs, reason, batch: what() });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}
