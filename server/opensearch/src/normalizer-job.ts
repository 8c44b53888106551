// The continuous normalization jobs `workflow-instance-transform` and `task-execution-transform` (CONTRACT §7), run
// by one loop because both documents of an instance come from the same events (a task execution's placeholder flag
// depends on the instance's workflow.started; a placeholder instance on its task events). Each cycle:
//   1. lists the raw documents ingested since `checkpoint − overlap` (ids and instance ids only);
//   2. merges the raw documents not seen before into the event store (event-store.ts) and recomputes their instances
//      from all their stored events (a pure function, so recomputing again is harmless); records events without a
//      usable instance id as ingest errors;
//   3. moves the checkpoint to the newest ingest time seen.
// Between cycles, when the recorded rules version is older than this release's, it re-normalizes every stored
// instance, a bounded slice at a time (normalizer-renormalize.ts).
// It holds a lease (one active normalizer), retries every failure with exponential back-off and never stops by
// itself; its metrics and its status document say what it is doing.
import type { Client } from '@opensearch-project/opensearch';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { type Checkpoint, type JobStatus, type RetentionStatus, readCheckpoint, writeCheckpoint, writeStatus } from './normalizer-checkpoint.js';
import { acquireLease, holdsLease, releaseLease } from './normalizer-lease.js';
import { type NormalizerMetrics, createNormalizerMetrics } from './normalizer-metrics.js';
import { type NormalizedIndexNames, applyNormalizedIndices, normalizedIndexNames } from './normalized-indices.js';
import { batchesWithinBudget, storedEventCounts } from './normalizer-batches.js';
import { ingestErrorDocument, ingestErrorId, normalizerErrorDocument, recomputeInstances, recomputeStoredInstances, sendBulk } from './normalizer-recompute.js';
import {
  MISSING_RULES_VERSION, type RenormalizationStatus, type RulesState, type StoredInstance, estimatedStoredInstances, eventStoreIsEmpty, pageWithinBudget, readRulesState,
  renormalizationFailureKind, storedInstancePage, writeRulesState,
} from './normalizer-renormalize.js';
import { RULES_VERSION } from './normalizer-rules-version.js';
import { parseRawEvent } from './raw-event-parse.js';
import { type RawMark, rawEventsByKey, scanIngestedSince } from './raw-event-source.js';
import { DEFAULT_RETENTION_RULE, readRetentionRule } from './retention/retention-rule.js';
import { type RetentionRunResult, runRetention } from './retention/retention-run.js';
import { openSearchErrorText } from './opensearch-error-text.js';

