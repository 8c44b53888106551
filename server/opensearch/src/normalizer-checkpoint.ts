// The normalization jobs' checkpoints and status, persisted in the normalizer-state index. Each slot of the runs
// (normalizer-slots.ts) has a checkpoint `checkpoint-<n>`: the newest raw ingest time normalized for it; a cycle
// re-reads from `checkpoint − overlap`, so documents refreshed late (their ingest time is older than what the previous
// cycle already saw) are not skipped; the late-arrival audit (normalizer-late-arrivals.ts) covers the late window behind
// that, with the per-bucket counts it stored beside the checkpoint (`late_counts`), so the slot's next holder starts
// from them. Written with optimistic concurrency, so a replica that lost the slot cannot move it. The single
// `checkpoint` of releases before the replicas is where a slot without its own starts.
import type { Client } from '@opensearch-project/opensearch';
import type { StoredLateCounts } from './normalizer-late-arrivals.js';
import type { NormalizerJob } from './normalizer-metrics.js';
import { SLOT_COUNT } from './normalizer-slots.js';
import type { RenormalizationStatus } from './normalizer-renormalize.js';

export const CHECKPOINT_ID = 'checkpoint';
export const STATUS_ID = 'status';

export interface Checkpoint {
  /** Ingest time (epoch ms) of the newest raw event normalized; 0 before the first cycle. */
  readonly highWaterMs: number;
  /** The overlap the normalizer re-reads behind the checkpoint: raw events ingested before `highWaterMs − overlapMs`
   * are normalized for certain (what raw retention relies on). */
  readonly overlapMs?: number;
  /** How far behind the checkpoint late arrivals are audited (absent: written by a release without the audit). */
  readonly lateWindowMs?: number;
  /** The audit's per-bucket counts as the slot's holder last stored them. */
  readonly lateCounts?: StoredLateCounts;
  readonly seqNo?: number;
  readonly primaryTerm?: number;
}

/** How far behind its high water a checkpoint's raw events may still arrive and be normalized: raw retention keeps
 * every raw event ingested after `highWaterMs` minus this. */
export function settlingMs(checkpoint: Pick<Checkpoint, 'overlapMs' | 'lateWindowMs'>, defaultOverlapMs = 10_000): number {
  return Math.max(checkpoint.overlapMs ?? defaultOverlapMs, checkpoint.lateWindowMs ?? 0);
}

/** Where a state document stood when read: what a conditional write checks that nobody wrote it since. */
export interface StateDocumentVersion {
  readonly seqNo?: number;
  readonly primaryTerm?: number;
}

/** A document of the state index with its sequence number and primary term; undefined when there is none. */
export async function readStateDocument<T>(client: Client, index: string, id: string): Promise<{ source: T; seqNo: number; primaryTerm: number } | undefined> {
  const response = await client.transport.request({ method: 'GET', path: `/${index}/_doc/${id}` }, { ignore: [404] });
  if (response.statusCode === 404) return undefined;
  const body = response.body as { _seq_no: number; _primary_term: number; _source: T };
  return { source: body._source, seqNo: body._seq_no, primaryTerm: body._primary_term };
}

/** Writes a state document only if nobody wrote it since `previous` was read (created when it was not there then);
 * undefined when someone did (a 409): a normalizer that lost its lease cannot move the state. */
export async function writeStateDocument(client: Client, index: string, id: string, previous: StateDocumentVersion, body: Record<string, unknown>): Promise<{ seqNo: number; primaryTerm: number } | undefined> {
  const querystring: Record<string, string> =
    previous.seqNo === undefined ? { op_type: 'create' } : { if_seq_no: String(previous.seqNo), if_primary_term: String(previous.primaryTerm) };
  const response = await client.transport.request({ method: 'PUT', path: `/${index}/_doc/${id}`, querystring, body }, { ignore: [409] });
  if (response.statusCode === 409) return undefined;
  const written = response.body as { _seq_no: number; _primary_term: number };
  return { seqNo: written._seq_no, primaryTerm: written._primary_term };
}

/** The checkpoint document of releases with a single active normalizer: where a slot without a checkpoint of its own
 * starts (normalizer-lease.ts, LEGACY_LEASE_ID). Never written by the replicas. */
