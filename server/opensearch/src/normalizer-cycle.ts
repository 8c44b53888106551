// The cycle job of the continuous normalization (`workflow-instance-transform` and `task-execution-transform`, one
// loop because both documents of an instance come from the same events). Each cycle:
//   1. lists the raw documents ingested since `checkpoint − overlap` (ids and instance ids only);
//   2. merges the raw documents not seen before into the event store (event-store.ts) and recomputes their instances
//      from all their stored events (a pure function, so recomputing again is harmless); records events without a
//      usable instance id as ingest errors;
//   3. moves the checkpoint of every slot it holds to the newest ingest time seen.
// Behind the overlap, the late-arrival audit (normalizer-late-arrivals.ts) counts the raw documents per second of the
// late window and lists again only the seconds whose count grew (writes a hung node held, stamped before they became
// searchable); their documents join step 2 like new ones.
// With several replicas (normalizer-slots.ts), a cycle works on the slots its replica holds: it scans once from the
// earliest of their checkpoints (each minus the overlap), keeps the raw documents of its slots that are not behind
// their own slot's checkpoint, and moves every held slot's checkpoint (the scan saw all of each slot's window).
import { type Checkpoint, minimumCheckpoint, readSlotCheckpoints, writeSlotCheckpoints } from './normalizer-checkpoint.js';
import { batchesWithinBudget, storedEventCounts } from './normalizer-batches.js';
import type { NormalizerContext } from './normalizer-context.js';
import { LATE_BUCKET_MS, LateArrivalAudit, bucketOf } from './normalizer-late-arrivals.js';
import { LeaseLostError } from './normalizer-lease.js';
import { hitsByInstance, ingestErrorDocument, ingestErrorId, planRecompute, sendBulk, writeRecompute } from './normalizer-recompute.js';
import type { NormalizerStatusReport } from './normalizer-status.js';
import { parseRawEvent } from './raw-event-parse.js';
import { type RawMark, rawEventsByKey, scanIngestedSince } from './raw-event-source.js';
import { slotOfEvent } from './normalizer-slots.js';

export interface CycleResult {
  /** Raw documents sent through the cycle: new in the overlap window, and those of grown late-window buckets. */
  readonly newRawEvents: number;
  /** Of newRawEvents, those of late-window buckets whose count grew (listed again by the late-arrival audit). */
  readonly lateRawEvents: number;
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
  /** How far behind the checkpoint late arrivals are audited (normalizer-late-arrivals.ts); at most overlapMs: none. */
  readonly lateWindowMs: number;
  /** Instances recomputed per bulk request. */
  readonly batchSize: number;
  /** Batches in flight at once. */
  readonly concurrency: number;
  /** Stored and new events per batch (normalizer-batches.ts; at least one instance). */
  readonly eventBudget: number;
  /** The slots this replica holds now (normalizer-lease.ts). */
  readonly slots: () => readonly number[];
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
  /** The newest ingest time of every raw document the scan listed, of any slot. */
  readonly highWaterMs: number;
  /** Every raw document the scan listed (of any slot), from `from` on. */
  readonly marks: readonly RawMark[];
  readonly fresh: readonly RawMark[];
  /** Of fresh, the documents of grown late-window buckets. */
  readonly late: number;
  /** Late-window buckets whose count grew (listed again). */
  readonly grown: number;
  /** The audit's baselines to keep once this cycle's documents are normalized, and where the scan listed every
   * bucket whole (from there on the scan's marks are the baselines). */
  readonly audited: ReadonlyMap<number, number>;
  readonly scanCoveredMs: number;
  readonly lateFromMs: number;
  readonly touched: readonly string[];
  readonly freshOf: ReadonlyMap<string, readonly RawMark[]>;
  readonly untracked: readonly RawMark[];
}

export class NormalizationCycle {
  /** Raw documents seen within the overlap window (key → ingest ms): each is counted and recomputed once. */
  private readonly seen = new Map<string, number>();
  /** The checkpoints of the held slots as this process last read or wrote them. */
  private readonly checkpoints = new Map<number, Checkpoint>();
  /** Per slot, the checkpoint found when this process took it: documents up to it were counted by another. */
  private readonly countedUpTo = new Map<number, number>();
  private readonly audit: LateArrivalAudit;
  /** The slots of the last cycle: a slot not among them brings its stored audit counts (LateArrivalAudit.adopt). */
  private auditedSlots = new Set<number>();

  constructor(
    private readonly context: NormalizerContext,
    private readonly settings: CycleSettings,
    private readonly report: NormalizerStatusReport,
  ) {
    this.audit = new LateArrivalAudit(context.client, context.prefix);
  }

