// The status job: what this process has done since it started (totals, the last cycle, the lag, failures), kept for
// the status document it publishes after every cycle (`GET workflow-index-normalizer/_doc/status`, `init-job status`)
// and for readiness.
import type { Client } from '@opensearch-project/opensearch';
import { type JobStatus, type RetentionStatus, writeStatus } from './normalizer-checkpoint.js';
import type { NormalizerMetrics } from './normalizer-metrics.js';
import type { RenormalizationStatus } from './normalizer-renormalize.js';
import { memberId } from './normalizer-lease.js';

/** What a successful cycle did (normalizer-cycle.ts). */
export interface CycleFigures {
  /** When the cycle started: every raw event visible then is normalized. */
  readonly startedAtMs: number;
  readonly durationMs: number;
  /** How long the oldest raw event of the cycle waited. */
  readonly lagMs: number;
  /** Raw events no earlier process counted. */
  readonly counted: number;
  readonly rejected: number;
  readonly instanceDocs: number;
  readonly executionDocs: number;
  readonly deletedDocs: number;
}

/** What the other jobs contribute to a publication. */
export interface StatusParts {
  readonly checkpointMs: number;
  /** The slots the publishing replica holds. */
  readonly slots: readonly number[];
  readonly retention: RetentionStatus | undefined;
  readonly renormalization: RenormalizationStatus | undefined;
}

export class NormalizerStatusReport {
  private readonly totals = { raw: 0, rejected: 0, failedCycles: 0, instanceDocs: 0, executionDocs: 0, deleted: 0 };
  private lastCycleMs: number | null = null;
  private lastSuccessAt: number | null = null;
  private lastError: string | null = null;
  private lastLagMs: number | null = null;
  private failures = 0;
  /** Start of the last successful cycle: every raw event visible then is normalized. */
  private lastSuccessStart: number = Date.now();

  constructor(
    private readonly client: Client,
    private readonly stateIndex: string,
    private readonly holder: string,
    private readonly metrics: NormalizerMetrics,
    /** The slots this replica holds now. */
    private readonly slots: () => readonly number[] = () => [],
  ) {}

  /** False while passes fail (the loop keeps retrying). */
  get healthy(): boolean {
    return this.failures === 0;
  }

  cycleSucceeded(cycle: CycleFigures): void {
    this.totals.raw += cycle.counted;
    this.totals.rejected += cycle.rejected;
    this.totals.instanceDocs += cycle.instanceDocs;
    this.totals.executionDocs += cycle.executionDocs;
    this.totals.deleted += cycle.deletedDocs;
    this.lastLagMs = cycle.lagMs;
    this.metrics.lagSeconds.set(this.lastLagMs / 1000);
    this.lastCycleMs = cycle.durationMs;
    this.lastSuccessAt = Date.now();
    this.lastSuccessStart = cycle.startedAtMs;
    this.lastError = null;
  }

  /** Events the re-normalization recorded as ingest errors. */
  rejected(events: number): void {
    this.totals.rejected += events;
  }

  /** A pass of the run loop succeeded (also one that stood by without the lease). */
  passSucceeded(): void {
    this.failures = 0;
    this.metrics.consecutiveFailures.set(0);
  }

  /** A pass failed; returns the consecutive failures. */
  passFailed(reason: string): number {
    const failures = ++this.failures;
    this.totals.failedCycles++;
    this.metrics.failedCycles.inc();
    this.metrics.consecutiveFailures.set(failures);
    this.lastError = reason;
    // While passes fail, events keep waiting: the lag grows from the start of the last successful cycle (which saw
    // everything visible then), so a stuck normalizer raises the lag alert.
    this.lastLagMs = Date.now() - this.lastSuccessStart;
    this.metrics.lagSeconds.set(this.lastLagMs / 1000);
    return failures;
  }

  async publish(state: JobStatus['state'], parts: StatusParts): Promise<void> {
    await writeStatus(this.client, this.stateIndex, {
      holder: this.holder,
      checkpoint_ms: parts.checkpointMs,
      lag_ms: this.lastLagMs,
      raw_events_processed: this.totals.raw,
      raw_events_rejected: this.totals.rejected,
      failed_cycles: this.totals.failedCycles,
      jobs: {
        'workflow-instance-transform': this.jobStatus(state, this.totals.instanceDocs, 0),
        'task-execution-transform': this.jobStatus(state, this.totals.executionDocs, this.totals.deleted),
      },
      updated_at_ms: Date.now(),
      slots: [...parts.slots],
      ...(parts.retention === undefined ? {} : { retention: parts.retention }),
      ...(parts.renormalization === undefined ? {} : { renormalization: parts.renormalization }),
    });
  }

  /**
   * This replica's own figures, in its membership heartbeat (`member-<holder>`, normalizer-lease.ts): the slots it
   * holds, its state and totals. `init-job status` lists them; the status document is the coordinator's.
   */
  async publishMember(state: JobStatus['state']): Promise<void> {
    await this.client.transport.request({
      method: 'POST',
      path: `/${this.stateIndex}/_update/${encodeURIComponent(memberId(this.holder))}`,
      body: {
        doc: {
          kind: 'member', holder: this.holder, state, slots: [...this.slots()], raw_events_processed: this.totals.raw, raw_events_rejected: this.totals.rejected,
          failed_cycles: this.totals.failedCycles, last_cycle_ms: this.lastCycleMs, lag_ms: this.lastLagMs, last_error: this.lastError, status_at_ms: Date.now(),
        },
        doc_as_upsert: true,
      },
    });
  }

  private jobStatus(state: JobStatus['state'], written: number, deletedDocs: number): JobStatus {
    return { state, documents_written: written, documents_deleted: deletedDocs, last_cycle_ms: this.lastCycleMs, last_success_at_ms: this.lastSuccessAt, last_error: this.lastError };
  }
}