export interface NormalizerLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface NormalizerOptions {
  readonly client: Client;
  /** Prefix of every index name (raw and normalized); tests only. Production: ''. */
  readonly prefix?: string;
  /** Lease holder name; default `<hostname>-<random>`. */
  readonly holder?: string;
  /** Pause between cycles. */
  readonly intervalMs?: number;
  /** How far behind the checkpoint each cycle re-reads (documents refreshed late). */
  readonly overlapMs?: number;
  readonly leaseTtlMs?: number;
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

/** Consecutive failures of one instance alone, for a reason of its own, before the re-normalization skips it. */
export const RENORMALIZE_SKIP_AFTER_FAILURES = 3;
/** Skips in a row, with no page succeeding between, after which the walk stops skipping: so many runs failing one
 * after the other is a general failure (a mapping, a setting), not one of runs, and must not walk past every run. */
export const RENORMALIZE_MAX_SKIPS_IN_A_ROW = 5;

/**
 * A page of the re-normalization failed at this position: the following pages are narrowed (halved at each further
 * failure, down to one instance) until the instances of the failing range are behind, and a single instance counts
 * its consecutive failures toward a skip. Kept in the process only: a restart starts with whole pages again.
 */
interface Narrowing {
  readonly targetVersion: number | null;
  /** The progress position it applies to (the walk's afterInstanceId). */
  after: string | null;
  /** Instances per page until the failing range is behind. */
  limit: number;
  /** Instances of the failing range not yet behind. */
  remaining: number;
  /** Consecutive failures of the single instance at this position for a reason of its own. */
  strikes: number;
}

export interface RenormalizeResult {
  /** Instances of the event store walked (recomputed, or skipped as deleted by retention) by this call. */
  readonly instances: number;
  /** Whether the documents now have this release's rules version. */
  readonly done: boolean;
  readonly afterInstanceId: string | null;
}

export interface CycleResult {
  readonly newRawEvents: number;
  readonly instances: number;
  readonly executions: number;
  readonly deletedExecutions: number;
  readonly rejectedEvents: number;
  readonly checkpointMs: number;
  readonly durationMs: number;
  /** Batches the touched instances were recomputed in (NORMALIZER_BATCH_SIZE, NORMALIZER_CYCLE_EVENT_BUDGET). */
  readonly batches: number;
}

export class LeaseLostError extends Error {}

const SILENT: NormalizerLogger = { info: () => undefined, warn: () => undefined };

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
  private readonly client: Client;
  private readonly prefix: string;
  private readonly intervalMs: number;
  private readonly overlapMs: number;
  private readonly leaseTtlMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly maxBackoffMs: number;
  private readonly logger: NormalizerLogger;
  private readonly refresh: boolean;
  private readonly retentionIntervalMs: number;
  private readonly renormalizeSliceMs: number;
  private readonly renormalizePageSize: number;
  private readonly renormalizeEventBudget: number;
  private readonly cycleEventBudget: number;
  private narrowing: Narrowing | undefined;
  /** The rules state as last read or written by this process; undefined: read it again. */
  private rules: RulesState | undefined;
  private renormalizationStatus: RenormalizationStatus | undefined;
  private instancesEstimated: number | null = null;
  /** Whether the mappings were seen to hold the fields this release writes (requireRulesFields). */
  private rulesFieldsPresent = false;
  private lastRetentionAt: number | null = null;
  private retentionStatus: RetentionStatus | undefined;
  /** Raw documents seen within the overlap window (key → ingest ms): each is counted and recomputed once. */
  private readonly seen = new Map<string, number>();
  private checkpoint: Checkpoint | undefined;
  /** The checkpoint found at start: documents up to it were counted by an earlier process. */
  private countedUpTo: number | undefined;
  /** Whether documents this process wrote may not be searchable yet (true at start: an earlier process may have). */
  private unrefreshed = true;
  private totals = { raw: 0, rejected: 0, failedCycles: 0, instanceDocs: 0, executionDocs: 0, deleted: 0 };
  private lastCycleMs: number | null = null;
  private lastSuccessAt: number | null = null;
  private lastError: string | null = null;
  private lastLagMs: number | null = null;
  private failures = 0;
  /** Start of the last successful cycle: every raw event visible then is normalized. */
  private lastSuccessStart: number = Date.now();

  constructor(options: NormalizerOptions) {
    this.client = options.client;
    this.prefix = options.prefix ?? '';
    this.names = normalizedIndexNames(this.prefix);
    this.holder = options.holder ?? `${hostname()}-${randomBytes(3).toString('hex')}`;
    this.intervalMs = options.intervalMs ?? 1000;
    this.overlapMs = options.overlapMs ?? 10_000;
    this.leaseTtlMs = options.leaseTtlMs ?? 30_000;
    this.batchSize = options.batchSize ?? 200;
    this.concurrency = options.concurrency ?? 2;
    this.maxBackoffMs = options.maxBackoffMs ?? 30_000;
    this.metrics = options.metrics ?? createNormalizerMetrics();
    this.logger = options.logger ?? SILENT;
    this.refresh = options.refresh ?? false;
    this.retentionIntervalMs = options.retentionIntervalMs ?? 3_600_000;
    this.renormalizeSliceMs = options.renormalizeSliceMs ?? 1000;
    this.renormalizePageSize = options.renormalizePageSize ?? this.batchSize;
    this.renormalizeEventBudget = options.renormalizeEventBudget ?? 20_000;
    this.cycleEventBudget = options.cycleEventBudget ?? 20_000;
    this.metrics.rulesVersion.set({ kind: 'release' }, RULES_VERSION);
  }

  /** False while cycles fail (the loop keeps retrying); readiness reports it. */
  get healthy(): boolean {
    return this.failures === 0;
  }

  /** Creates the normalized and state indices when missing. */
  async setup(): Promise<void> {
    await applyNormalizedIndices(this.client, this.prefix);
  }

  /**
   * The touched instances (sorted) in batches of at most batchSize, each within cycleEventBudget stored and new events
   * beyond its first instance (normalizer-batches.ts). One instance needs no count.
   */
  private async batchesOf(touched: readonly string[], freshOf: ReadonlyMap<string, readonly unknown[]>): Promise<string[][]> {
    if (touched.length <= 1) return touched.length === 0 ? [] : [[...touched]];
    const stored = await storedEventCounts(this.client, this.names.eventStore, touched);
    const sized = touched.map((id) => ({ id, events: (stored.get(id) ?? 0) + (freshOf.get(id)?.length ?? 0) }));
    return batchesWithinBudget(sized, this.cycleEventBudget, this.batchSize).map((batch) => batch.map((i) => i.id));
  }