  private get auditing(): boolean {
    return this.settings.lateWindowMs > this.settings.overlapMs;
  }

  /** The earliest checkpoint of the held slots as this process last read or wrote them; 0 before it read one. */
  get checkpointMs(): number {
    const held = this.settings.slots().map((s) => this.checkpoints.get(s)).filter((c): c is Checkpoint => c !== undefined);
    return held.length === 0 ? 0 : minimumCheckpoint(held).highWaterMs;
  }

  /** Read the checkpoints again before the next cycle: another normalizer may have moved them. */
  forgetCheckpoint(): void {
    this.checkpoints.clear();
  }

  /** The checkpoints of the held slots (read when missing; dropped for slots no longer held). */
  private async heldCheckpoints(slots: readonly number[]): Promise<Map<number, Checkpoint>> {
    for (const slot of [...this.checkpoints.keys()]) if (!slots.includes(slot)) this.checkpoints.delete(slot);
    const missing = slots.filter((s) => !this.checkpoints.has(s));
    if (missing.length > 0) {
      const read = await readSlotCheckpoints(this.context.client, this.context.names.normalizerState, missing);
      for (const [slot, checkpoint] of read) {
        this.checkpoints.set(slot, checkpoint);
        this.countedUpTo.set(slot, checkpoint.highWaterMs);
        if (!this.auditedSlots.has(slot)) this.audit.adopt(checkpoint.lateCounts);
      }
    }
    this.auditedSlots = new Set(slots);
    return new Map(slots.map((s) => [s, this.checkpoints.get(s)!]));
  }

  /** One cycle over the held slots; the caller holds them. */
  async run(): Promise<CycleResult> {
    const started = Date.now();
    const endTimer = this.context.metrics.cycleSeconds.startTimer();
    const checkpoints = await this.heldCheckpoints(this.settings.slots());
    const scan = await this.scan(checkpoints);
    if (scan.touched.length > 0) await this.context.visibility.ensureSearchable();
    const batches = await this.timed('fetch', () => this.batchesOf(scan.touched, scan.freshOf));
    const written = await this.recompute(batches, scan.freshOf);
    written.rejected += await this.recordUntracked(scan.untracked);
    this.audit.commit(scan.audited, scan.marks, scan.scanCoveredMs, scan.lateFromMs);

    const counted = scan.fresh.filter((m) => m.ingestTimeMs > (this.countedUpTo.get(slotOfEvent(m.instanceId)) ?? 0)).length;
    for (const m of scan.fresh) this.seen.set(m.key, m.ingestTimeMs);
    for (const [key, t] of this.seen) if (t < scan.from) this.seen.delete(key);
    const highWater = await this.timed('checkpoint', () => this.advance(checkpoints, scan.highWaterMs, scan.grown > 0));

    const oldestWaiting = scan.fresh.reduce((min, m) => Math.min(min, m.ingestTimeMs), Infinity);
    this.count(counted, written, highWater);
    this.context.metrics.lateRawEvents.inc(scan.late);
    const lagMs = Number.isFinite(oldestWaiting) ? Math.max(0, started - oldestWaiting) : 0;
    endTimer();
    const durationMs = Date.now() - started;
    this.report.cycleSucceeded({ startedAtMs: started, durationMs, lagMs, counted, rejected: written.rejected, instanceDocs: written.instances, executionDocs: written.executions, deletedDocs: written.deleted });
    return { newRawEvents: scan.fresh.length, lateRawEvents: scan.late, instances: written.instances, executions: written.executions, deletedExecutions: written.deleted, rejectedEvents: written.rejected, checkpointMs: highWater, durationMs, batches: batches.length };
  }

