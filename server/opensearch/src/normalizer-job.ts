// The continuous normalization jobs `workflow-instance-transform` and `task-execution-transform` (CONTRACT §7): one
// replica process composed of the slot leases (normalizer-lease.ts: the runs split among the live replicas by instance
// id, normalizer-slots.ts), the cycle over its slots (normalizer-cycle.ts), and, on the replica holding the
// coordinator slot, the retention schedule (retention/retention-schedule.ts), the re-normalization walk after a rules
// change (normalizer-renormalize-walk.ts, only while it holds every slot) and the status document
// (normalizer-status.ts). It retries every failure with exponential back-off and never stops by itself.
import type { Client } from '@opensearch-project/opensearch';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { type NormalizedIndexNames, applyNormalizedIndices, normalizedIndexNames } from './normalized-indices.js';
import { type JobStatus, readCheckpoint } from './normalizer-checkpoint.js';
import { type NormalizerContext, type NormalizerLogger, SILENT_LOGGER, WrittenVisibility } from './normalizer-context.js';
import { type CycleResult, NormalizationCycle } from './normalizer-cycle.js';
import { DEFAULT_LATE_WINDOW_MS } from './normalizer-late-arrivals.js';
import { type AcquireResult, NormalizerLease } from './normalizer-lease.js';
import { type NormalizerMetrics, createNormalizerMetrics } from './normalizer-metrics.js';
import { type RenormalizeResult, RenormalizationWalk } from './normalizer-renormalize-walk.js';
import { NormalizerStatusReport } from './normalizer-status.js';
import { openSearchErrorText } from './opensearch-error-text.js';
import type { RetentionRunResult } from './retention/retention-run.js';
import { RetentionSchedule } from './retention/retention-schedule.js';

export type { NormalizerLogger } from './normalizer-context.js';
export type { CycleResult } from './normalizer-cycle.js';
export { LeaseLostError } from './normalizer-lease.js';
export type { RenormalizeResult } from './normalizer-renormalize-walk.js';
export { RENORMALIZE_MAX_SKIPS_IN_A_ROW, RENORMALIZE_SKIP_AFTER_FAILURES } from './normalizer-renormalize-narrowing.js';

