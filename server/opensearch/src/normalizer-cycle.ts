// The cycle job of the continuous normalization (`workflow-instance-transform` and `task-execution-transform`, one
// loop because both documents of an instance come from the same events). Each cycle:
//   1. lists the raw documents ingested since `checkpoint − overlap` (ids and instance ids only);
//   2. merges the raw documents not seen before into the event store (event-store.ts) and recomputes their instances
//      from all their stored events (a pure function, so recomputing again is harmless); records events without a
//      usable instance id as ingest errors;
//   3. moves the checkpoint to the newest ingest time seen.
import { type Checkpoint, readCheckpoint, writeCheckpoint } from './normalizer-checkpoint.js';
import { batchesWithinBudget, storedEventCounts } from './normalizer-batches.js';
import type { NormalizerContext } from './normalizer-context.js';
import { LeaseLostError } from './normalizer-lease.js';
import { ingestErrorDocument, ingestErrorId, recomputeInstances, sendBulk } from './normalizer-recompute.js';
import type { NormalizerStatusReport } from './normalizer-status.js';
import { parseRawEvent } from './raw-event-parse.js';
import { type RawMark, rawEventsByKey, scanIngestedSince } from './raw-event-source.js';

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

export interface CycleSettings {
  /** How far behind the checkpoint each cycle re-reads (documents refreshed late). */
  readonly overlapMs: number;
  /** Instances recomputed per bulk request. */
  readonly batchSize: number;
  /** Batches in flight at once. */
  readonly concurrency: number;
  /** Stored and new events per batch (normalizer-batches.ts; at least one instance). */
  readonly eventBudget: number;
}

interface Written {
  instances: number;
  executions: number;
  deleted: number;
  rejected: number;
}

/** What a cycle found to do: the raw documents not seen before, by the instances they touch. */
interface Scan {
  readonly from: number;
  readonly marks: readonly RawMark[];
  readonly fresh: readonly RawMark[];
  readonly touched: readonly string[];
  readonly freshOf: ReadonlyMap<string, readonly RawMark[]>;
  readonly untracked: readonly RawMark[];
}

export class NormalizationCycle {
  /** Raw documents seen within the overlap window (key → ingest ms): each is counted and recomputed once. */
  private readonly seen = new Map<string, number>();
  private checkpoint: Checkpoint | undefined;
  /** The checkpoint found at start: documents up to it were counted by an earlier process. */
  private countedUpTo: number | undefined;

  constructor(
    private readonly context: NormalizerContext,
    private readonly settings: CycleSettings,
    private readonly report: NormalizerStatusReport,
  ) {}

  /** The checkpoint as this process last read or wrote it; 0 before it read one. */
  get checkpointMs(): number {
    return this.checkpoint?.highWaterMs ?? 0;
  }

  /** The checkpoint this process trusts (read when it has none). */
  async currentCheckpoint(): Promise<Checkpoint> {
    this.checkpoint ??= await readCheckpoint(this.context.client, this.context.names.normalizerState);
    return this.checkpoint;
  }

  /** Read the checkpoint again before the next cycle: another normalizer may have moved it. */
  forgetCheckpoint(): void {
    this.checkpoint = undefined;
  }

  /** One cycle; the caller holds the lease. */
  async run(): Promise<CycleResult> {
    const started = Date.now();
    const endTimer = this.context.metrics.cycleSeconds.startTimer();
    const checkpoint = await this.currentCheckpoint();
    this.countedUpTo ??= checkpoint.highWaterMs;
    const scan = await this.scan(checkpoint);
    if (scan.touched.length > 0) await this.context.visibility.ensureSearchable();
    const batches = await this.batchesOf(scan.touched, scan.freshOf);
    const written = await this.recompute(batches, scan.freshOf);
    written.rejected += await this.recordUntracked(scan.untracked);

    const counted = scan.fresh.filter((m) => m.ingestTimeMs > this.countedUpTo!).length;
    for (const m of scan.fresh) this.seen.set(m.key, m.ingestTimeMs);
    for (const [key, t] of this.seen) if (t < scan.from) this.seen.delete(key);
    const highWater = await this.advance(checkpoint, scan.marks);

    const oldestWaiting = scan.fresh.reduce((min, m) => Math.min(min, m.ingestTimeMs), Infinity);
    this.count(counted, written, highWater);
    const lagMs = Number.isFinite(oldestWaiting) ? Math.max(0, started - oldestWaiting) : 0;
    endTimer();
    const durationMs = Date.now() - started;
    this.report.cycleSucceeded({ startedAtMs: started, durationMs, lagMs, counted, rejected: written.rejected, instanceDocs: written.instances, executionDocs: written.executions, deletedDocs: written.deleted });
    return { newRawEvents: scan.fresh.length, instances: written.instances, executions: written.executions, deletedExecutions: written.deleted, rejectedEvents: written.rejected, checkpointMs: highWater, durationMs, batches: batches.length };
  }