  private leaseOptions() {
    return { index: this.names.normalizerState, holder: this.holder, ttlMs: this.leaseTtlMs };
  }

  /** Right before each bulk of normalized documents: throws (the bulk is withheld) when another normalizer has taken
   * the lease over. */
  readonly fence = async (): Promise<void> => {
    if (!(await holdsLease(this.client, this.leaseOptions()))) throw new LeaseLostError('another normalizer holds the lease: this one withholds its writes');
  };

  /** Takes or renews the lease. */
  async acquire(): Promise<boolean> {
    const held = await acquireLease(this.client, this.leaseOptions());
    this.metrics.active.set(held ? 1 : 0);
    return held;
  }

  /** One cycle; the caller holds the lease. */
  async cycle(): Promise<CycleResult> {
    const started = Date.now();
    const endTimer = this.metrics.cycleSeconds.startTimer();
    this.checkpoint ??= await readCheckpoint(this.client, this.names.normalizerState);
    const checkpoint = this.checkpoint;
    this.countedUpTo ??= checkpoint.highWaterMs;
    const from = Math.max(0, checkpoint.highWaterMs - this.overlapMs);
    const marks = await scanIngestedSince(this.client, this.prefix, from);
    const fresh = marks.filter((m) => !this.seen.has(m.key));
    const touched = [...new Set(fresh.flatMap((m) => (m.instanceId === undefined ? [] : [m.instanceId])))].sort();
    const untracked = fresh.filter((m) => m.instanceId === undefined);
    const oldestWaiting = fresh.reduce((min, m) => Math.min(min, m.ingestTimeMs), Infinity);

    let instances = 0;
    let executions = 0;
    let deleted = 0;
    let rejected = 0;
    if (touched.length > 0 && this.unrefreshed) {
      // Instances are recomputed from their stored events and their existing executions, both read by search, which
      // sees only refreshed documents: what the previous cycle wrote (up to a refresh interval ago) must count.
      await this.client.transport.request({ method: 'POST', path: `/${this.names.eventStore},${this.names.taskExecutions}/_refresh` });
      this.unrefreshed = false;
    }
    const freshOf = new Map<string, RawMark[]>();
    for (const m of fresh) {
      if (m.instanceId === undefined) continue;
      const list = freshOf.get(m.instanceId);
      if (list) list.push(m);
      else freshOf.set(m.instanceId, [m]);
    }
    // Batches hold disjoint instances, so a few run at once: one batch's reads overlap another's bulk write.
    const batches = await this.batchesOf(touched, freshOf);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        const hits = await rawEventsByKey(this.client, batch.flatMap((id) => freshOf.get(id)!));
        const result = await recomputeInstances(this.client, this.names, hits, { refresh: this.refresh, fence: this.fence });
        this.unrefreshed ||= !this.refresh;
        instances += result.instances;
        executions += result.executions;
        deleted += result.deletedExecutions;
        rejected += result.rejectedEvents;
      }
    };
    // Every worker is finished before a failure is thrown, so nothing of this cycle still writes during the next.
    const settled = await Promise.allSettled(Array.from({ length: this.concurrency }, worker));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    rejected += await this.recordUntracked(untracked);

    const counted = fresh.filter((m) => m.ingestTimeMs > this.countedUpTo!).length;
    for (const m of fresh) this.seen.set(m.key, m.ingestTimeMs);
    for (const [key, t] of this.seen) if (t < from) this.seen.delete(key);
    const highWater = marks.reduce((max, m) => Math.max(max, m.ingestTimeMs), checkpoint.highWaterMs);
    if (highWater !== checkpoint.highWaterMs) {
      const written = await writeCheckpoint(this.client, this.names.normalizerState, checkpoint, highWater, this.overlapMs);
      if (written === undefined) {
        this.checkpoint = undefined;
        throw new LeaseLostError('the checkpoint was written by another normalizer');
      }
      this.checkpoint = written;
    }

    this.totals.raw += counted;
    this.totals.rejected += rejected;
    this.totals.instanceDocs += instances;
    this.totals.executionDocs += executions;
    this.totals.deleted += deleted;
    this.metrics.rawEvents.inc(counted);
    this.metrics.rejectedEvents.inc(rejected);
    this.metrics.documents.inc({ transform: 'workflow-instance-transform' }, instances);
    this.metrics.documents.inc({ transform: 'task-execution-transform' }, executions);
    this.metrics.deletedDocuments.inc({ transform: 'task-execution-transform' }, deleted);
    this.metrics.checkpoint.set(highWater / 1000);
    this.lastLagMs = Number.isFinite(oldestWaiting) ? Math.max(0, started - oldestWaiting) : 0;
    this.metrics.lagSeconds.set(this.lastLagMs / 1000);
    endTimer();
    const durationMs = Date.now() - started;
    this.lastCycleMs = durationMs;
    this.lastSuccessAt = Date.now();
    this.lastSuccessStart = started;
    this.lastError = null;
    return { newRawEvents: fresh.length, instances, executions, deletedExecutions: deleted, rejectedEvents: rejected, checkpointMs: highWater, durationMs, batches: batches.length };
  }

  private async recordUntracked(marks: readonly RawMark[]): Promise<number> {
    if (marks.length === 0) return 0;
    const hits = await rawEventsByKey(this.client, marks);
    const lines = [];
    for (const hit of hits) {
      let parsed: ReturnType<typeof parseRawEvent>;
      try {
        parsed = parseRawEvent(hit.source);
      } catch (error) {
        parsed = { ok: false, reason: `normalizer error: ${(error as Error).message}`, instanceId: null, eventType: null };
      }
      // Without wi.instance_id the pipeline found the instanceId unusable, and so do these rules.
      const reason = parsed.ok ? 'instanceId could not be read at ingest' : parsed.reason;
      const instanceId = parsed.ok ? parsed.event.instanceId : parsed.instanceId;
      const eventType = parsed.ok ? null : parsed.eventType;
      lines.push({ action: { index: { _index: this.names.ingestErrors, _id: ingestErrorId(hit) } }, document: ingestErrorDocument(hit, reason, instanceId, eventType) });
    }
    const refused = await sendBulk(this.client, lines, this.refresh);
    if (refused.length > 0) throw new Error(`recording ingest errors failed: ${refused[0]!.reason}`);
    return lines.length;
  }

  /**
   * Before this process's first cycle: an event store without any event (a fresh installation, or one that never
   * normalized anything) has nothing to re-normalize, so this release's rules version is recorded at once.
   */
  async recordRulesIfFresh(): Promise<void> {
    this.rules ??= await readRulesState(this.client, this.names.normalizerState);
    if (this.rules.rulesVersion !== MISSING_RULES_VERSION || this.rules.seqNo !== undefined) return;
    if (!(await eventStoreIsEmpty(this.client, this.names.eventStore))) return;
    const now = Date.now();
    await this.storeRules({ rulesVersion: RULES_VERSION, targetVersion: null, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: now, finishedAtMs: now });
  }

  private async storeRules(next: Omit<RulesState, 'seqNo' | 'primaryTerm'>): Promise<RulesState> {
    const written = await writeRulesState(this.client, this.names.normalizerState, this.rules!, next);
    if (written === undefined) {
      this.rules = undefined;
      throw new LeaseLostError('the rules state was written by another normalizer');
    }
    this.rules = written;
    this.metrics.rulesVersion.set({ kind: 'documents' }, written.rulesVersion);
    return written;
  }

  /**
   * One slice of the re-normalization, when the documents' rules version is older than this release's: pages of
   * stored instances recomputed until `budgetMs` has passed (at least one page), the progress stored after each.
   * A page holds at most `renormalizePageSize` instances and, beyond its first, at most `renormalizeEventBudget`
   * stored events. A page that fails ends the slice with its error (pageFailed: narrowed retries, and a skip of a
   * single instance that keeps failing for a reason of its own).
   * The caller holds the lease; cycles run between slices, so new events are normalized while it runs.
   */
  async renormalize(budgetMs = this.renormalizeSliceMs): Promise<RenormalizeResult> {
    const started = Date.now();
    // Read at every slice (one get): while this process did not hold the lease, another release may have moved the
    // rules document (recorded a newer version, or walked part of the way toward one), which this process must see
    // to lower the version or drop that walk's progress (below).
    let state = (this.rules = await readRulesState(this.client, this.names.normalizerState));
    this.metrics.rulesVersion.set({ kind: 'documents' }, state.rulesVersion);
    if (state.rulesVersion > RULES_VERSION) {
      // Rolled back: this release writes the runs it touches in its older shape, so the recorded version (what every
      // document has at least) comes down to its own, and the next upgrade re-normalizes them again.
      state = await this.storeRules({ rulesVersion: RULES_VERSION, targetVersion: null, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: started, finishedAtMs: started });
    }
    if (state.rulesVersion >= RULES_VERSION && state.targetVersion !== null) {
      // A walk toward newer rules was under way when this release was rolled back to: this release rewrites the runs
      // it touches in its own shape, including runs that walk had already passed, so its progress is dropped and the
      // next upgrade walks every run again.
      state = await this.storeRules({ rulesVersion: state.rulesVersion, targetVersion: null, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: state.startedAtMs, finishedAtMs: state.finishedAtMs });
    }
    if (state.rulesVersion >= RULES_VERSION) {
      this.renormalizationStatus = this.renormalizationStatusOf(state);
      return { instances: 0, done: true, afterInstanceId: null };
    }
    if (state.targetVersion !== RULES_VERSION) {
      // None started, or one toward other rules (the pages done follow those): from the first instance.
      state = await this.storeRules({ rulesVersion: state.rulesVersion, targetVersion: RULES_VERSION, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: started, finishedAtMs: null });
      this.instancesEstimated = null;
    }
    await this.requireRulesFields();
    this.instancesEstimated ??= await estimatedStoredInstances(this.client, this.names.eventStore);
    if (this.unrefreshed) {
      // A page reads stored events and existing executions by search: what the cycle before wrote must count, or a
      // page could recompute an instance without its newest event (same version at the same millisecond).
      await this.client.transport.request({ method: 'POST', path: `/${this.names.eventStore},${this.names.taskExecutions}/_refresh` });
      this.unrefreshed = false;
    }
    let walked = 0;
    // The instances listed after the progress position and not yet in a page: a listing of `renormalizePageSize`
    // ids is cut into pages by the event budget (and a narrowing), the rest kept for the next page of the slice.
    let listed: StoredInstance[] = [];
    let listedToEnd = false;
    for (;;) {
      if (listed.length === 0 && !listedToEnd) {
        listed = await storedInstancePage(this.client, this.names.eventStore, state.afterInstanceId, this.renormalizePageSize);
        listedToEnd = listed.length < this.renormalizePageSize;
      }
      const narrowing = this.narrowingAt(state);
      const page = pageWithinBudget(listed, this.renormalizeEventBudget, narrowing?.limit ?? this.renormalizePageSize);
      const ids = page.map((p) => p.id);
      if (ids.length > 0) {
        let result;
        try {
          result = await recomputeStoredInstances(this.client, this.names, ids, { refresh: this.refresh, fence: this.fence });
        } catch (error) {
          this.unrefreshed ||= !this.refresh;
          if (error instanceof LeaseLostError) throw error;
          return await this.pageFailed(state, ids, error);
        }
        this.unrefreshed ||= !this.refresh;
        walked += ids.length;
        this.metrics.renormalizedInstances.inc(ids.length);
        this.metrics.rejectedEvents.inc(result.rejectedEvents);
        this.metrics.deletedDocuments.inc({ transform: 'task-execution-transform' }, result.deletedExecutions);
        this.totals.rejected += result.rejectedEvents;
      }
      listed = listed.slice(ids.length);
      const last = listedToEnd && listed.length === 0;
      const done = state.instancesDone + ids.length;
      state = last
        ? await this.storeRules({ rulesVersion: RULES_VERSION, targetVersion: null, afterInstanceId: null, instancesDone: done, instancesSkipped: state.instancesSkipped, skipsInARow: 0, startedAtMs: state.startedAtMs, finishedAtMs: Date.now() })
        : await this.storeRules({ ...state, afterInstanceId: ids[ids.length - 1]!, instancesDone: done, skipsInARow: 0 });
      this.narrowingPassed(narrowing, ids.length, state.afterInstanceId);
      this.renormalizationStatus = this.renormalizationStatusOf(state);
      if (last) {
        this.narrowing = undefined;
        this.logger.info('re-normalization finished', { rulesVersion: RULES_VERSION, instances: done, skipped: state.instancesSkipped });
        return { instances: walked, done: true, afterInstanceId: null };
      }
      if (Date.now() - started >= budgetMs) return { instances: walked, done: false, afterInstanceId: state.afterInstanceId };
    }
  }

  /** The narrowing of a failed page when it applies to the walk's position now (else it is dropped). */
  private narrowingAt(state: RulesState): Narrowing | undefined {
    const narrowing = this.narrowing;
    if (narrowing === undefined) return undefined;
    if (narrowing.after === state.afterInstanceId && narrowing.targetVersion === state.targetVersion) return narrowing;
    this.narrowing = undefined; // another position: a restart of the walk, or another normalizer moved it
    return undefined;
  }

  /** A page of `count` instances succeeded: the narrowing follows the walk, and ends once its range is behind. */
  private narrowingPassed(narrowing: Narrowing | undefined, count: number, after: string | null): void {
    if (narrowing === undefined || this.narrowing !== narrowing) return;
    narrowing.remaining -= count;
    narrowing.after = after;
    narrowing.strikes = 0;
    if (narrowing.remaining <= 0) this.narrowing = undefined;
  }

  /**
   * A page failed (its recomputation threw; nothing of the walk moved). The slice ends with the failure (counted and
   * shown by the caller, the next cycle runs first) and the failing range is retried after it in smaller pages:
   * - a page of several instances: the next ones are half as large, down to one instance;
   * - a single instance: skipped (recorded in the ingest errors as `normalizer/<instance id>` and walked past) only
   *   when it failed RENORMALIZE_SKIP_AFTER_FAILURES times in a row for a reason of its own
   *   (renormalizationFailureKind: never for the cluster being away, overloaded or recovering, nor for permissions
   *   or a missing index), when recording it succeeds (the node takes writes), and when fewer than
   *   RENORMALIZE_MAX_SKIPS_IN_A_ROW instances were skipped since a page last succeeded. A transient failure starts
   *   its count over, so an outage, however long, skips nothing: its failures are transient, and the cycles between
   *   the slices fail meanwhile, so no slice runs.
   */
  private async pageFailed(state: RulesState, ids: readonly string[], error: unknown): Promise<never> {
    const text = openSearchErrorText(error);
    const narrowing: Narrowing = this.narrowingAt(state) ?? { targetVersion: state.targetVersion, after: state.afterInstanceId, limit: ids.length, remaining: ids.length, strikes: 0 };
    this.narrowing = narrowing;
    narrowing.remaining = Math.max(narrowing.remaining, ids.length);
    const position = state.afterInstanceId === null ? 'from the first instance' : `after ${state.afterInstanceId}`;
    if (ids.length > 1) {
      narrowing.limit = Math.ceil(ids.length / 2);
      narrowing.strikes = 0;
      throw new Error(`re-normalizing ${ids.length} instances ${position} failed; retried in pages of ${narrowing.limit}: ${text}`);
    }
    narrowing.limit = 1;
    const id = ids[0]!;
    const kind = renormalizationFailureKind(error);
    if (kind !== 'instance') {
      narrowing.strikes = 0;
      throw new Error(`re-normalizing instance ${id} failed (${kind === 'transient' ? 'the cluster is away or overloaded' : 'not a failure of this run'}; retried, never skipped): ${text}`);
    }
    narrowing.strikes++;
    if (narrowing.strikes < RENORMALIZE_SKIP_AFTER_FAILURES) {
      throw new Error(`re-normalizing instance ${id} failed (${narrowing.strikes} of ${RENORMALIZE_SKIP_AFTER_FAILURES} failures in a row before it is skipped): ${text}`);
    }
    if (state.skipsInARow >= RENORMALIZE_MAX_SKIPS_IN_A_ROW) {
      throw new Error(`re-normalizing instance ${id} failed, not skipped: ${state.skipsInARow} instances in a row were skipped with no page succeeding between, which looks like a failure of every run (a mapping, a setting), not of some: ${text}`);
    }
    const record = normalizerErrorDocument(id, `re-normalization failed for instance ${id} (${RENORMALIZE_SKIP_AFTER_FAILURES} times in a row; skipped, its documents stay as an earlier release wrote them): ${text}`, Date.now());
    const refused = await sendBulk(this.client, [{ action: { index: { _index: this.names.ingestErrors, _id: `normalizer/${id}` } }, document: record }], this.refresh);
    if (refused.length > 0) throw new Error(`re-normalizing instance ${id} failed, and recording it as skipped failed (${refused[0]!.reason}): ${text}`);
    const next = await this.storeRules({ ...state, afterInstanceId: id, instancesDone: state.instancesDone + 1, instancesSkipped: state.instancesSkipped + 1, skipsInARow: state.skipsInARow + 1 });
    this.metrics.renormalizationSkippedInstances.inc();
    // The rest of the failing range goes in whole pages again: another failing instance there is narrowed anew.
    this.narrowing = undefined;
    this.renormalizationStatus = this.renormalizationStatusOf(next);
    this.logger.warn('re-normalization skipped an instance', { instanceId: id, error: text });
    throw new Error(`re-normalization skipped instance ${id} after ${RENORMALIZE_SKIP_AFTER_FAILURES} failures in a row (recorded in the ingest errors as normalizer/${id}): ${text}`);
  }

  /**
   * The fields this release's documents need must be in the indices' mappings before the walk writes them: a
   * normalizer whose user may not change mappings relies on `init-job opensearch-setup` for that, and a walk started
   * before it would have every new document refused (recorded as ingest errors) and count the runs as done. So the
   * slice fails, with a message saying what to do, and is retried after the next cycle. (Field capabilities come with
   * the `read` permission; a user refused them skips the check.)
   */
  private async requireRulesFields(): Promise<void> {
    if (this.rulesFieldsPresent) return; // mappings only grow: once there, the fields stay
    const needed: Record<string, string[]> = { [this.names.workflowInstances]: ['task_states', 'task_states_complete'], [this.names.taskExecutions]: ['superseded'] };
    const missing: string[] = [];
    for (const [index, fields] of Object.entries(needed)) {
      const response = await this.client.transport.request({ method: 'GET', path: `/${index}/_field_caps`, querystring: { fields: fields.join(',') } }, { ignore: [403] });
      if (response.statusCode === 403) return;
      const found = (response.body as { fields?: Record<string, unknown> }).fields ?? {};
      missing.push(...fields.filter((f) => found[f] === undefined).map((f) => `${index}.${f}`));
    }
    this.rulesFieldsPresent = missing.length === 0;
    if (missing.length > 0) throw new Error(`the mappings lack ${missing.join(', ')}: run \`init-job opensearch-setup\` of this release (the normalizer's user may not change mappings); the re-normalization waits for it`);
  }

  private renormalizationStatusOf(state: RulesState): RenormalizationStatus {
    const running = state.rulesVersion < RULES_VERSION;
    return {
      rules_version: state.rulesVersion,
      current_version: RULES_VERSION,
      state: running ? 'running' : 'done',
      after_instance_id: state.afterInstanceId,
      instances_done: state.instancesDone,
      instances_skipped: state.instancesSkipped,
      instances_estimated: running ? this.instancesEstimated : null,
      started_at_ms: state.startedAtMs,
      finished_at_ms: state.finishedAtMs,
      last_error: null,
    };
  }

  /** A slice after each cycle while the documents' rules are older; a failure is reported and the slice retried
   * after the next cycle, never failing the cycle (new events keep being normalized). */
  private async renormalizeIfPending(): Promise<void> {
    try {
      const result = await this.renormalize();
      if (result.instances > 0 && !result.done) this.logger.info('re-normalizing', { instances: result.instances, after: result.afterInstanceId });
    } catch (error) {
      this.metrics.renormalizationFailures.inc();
      const message = openSearchErrorText(error);
      this.rules = undefined; // re-read: another normalizer may have moved it
      const previous = this.renormalizationStatus;
      this.renormalizationStatus = previous === undefined
        ? { rules_version: null, current_version: RULES_VERSION, state: 'unknown', after_instance_id: null, instances_done: 0, instances_skipped: 0, instances_estimated: null, started_at_ms: null, finished_at_ms: null, last_error: message }
        : { ...previous, last_error: message };
      this.logger.warn('re-normalization failed; retrying after the next cycle', { error: message });
    }
  }

  /**
   * One retention pass by the rule in the state index (the default rule when none is stored), trusting this
   * process's own checkpoint; the caller holds the lease and has just run a cycle.
   */
  async retention(nowMs = Date.now()): Promise<RetentionRunResult> {
    const rule = (await readRetentionRule(this.client, this.names.normalizerState)) ?? DEFAULT_RETENTION_RULE;
    this.checkpoint ??= await readCheckpoint(this.client, this.names.normalizerState);
    const result = await runRetention(this.client, { prefix: this.prefix, names: this.names, rule, nowMs, checkpoint: { highWaterMs: this.checkpoint.highWaterMs, overlapMs: this.overlapMs } });
    const waiting = result.raw.decisions.filter((d) => d.action === 'keep' && d.reason.startsWith('holds events')).length;
    this.metrics.retentionDeleted.inc({ kind: 'raw_index' }, result.raw.deleted.length);
    this.metrics.retentionDeleted.inc({ kind: 'instance' }, result.instances?.instances ?? 0);
    this.retentionStatus = {
      last_run_at_ms: nowMs,
      raw_events_retention_days: rule.raw_events_retention_days,
      instance_retention_days: rule.instance_retention_days,
      raw_indices_deleted: result.raw.deleted.length,
      raw_indices_waiting: waiting,
      instances_deleted: result.instances?.instances ?? 0,
      last_error: null,
    };
    return result;
  }

  /** Runs retention when its interval has passed; a failure is reported and retried at the next interval, and never
   * fails the normalization cycle. */
  private async retentionIfDue(): Promise<void> {
    if (this.retentionIntervalMs === 0) return;
    const now = Date.now();
    if (this.lastRetentionAt !== null && now - this.lastRetentionAt < this.retentionIntervalMs) return;
    this.lastRetentionAt = now;
    try {
      const result = await this.retention(now);
      if (result.raw.deleted.length > 0 || (result.instances?.instances ?? 0) > 0) {
        this.logger.info('retention', { rawIndicesDeleted: result.raw.deleted.map((d) => d.index), instancesDeleted: result.instances?.instances ?? 0 });
      }
    } catch (error) {
      this.metrics.retentionFailures.inc();
      const message = openSearchErrorText(error);
      this.retentionStatus = { ...(this.retentionStatus ?? { last_run_at_ms: now, raw_events_retention_days: DEFAULT_RETENTION_RULE.raw_events_retention_days, instance_retention_days: null, raw_indices_deleted: 0, raw_indices_waiting: 0, instances_deleted: 0 }), last_error: message };
      this.logger.warn('retention failed; retrying at the next interval', { error: message });
    }
  }

  private jobStatus(state: JobStatus['state'], written: number, deletedDocs: number): JobStatus {
    return { state, documents_written: written, documents_deleted: deletedDocs, last_cycle_ms: this.lastCycleMs, last_success_at_ms: this.lastSuccessAt, last_error: this.lastError };
  }

  private async publishStatus(state: JobStatus['state']): Promise<void> {
    const checkpointMs = this.checkpoint?.highWaterMs ?? 0;
    await writeStatus(this.client, this.names.normalizerState, {
      holder: this.holder,
      checkpoint_ms: checkpointMs,
      lag_ms: this.lastLagMs,
      raw_events_processed: this.totals.raw,
      raw_events_rejected: this.totals.rejected,
      failed_cycles: this.totals.failedCycles,
      jobs: {
        'workflow-instance-transform': this.jobStatus(state, this.totals.instanceDocs, 0),
        'task-execution-transform': this.jobStatus(state, this.totals.executionDocs, this.totals.deleted),
      },
      updated_at_ms: Date.now(),
      ...(this.retentionStatus === undefined ? {} : { retention: this.retentionStatus }),
      ...(this.renormalizationStatus === undefined ? {} : { renormalization: this.renormalizationStatus }),
    });
  }

  /** Runs until the signal aborts: lease, cycle, status, pause; failures back off exponentially and are retried. */
  async run(signal: AbortSignal): Promise<void> {
    await this.setupWithRetry(signal);
    while (!signal.aborted) {
      const started = Date.now();
      try {
        let pending = false;
        if (await this.acquire()) {
          if (this.rules === undefined) await this.recordRulesIfFresh().catch(() => undefined);
          const result = await this.cycle();
          if (result.newRawEvents > 0) this.logger.info('normalized', { ...result });
          await this.retentionIfDue();
          await this.renormalizeIfPending();
          pending = this.rules !== undefined && this.rules.rulesVersion !== RULES_VERSION; // not after a failed slice
          await this.publishStatus('started');
        }
        this.failures = 0;
        this.metrics.consecutiveFailures.set(0);
        // While a re-normalization runs, the next cycle follows at once: its slice already took the pause's time.
        if (!pending) await sleep(this.intervalMs - (Date.now() - started), signal);
      } catch (error) {
        const failures = ++this.failures;
        this.totals.failedCycles++;
        this.metrics.failedCycles.inc();
        this.metrics.consecutiveFailures.set(failures);
        this.lastError = openSearchErrorText(error);
        this.checkpoint = undefined; // re-read: another normalizer may have moved it
        // While cycles fail, events keep waiting: the lag grows from the start of the last successful cycle (which
        // saw everything visible then), so a stuck normalizer raises the lag alert.
        this.lastLagMs = Date.now() - this.lastSuccessStart;
        this.metrics.lagSeconds.set(this.lastLagMs / 1000);
        const backoff = Math.min(this.maxBackoffMs, this.intervalMs * 2 ** Math.min(failures, 16));
        this.logger.warn('normalization cycle failed; retrying', { error: this.lastError, failures, backoffMs: backoff });
        await this.publishStatus('failing').catch(() => undefined);
        await sleep(backoff, signal);
      }
    }
    this.metrics.active.set(0);
    await releaseLease(this.client, this.leaseOptions()).catch(() => undefined);
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