export interface NormalizerOptions {
  readonly client: Client;
  /** Prefix of every index name (raw and normalized); tests only. Production: ''. */
  readonly prefix?: string;
  /** Replica name (slot leases, heartbeat); default `<hostname>-<random>`. */
  readonly holder?: string;
  /** Pause between cycles. */
  readonly intervalMs?: number;
  /** How far behind the checkpoint each cycle re-reads (documents refreshed late). */
  readonly overlapMs?: number;
  /** How far behind the checkpoint each cycle audits late arrivals, by counts per second (normalizer-late-arrivals.ts);
   * default 120,000 (fault detection's removal of a hung node and the `_bulk` timeout); at most overlapMs: none. */
  readonly lateWindowMs?: number;
  /** How long a slot lease and the heartbeat last without renewal: a dead replica's slots are taken over within about
   * this plus the interval (normalizer-slots.ts takeoverBoundMs). */
  readonly leaseTtlMs?: number;
  /** The clock of the leases (tests). */
  readonly now?: () => number;
  /** Instances recomputed per bulk request. */
  readonly batchSize?: number;
  /** Batches in flight at once. */
  readonly concurrency?: number;
  readonly maxBackoffMs?: number;
  readonly metrics?: NormalizerMetrics;
  readonly logger?: NormalizerLogger;
  /** Refresh the normalized indices after each write (tests; production relies on the 1 s refresh interval). */
  readonly refresh?: boolean;
  /** Pause between retention passes (the retention rule in the state index); 0: never from this process. */
  readonly retentionIntervalMs?: number;
  /** Time a re-normalization may take after each cycle (at least one page is done); default 1000 ms. */
  readonly renormalizeSliceMs?: number;
  /** Instances per re-normalization page; default batchSize. */
  readonly renormalizePageSize?: number;
  /** Stored events per re-normalization page (a page ends before the instance that would exceed it; at least one
   * instance); default 20,000 (~40 MB of stored events at 2 kB each). */
  readonly renormalizeEventBudget?: number;
  /** Stored and new events per batch of a cycle (normalizer-batches.ts; at least one instance); default 20,000. */
  readonly cycleEventBudget?: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, Math.max(0, ms));
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class OpenSearchNormalizer {
  readonly names: NormalizedIndexNames;
  readonly metrics: NormalizerMetrics;
  readonly holder: string;
  /** Right before each bulk of normalized documents: throws (the bulk is withheld) when another normalizer has taken
   * one of its slots over. */
  readonly fence: () => Promise<void>;
  private readonly client: Client;
  private readonly prefix: string;
  private readonly intervalMs: number;
  private readonly maxBackoffMs: number;
  private readonly logger: NormalizerLogger;
  private readonly lease: NormalizerLease;
  private readonly report: NormalizerStatusReport;
  private readonly cycles: NormalizationCycle;
  private readonly walk: RenormalizationWalk;
  private readonly retentionSchedule: RetentionSchedule;
  private readonly visibility: WrittenVisibility;
  /** The earlier release's normalizer this process last found holding the single lease (logged once). */
  private legacyHolder: string | null = null;

  constructor(options: NormalizerOptions) {
    this.client = options.client;
    this.prefix = options.prefix ?? '';
    this.names = normalizedIndexNames(this.prefix);
    this.holder = options.holder ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
    this.intervalMs = options.intervalMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.metrics = options.metrics ?? createNormalizerMetrics();
    this.logger = options.logger ?? SILENT_LOGGER;
    const overlapMs = options.overlapMs ?? 10_000;
    const lateWindowMs = options.lateWindowMs ?? DEFAULT_LATE_WINDOW_MS;
    const batchSize = options.batchSize ?? 200;
    const refresh = options.refresh ?? false;
    this.lease = new NormalizerLease(this.client, { index: this.names.normalizerState, holder: this.holder, ttlMs: options.leaseTtlMs ?? 20_000, ...(options.now ? { now: options.now } : {}) }, this.metrics);
    this.fence = this.lease.fence;
    this.visibility = new WrittenVisibility(this.client, this.names, refresh);
    const context: NormalizerContext = {
      client: this.client, prefix: this.prefix, names: this.names, metrics: this.metrics, logger: this.logger, refresh, fence: this.fence,
      visibility: this.visibility,
    };
    this.report = new NormalizerStatusReport(this.client, this.names.normalizerState, this.holder, this.metrics, () => this.lease.heldSlots);
    this.cycles = new NormalizationCycle(context, { overlapMs, lateWindowMs, batchSize, concurrency: options.concurrency ?? 2, eventBudget: options.cycleEventBudget ?? 20_000, slots: () => this.lease.heldSlots }, this.report);
    this.walk = new RenormalizationWalk(context, { sliceMs: options.renormalizeSliceMs ?? 1000, pageSize: options.renormalizePageSize ?? batchSize, eventBudget: options.renormalizeEventBudget ?? 20_000 }, this.report);
    this.retentionSchedule = new RetentionSchedule(context, { intervalMs: options.retentionIntervalMs ?? 3_600_000, overlapMs, lateWindowMs, checkpoint: () => readCheckpoint(this.client, this.names.normalizerState) });
  }

  /** False while cycles fail (the loop keeps retrying); readiness reports it. */
  get healthy(): boolean {
    return this.report.healthy;
  }

  /** Creates the normalized and state indices when missing. */
  async setup(): Promise<void> {
    await applyNormalizedIndices(this.client, this.prefix);
  }

  /** Heartbeat, renews its slots and takes free or expired ones up to its share; true when it holds any. */
  async acquire(): Promise<boolean> {
    return (await this.acquireSlots()).held.length > 0;
  }

  /** acquire(), with what it found. Slots taken from another replica may have documents it wrote unrefreshed. */
  async acquireSlots(): Promise<AcquireResult> {
    const result = await this.lease.acquireSlots();
    if (result.taken.length > 0) this.visibility.othersWrote();
    return result;
  }

  /** The slots this replica holds (as of its last acquire). */
  get slots(): readonly number[] {
    return this.lease.heldSlots;
  }

  /** After a cycle: gives up the slots above its share (so a replica that joined gets work); the slots released. */
  releaseExcess(): Promise<number[]> {
    return this.lease.releaseExcess();
  }

  /** One cycle over the held slots; the caller holds them. */
  cycle(): Promise<CycleResult> {
    return this.cycles.run();
  }

  /** Before the first cycle: records this release's rules version when the event store is empty. */
  recordRulesIfFresh(): Promise<void> {
    return this.walk.recordRulesIfFresh();
  }

  /** One slice of the re-normalization, when the documents' rules version is older than this release's; the caller
   * holds every slot. */
  renormalize(budgetMs?: number): Promise<RenormalizeResult> {
    return this.walk.slice(budgetMs);
  }

  /** One retention pass by the rule in the state index, trusting the earliest checkpoint of every slot; the caller
   * holds the coordinator slot. */
  retention(nowMs = Date.now()): Promise<RetentionRunResult> {
    return this.retentionSchedule.run(nowMs);
  }

  /** Runs until the signal aborts: lease, cycle, retention, re-normalization, status, pause; failures back off
   * exponentially and are retried. */
  async run(signal: AbortSignal): Promise<void> {
    await this.setupWithRetry(signal);
    while (!signal.aborted) await sleep((await this.step()).pauseMs, signal);
    await this.lease.release();
  }

  /** One pass; a failure is counted, reported and recovered from. The pause before the next pass: none while a
   * re-normalization runs (its slice already took the pause's time), the interval's rest, or the back-off. */
  async step(): Promise<{ readonly pauseMs: number; readonly error?: unknown }> {
    const started = Date.now();
    try {
      const pending = await this.pass();
      this.report.passSucceeded();
      return { pauseMs: pending ? 0 : this.intervalMs - (Date.now() - started) };
    } catch (error) {
      return { pauseMs: await this.passFailed(error), error };
    }
  }

  /** Gives up every slot and the heartbeat, as a stopping process does. */
  release(): Promise<void> {
    return this.lease.release();
  }

  /** One pass of the loop (acquire, cycle, release the excess, and on the coordinator retention, the walk and the
   * status); whether a re-normalization is pending and this replica walks it. Failures throw (step() backs off). */
  private async pass(): Promise<boolean> {
    const acquired = await this.acquireSlots();
    if (acquired.legacyHolder !== this.legacyHolder && acquired.legacyHolder !== null) this.logger.info('a normalizer of an earlier release holds the single lease; waiting for it to stop', { holder: acquired.legacyHolder });
    this.legacyHolder = acquired.legacyHolder;
    if (acquired.held.length === 0) {
      await this.report.publishMember('standby');
      return false;
    }
    if (!this.walk.rulesKnown) await this.recordRulesIfFresh().catch(() => undefined);
    const result = await this.cycle();
    if (result.newRawEvents > 0) this.logger.info('normalized', { ...result, slots: acquired.held.length });
    const released = await this.releaseExcess();
    if (released.length > 0) this.logger.info('released slots above the fair share', { released, share: acquired.share, replicas: acquired.liveReplicas });
    let walking = false;
    if (this.lease.holdsCoordinator) {
      await this.retentionSchedule.runIfDue();
      if (this.lease.holdsAll) {
        await this.walk.sliceIfPending();
        walking = this.walk.pending;
      }
      await this.publishStatus('started');
    }
    await this.report.publishMember('started');
    return walking;
  }

  /** Counts and reports a failed pass; the back-off before the next. */
  private async passFailed(error: unknown): Promise<number> {
    const reason = openSearchErrorText(error);
    const failures = this.report.passFailed(reason);
    this.cycles.forgetCheckpoint();
    const backoff = Math.min(this.maxBackoffMs, this.intervalMs * 2 ** Math.min(failures, 16));
    this.logger.warn('normalization cycle failed; retrying', { error: reason, failures, backoffMs: backoff });
    if (this.lease.holdsCoordinator) await this.publishStatus('failing').catch(() => undefined);
    await this.report.publishMember('failing').catch(() => undefined);
    return backoff;
  }

  private async publishStatus(state: JobStatus['state']): Promise<void> {
    await this.report.publish(state, { checkpointMs: this.cycles.checkpointMs, slots: this.lease.heldSlots, retention: this.retentionSchedule.retentionStatus, renormalization: this.walk.renormalizationStatus });
  }

  private async setupWithRetry(signal: AbortSignal): Promise<void> {
    for (let attempt = 1; !signal.aborted; attempt++) {
      try {
        await this.setup();
        return;
      } catch (error) {
        const backoff = Math.min(this.maxBackoffMs, 500 * 2 ** Math.min(attempt, 16));
        this.logger.warn('creating the normalized indices failed; retrying', { error: openSearchErrorText(error), attempt, backoffMs: backoff });
        await sleep(backoff, signal);
      }
    }
  }
}