  private async scan(checkpoints: ReadonlyMap<number, Checkpoint>): Promise<Scan> {
    if (checkpoints.size === 0) return { from: 0, highWaterMs: 0, marks: [], fresh: [], late: 0, grown: 0, audited: new Map(), scanCoveredMs: 0, lateFromMs: 0, touched: [], freshOf: new Map(), untracked: [] };
    const windowOf = (slot: number): number => Math.max(0, checkpoints.get(slot)!.highWaterMs - this.settings.overlapMs);
    const lateWindowOf = (slot: number): number => Math.max(0, checkpoints.get(slot)!.highWaterMs - this.settings.lateWindowMs);
    const slots = [...checkpoints.keys()];
    const from = Math.min(...slots.map(windowOf));
    const marks = await this.timed('scan', () => scanIngestedSince(this.context.client, this.context.prefix, from));
    const highWaterMs = marks.reduce((max, m) => Math.max(max, m.ingestTimeMs), 0);
    // Not seen yet, of a held slot, and within that slot's window (`startOf`).
    const unseenWithin = (startOf: (slot: number) => number) => (m: RawMark): boolean => {
      const slot = slotOfEvent(m.instanceId);
      return checkpoints.has(slot) && m.ingestTimeMs >= startOf(slot) && !this.seen.has(m.key);
    };
    const scanned = marks.filter(unseenWithin(windowOf));
    // Buckets from scanCoveredMs on lie wholly in every held slot's overlap window: the scan listed them whole.
    const scanCoveredMs = bucketOf(Math.max(...slots.map(windowOf)) + LATE_BUCKET_MS - 1);
    const lateFromMs = Math.min(...slots.map(lateWindowOf));
    const audit = this.auditing ? await this.timed('audit', () => this.audit.audit(lateFromMs, scanCoveredMs)) : { marks: [], grown: 0, baselines: new Map<number, number>() };
    const listed = new Set(scanned.map((m) => m.key));
    const inLateWindow = unseenWithin(lateWindowOf);
    const late = audit.marks.filter((m) => inLateWindow(m) && !listed.has(m.key));
    const fresh = [...scanned, ...late];
    const touched = [...new Set(fresh.flatMap((m) => (m.instanceId === undefined ? [] : [m.instanceId])))].sort();
    const untracked = fresh.filter((m) => m.instanceId === undefined);
    const freshOf = new Map<string, RawMark[]>();
    for (const m of fresh) {
      if (m.instanceId === undefined) continue;
      const list = freshOf.get(m.instanceId);
      if (list) list.push(m);
      else freshOf.set(m.instanceId, [m]);
    }
    return { from, highWaterMs, marks, fresh, late: late.length, grown: audit.grown, audited: audit.baselines, scanCoveredMs, lateFromMs, touched, freshOf, untracked };
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
        const hits = await this.timed('fetch', () => rawEventsByKey(client, batch.flatMap((id) => freshOf.get(id)!)));
        const grouped = hitsByInstance(hits);
        const plan = await this.timed('plan', () => planRecompute(client, names, [...grouped.keys()], grouped));
        const result = await this.timed('write', () => writeRecompute(client, names, plan, { refresh, fence, stampChanges: true }));
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

  /**
   * Moves every held slot's checkpoint to the newest ingest time the scan listed (of any slot: the scan read each held
   * slot's whole window, so a slot without new documents is done up to there too); one bulk of conditional writes. A
   * slot written by another normalizer meanwhile fails the cycle. Returns the earliest of the held slots' checkpoints.
   * When the audit listed grown buckets, every held slot is written (its high water kept if the scan saw nothing
   * newer), so the slot's next holder starts from the counts that include them.
   */
  private async advance(checkpoints: ReadonlyMap<number, Checkpoint>, scannedHighWater: number, countsGrew: boolean): Promise<number> {
    const updates = new Map<number, { previous: Checkpoint; highWaterMs: number }>();
    for (const [slot, previous] of checkpoints) {
      if (scannedHighWater > previous.highWaterMs || countsGrew) updates.set(slot, { previous, highWaterMs: Math.max(previous.highWaterMs, scannedHighWater) });
    }
    const { overlapMs, lateWindowMs } = this.settings;
    const newest = Math.max(scannedHighWater, ...[...updates.values()].map((u) => u.highWaterMs));
    const lateCounts = this.auditing ? this.audit.stored(Math.max(0, newest - lateWindowMs)) : undefined;
    const { written, lost } = await writeSlotCheckpoints(this.context.client, this.context.names.normalizerState, updates, { overlapMs, lateWindowMs, ...(lateCounts === undefined ? {} : { lateCounts }) });
    for (const [slot, checkpoint] of written) this.checkpoints.set(slot, checkpoint);
    if (lost.length > 0) {
      for (const slot of lost) this.checkpoints.delete(slot);
      throw new LeaseLostError(`the checkpoint of slot ${lost.join(', ')} was written by another normalizer`);
    }
    const held = [...checkpoints.keys()].map((s) => this.checkpoints.get(s)!);
    return held.length === 0 ? 0 : minimumCheckpoint(held).highWaterMs;
  }

  /** Runs `work`, adding its time to the phase's metric (where a cycle's time goes, for capacity planning). */
  private async timed<T>(phase: 'scan' | 'audit' | 'fetch' | 'plan' | 'write' | 'checkpoint', work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await work();
    } finally {
      this.context.metrics.phaseSeconds.inc({ phase }, (performance.now() - started) / 1000);
    }
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