export async function readLegacyCheckpoint(client: Client, index: string): Promise<Checkpoint> {
  const stored = await readStateDocument<CheckpointSource>(client, index, CHECKPOINT_ID);
  if (stored === undefined) return { highWaterMs: 0 };
  return checkpointOf(stored.source, stored.seqNo, stored.primaryTerm);
}

interface CheckpointSource {
  high_water_ms?: number;
  overlap_ms?: number;
  late_window_ms?: number;
  late_counts?: StoredLateCounts;
}

function checkpointOf(source: CheckpointSource, seqNo?: number, primaryTerm?: number): Checkpoint {
  const { overlap_ms: overlap, late_window_ms: late, late_counts: counts } = source;
  return {
    highWaterMs: source.high_water_ms ?? 0,
    ...(overlap === undefined ? {} : { overlapMs: overlap }),
    ...(late === undefined ? {} : { lateWindowMs: late }),
    ...(counts === undefined ? {} : { lateCounts: counts }),
    ...(seqNo === undefined ? {} : { seqNo, primaryTerm }),
  };
}

export function slotCheckpointId(slot: number): string {
  return `${CHECKPOINT_ID}-${slot}`;
}

/**
 * The checkpoints of `slots` (a realtime multi-get). A slot without a checkpoint document of its own starts from the
 * legacy single checkpoint (an installation normalized before the replicas), without its version: the slot's first
 * write creates its document.
 */
export async function readSlotCheckpoints(client: Client, index: string, slots: readonly number[]): Promise<Map<number, Checkpoint>> {
  const ids = [...slots.map(slotCheckpointId), CHECKPOINT_ID];
  const response = await client.transport.request({ method: 'POST', path: `/${index}/_mget`, body: { ids } });
  const docs = (response.body as { docs: { _id: string; found: boolean; _seq_no?: number; _primary_term?: number; _source?: CheckpointSource }[] }).docs;
  const legacyDoc = docs.find((d) => d._id === CHECKPOINT_ID);
  const legacy = legacyDoc?.found === true ? checkpointOf(legacyDoc._source ?? {}) : { highWaterMs: 0 };
  const result = new Map<number, Checkpoint>();
  slots.forEach((slot, i) => {
    const d = docs[i]!;
    result.set(slot, d.found ? checkpointOf(d._source ?? {}, d._seq_no, d._primary_term) : { highWaterMs: legacy.highWaterMs, ...(legacy.overlapMs === undefined ? {} : { overlapMs: legacy.overlapMs }) });
  });
  return result;
}

/** What a cycle writes beside each slot's high water: its windows, and the late-arrival audit's counts. */
export interface CheckpointWindows {
  readonly overlapMs: number;
  readonly lateWindowMs?: number;
  readonly lateCounts?: StoredLateCounts;
}

/**
 * Stores each slot's new high water in one bulk, each only if nobody wrote it since it was read; the slots someone
 * else wrote meanwhile are returned in `lost` (a replica that lost the slot cannot move it).
 */
export async function writeSlotCheckpoints(client: Client, index: string, updates: ReadonlyMap<number, { previous: Checkpoint; highWaterMs: number }>, windows: CheckpointWindows): Promise<{ written: Map<number, Checkpoint>; lost: number[] }> {
  const { overlapMs, lateWindowMs, lateCounts } = windows;
  const late = { ...(lateWindowMs === undefined ? {} : { lateWindowMs }), ...(lateCounts === undefined ? {} : { lateCounts }) };
  const slots = [...updates.keys()];
  const written = new Map<number, Checkpoint>();
  if (slots.length === 0) return { written, lost: [] };
  const now = Date.now();
  const lines: string[] = [];
  for (const slot of slots) {
    const { previous, highWaterMs } = updates.get(slot)!;
    const meta = previous.seqNo === undefined ? { create: { _index: index, _id: slotCheckpointId(slot) } } : { index: { _index: index, _id: slotCheckpointId(slot), if_seq_no: previous.seqNo, if_primary_term: previous.primaryTerm } };
    lines.push(JSON.stringify(meta), JSON.stringify({ kind: 'checkpoint', slot, high_water_ms: highWaterMs, overlap_ms: overlapMs, late_window_ms: lateWindowMs, late_counts: lateCounts, updated_at_ms: now }));
  }
  const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: lines.join('\n') + '\n' });
  const items = (response.body as { items: Record<string, { status: number; _seq_no?: number; _primary_term?: number; error?: unknown }>[] }).items;
  const lost: number[] = [];
  items.forEach((item, i) => {
    const r = Object.values(item)[0]!;
    const slot = slots[i]!;
    if (r.status === 409) lost.push(slot);
    else if (r.status >= 300) throw new Error(`writing the checkpoint of slot ${slot} failed: ${JSON.stringify(r.error ?? r.status).slice(0, 500)}`);
    else written.set(slot, { highWaterMs: updates.get(slot)!.highWaterMs, overlapMs, ...late, seqNo: r._seq_no!, primaryTerm: r._primary_term! });
  });
  return { written, lost };
}

