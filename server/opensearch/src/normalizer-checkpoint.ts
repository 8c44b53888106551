// The normalization jobs' checkpoint and status, persisted in the normalizer-state index. The checkpoint is the
// newest raw ingest time normalized; a cycle re-reads from `checkpoint − overlap`, so documents refreshed late (their
// ingest time is older than what the previous cycle already saw) are not skipped. Written with optimistic
// concurrency, so a normalizer that lost its lease cannot move it.
import type { Client } from '@opensearch-project/opensearch';
import type { NormalizerJob } from './normalizer-metrics.js';
import type { RenormalizationStatus } from './normalizer-renormalize.js';

export const CHECKPOINT_ID = 'checkpoint';
export const STATUS_ID = 'status';

export interface Checkpoint {
  /** Ingest time (epoch ms) of the newest raw event normalized; 0 before the first cycle. */
  readonly highWaterMs: number;
  /** The overlap the normalizer re-reads behind the checkpoint: raw events ingested before `highWaterMs − overlapMs`
   * are normalized for certain (what raw retention relies on). */
  readonly overlapMs?: number;
  readonly seqNo?: number;
  readonly primaryTerm?: number;
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

export async function readCheckpoint(client: Client, index: string): Promise<Checkpoint> {
  const stored = await readStateDocument<{ high_water_ms?: number; overlap_ms?: number }>(client, index, CHECKPOINT_ID);
  if (stored === undefined) return { highWaterMs: 0 };
  const overlap = stored.source.overlap_ms;
  return { highWaterMs: stored.source.high_water_ms ?? 0, ...(overlap === undefined ? {} : { overlapMs: overlap }), seqNo: stored.seqNo, primaryTerm: stored.primaryTerm };
}

/** Stores the new high water; false when someone else wrote the checkpoint meanwhile. */
export async function writeCheckpoint(client: Client, index: string, previous: Checkpoint, highWaterMs: number, overlapMs?: number): Promise<Checkpoint | undefined> {
  const body = { kind: 'checkpoint', high_water_ms: highWaterMs, ...(overlapMs === undefined ? {} : { overlap_ms: overlapMs }), updated_at_ms: Date.now() };
  const written = await writeStateDocument(client, index, CHECKPOINT_ID, previous, body);
  return written === undefined ? undefined : { highWaterMs, ...(overlapMs === undefined ? {} : { overlapMs }), ...written };
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