  private async scan(checkpoint: Checkpoint): Promise<Scan> {
    const from = Math.max(0, checkpoint.highWaterMs - this.settings.overlapMs);
    const marks = await scanIngestedSince(this.context.client, this.context.prefix, from);
    const fresh = marks.filter((m) => !this.seen.has(m.key));
    const touched = [...new Set(fresh.flatMap((m) => (m.instanceId === undefined ? [] : [m.instanceId])))].sort();
    const untracked = fresh.filter((m) => m.instanceId === undefined);
    const freshOf = new Map<string, RawMark[]>();
    for (const m of fresh) {
      if (m.instanceId === undefined) continue;
      const list = freshOf.get(m.instanceId);
      if (list) list.push(m);
      else freshOf.set(m.instanceId, [m]);
    }
    return { from, marks, fresh, touched, freshOf, untracked };
  }

  /**
   * The touched instances (sorted) in batches of at most batchSize, each within the event budget of stored and new
   * events beyond its first instance (normalizer-batches.ts). One instance needs no count.
   */
  private async batchesOf(touched: readonly string[], freshOf: ReadonlyMap<string, readonly unknown[]>): Promise<string[][]> {
    if (touched.length <= 1) return touched.length === 0 ? [] : [[...touched]];
    const stored = await storedEventCounts(this.context.client, this.context.names.eventStore, touched);
    const sized = touched.map((id) => ({ id, events: (stored.get(id) ?? 0) + (freshOf.get(id)?.length ?? 0) }));
    return batchesWithinBudget(sized, this.settings.eventBudget, this.settings.batchSize).map((batch) => batch.map((i) => i.id));
  }

  /** Batches hold disjoint instances, so a few run at once: one batch's reads overlap another's bulk write. */
  private async recompute(batches: readonly string[][], freshOf: ReadonlyMap<string, readonly RawMark[]>): Promise<Written> {
    const { client, names, refresh, fence, visibility } = this.context;
    const written: Written = { instances: 0, executions: 0, deleted: 0, rejected: 0 };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        const hits = await rawEventsByKey(client, batch.flatMap((id) => freshOf.get(id)!));
        const result = await recomputeInstances(client, names, hits, { refresh, fence, stampChanges: true });
        visibility.wrote();
        written.instances += result.instances;
        written.executions += result.executions;
        written.deleted += result.deletedExecutions;
        written.rejected += result.rejectedEvents;
      }
    };
    // Every worker is finished before a failure is thrown, so nothing of this cycle still writes during the next.
    const settled = await Promise.allSettled(Array.from({ length: this.settings.concurrency }, worker));
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    return written;
  }

  private async recordUntracked(marks: readonly RawMark[]): Promise<number> {
    if (marks.length === 0) return 0;
    const hits = await rawEventsByKey(this.context.client, marks);
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
      lines.push({ action: { index: { _index: this.context.names.ingestErrors, _id: ingestErrorId(hit) } }, document: ingestErrorDocument(hit, reason, instanceId, eventType) });
    }
    const refused = await sendBulk(this.context.client, lines, this.context.refresh);
    if (refused.length > 0) throw new Error(`recording ingest errors failed: ${refused[0]!.reason}`);
    return lines.length;
  }

  /** Moves the checkpoint to the newest ingest time seen; a conditional write, lost to another normalizer's. */
  private async advance(checkpoint: Checkpoint, marks: readonly RawMark[]): Promise<number> {
    const highWater = marks.reduce((max, m) => Math.max(max, m.ingestTimeMs), checkpoint.highWaterMs);
    if (highWater === checkpoint.highWaterMs) return highWater;
    const written = await writeCheckpoint(this.context.client, this.context.names.normalizerState, checkpoint, highWater, this.settings.overlapMs);
    if (written === undefined) {
      this.checkpoint = undefined;
      throw new LeaseLostError('the checkpoint was written by another normalizer');
    }
    this.checkpoint = written;
    return highWater;
  }

  private count(counted: number, written: Written, highWater: number): void {
    const { metrics } = this.context;
    metrics.rawEvents.inc(counted);
    metrics.rejectedEvents.inc(written.rejected);
    metrics.documents.inc({ transform: 'workflow-instance-transform' }, written.instances);
    metrics.documents.inc({ transform: 'task-execution-transform' }, written.executions);
    metrics.deletedDocuments.inc({ transform: 'task-execution-transform' }, written.deleted);
    metrics.checkpoint.set(highWater / 1000);
  }
}