/**
 * The installation's checkpoint: raw events ingested before `highWaterMs − settlingMs` are normalized in every slot
 * and none can still arrive there (the slot that is furthest behind; what raw retention and `init-job status` trust).
 * Slots without a checkpoint of their own count with the legacy one.
 */
export async function readCheckpoint(client: Client, index: string, slotCount = SLOT_COUNT): Promise<Checkpoint> {
  const all = await readSlotCheckpoints(client, index, Array.from({ length: slotCount }, (_, s) => s));
  return minimumCheckpoint([...all.values()]);
}

/** Of several checkpoints, the one whose settled point (high water − settling) is earliest; its version and audit
 * counts are dropped. */
export function minimumCheckpoint(checkpoints: readonly Checkpoint[]): Checkpoint {
  let min: Checkpoint | undefined;
  const settled = (c: Checkpoint): number => c.highWaterMs - settlingMs(c, 0);
  for (const c of checkpoints) if (min === undefined || settled(c) < settled(min)) min = c;
  if (min === undefined) return { highWaterMs: 0 };
  return { highWaterMs: min.highWaterMs, ...(min.overlapMs === undefined ? {} : { overlapMs: min.overlapMs }), ...(min.lateWindowMs === undefined ? {} : { lateWindowMs: min.lateWindowMs }) };
}

export interface JobStatus {
  readonly state: 'started' | 'standby' | 'failing';
  readonly documents_written: number;
  readonly documents_deleted: number;
  readonly last_cycle_ms: number | null;
  readonly last_success_at_ms: number | null;
  readonly last_error: string | null;
}

/** What the last retention pass did (retention/retention-run.ts). */
export interface RetentionStatus {
  readonly last_run_at_ms: number;
  readonly raw_events_retention_days: number;
  readonly instance_retention_days: number | null;
  readonly raw_indices_deleted: number;
  /** Older than the horizon but holding events the normalizer has not processed yet. */
  readonly raw_indices_waiting: number;
  readonly instances_deleted: number;
  readonly last_error: string | null;
}

export interface NormalizerStatus {
  readonly holder: string;
  readonly checkpoint_ms: number;
  readonly lag_ms: number | null;
  readonly raw_events_processed: number;
  readonly raw_events_rejected: number;
  readonly failed_cycles: number;
  readonly jobs: Readonly<Record<NormalizerJob, JobStatus>>;
  readonly updated_at_ms: number;
  /** The slots the replica that published this holds (the coordinator slot's holder publishes it). */
  readonly slots?: readonly number[];
  readonly retention?: RetentionStatus;
  /** The rules version of the documents and a re-normalization's progress (normalizer-renormalize.ts). */
  readonly renormalization?: RenormalizationStatus;
}

/** The status an operator reads (`GET workflow-index-normalizer/_doc/status`, `init-job status`). */
export async function writeStatus(client: Client, index: string, status: NormalizerStatus): Promise<void> {
  await client.transport.request({ method: 'PUT', path: `/${index}/_doc/${STATUS_ID}`, body: { kind: 'status', ...status } });
}

export async function readStatus(client: Client, index: string): Promise<NormalizerStatus | undefined> {
  const response = await client.transport.request({ method: 'GET', path: `/${index}/_doc/${STATUS_ID}` }, { ignore: [404] });
  if (response.statusCode === 404) return undefined;
  const { kind: _kind, ...status } = (response.body as { _source: NormalizerStatus & { kind: string } })._source;
  return status;
}
