// Re-normalization after a change of the rules (normalizer-rules-version.ts). The normalizer-state index holds a
// document `rules`: the rules version the normalized documents were written with and, while a re-normalization runs,
// its progress. When the recorded version is missing (documents written before versions existed: version 1) or older
// than RULES_VERSION, the normalizer walks every instance of the event store in instance-id order, a page at a time
// between its normal cycles, and recomputes each page from its stored events with the cycle's own code
// (recomputeStoredInstances). After each page it stores the last instance id done, so a restart (or a standby taking
// the lease over) resumes there; at the end it stores RULES_VERSION. The recorded version is what every document
// has at least: a release older than the recorded version (a rollback) lowers it to its own, since it writes the
// runs it touches in its shape, so the next upgrade re-normalizes them again.
//   Why the store and not the raw indices: the store holds every accepted event, also after raw retention, so every
//   served run is reached. Instances retention deleted have only their tombstone there and are skipped (never
//   brought back).
//   Why this is safe beside normal cycles: both write with the same external version, the newest ingest time of the
//   instance's events, as `external_gte`. A page recomputed from the same events as the stored documents replaces
//   them (equal version: the new shape); a computation that saw fewer events has a smaller version and is refused by
//   one that saw more, whichever is written last. Within one process, cycles and pages run one after the other, and a
//   page reads the store only after what the cycle before it wrote is refreshed.
// The state document is written with if_seq_no/if_primary_term, so a normalizer that lost its lease cannot move it.
import type { Client } from '@opensearch-project/opensearch';

export const RULES_ID = 'rules';

export interface RulesState {
  /** The rules version every normalized document has been written with: 1 when none is recorded. */
  readonly rulesVersion: number;
  /** The version a re-normalization in progress recomputes to; null when none runs. */
  readonly targetVersion: number | null;
  /** The last instance id (event-store order) a re-normalization in progress has recomputed; null: none yet. */
  readonly afterInstanceId: string | null;
  /** Instances the re-normalization in progress (or the last one) walked. */
  readonly instancesDone: number;
  readonly startedAtMs: number | null;
  readonly finishedAtMs: number | null;
  readonly seqNo?: number;
  readonly primaryTerm?: number;
}

export const MISSING_RULES_VERSION = 1;

interface RulesDocument {
  rules_version?: number;
  target_version?: number | null;
  after_instance_id?: string | null;
  instances_done?: number;
  started_at_ms?: number | null;
  finished_at_ms?: number | null;
}

export async function readRulesState(client: Client, index: string): Promise<RulesState> {
  const response = await client.transport.request({ method: 'GET', path: `/${index}/_doc/${RULES_ID}` }, { ignore: [404] });
  if (response.statusCode === 404) {
    return { rulesVersion: MISSING_RULES_VERSION, targetVersion: null, afterInstanceId: null, instancesDone: 0, startedAtMs: null, finishedAtMs: null };
  }
  const body = response.body as { _seq_no: number; _primary_term: number; _source: RulesDocument };
  const s = body._source;
  return {
    rulesVersion: s.rules_version ?? MISSING_RULES_VERSION,
    targetVersion: s.target_version ?? null,
    afterInstanceId: s.after_instance_id ?? null,
    instancesDone: s.instances_done ?? 0,
    startedAtMs: s.started_at_ms ?? null,
    finishedAtMs: s.finished_at_ms ?? null,
    seqNo: body._seq_no,
    primaryTerm: body._primary_term,
  };
}

/** Stores the next state; undefined when someone else wrote it since `previous` was read (the lease is lost). */
export async function writeRulesState(client: Client, index: string, previous: RulesState, next: Omit<RulesState, 'seqNo' | 'primaryTerm'>): Promise<RulesState | undefined> {
  const querystring: Record<string, string> =
    previous.seqNo === undefined ? { op_type: 'create' } : { if_seq_no: String(previous.seqNo), if_primary_term: String(previous.primaryTerm) };
  const document = {
    kind: 'rules',
    rules_version: next.rulesVersion,
    target_version: next.targetVersion,
    after_instance_id: next.afterInstanceId,
    instances_done: next.instancesDone,
    started_at_ms: next.startedAtMs,
    finished_at_ms: next.finishedAtMs,
    updated_at_ms: Date.now(),
  };
  const response = await client.transport.request({ method: 'PUT', path: `/${index}/_doc/${RULES_ID}`, querystring, body: document }, { ignore: [409] });
  if (response.statusCode === 409) return undefined;
  const body = response.body as { _seq_no: number; _primary_term: number };
  return { ...next, seqNo: body._seq_no, primaryTerm: body._primary_term };
}

/**
 * The next `size` distinct instance ids of the event store after `after` (code-point order), tombstones included: a
 * composite aggregation on `instance_id`, which pages over the keyword's terms without reading documents.
 */
export async function storedInstancePage(client: Client, eventStore: string, after: string | null, size: number): Promise<string[]> {
  const composite: Record<string, unknown> = { size, sources: [{ id: { terms: { field: 'instance_id' } } }] };
  if (after !== null) composite['after'] = { id: after };
  const response = await client.transport.request({
    method: 'POST',
    path: `/${eventStore}/_search`,
    body: { size: 0, track_total_hits: false, aggs: { ids: { composite } } },
  });
  const buckets = (response.body as { aggregations: { ids: { buckets: { key: { id: string } }[] } } }).aggregations.ids.buckets;
  return buckets.map((b) => b.key.id);
}

/** About how many instances the event store holds (a cardinality estimate: exact up to 40,000, within a few % above). */
export async function estimatedStoredInstances(client: Client, eventStore: string): Promise<number> {
  const response = await client.transport.request({
    method: 'POST',
    path: `/${eventStore}/_search`,
    body: { size: 0, track_total_hits: false, aggs: { n: { cardinality: { field: 'instance_id', precision_threshold: 40_000 } } } },
  });
  return (response.body as { aggregations: { n: { value: number } } }).aggregations.n.value;
}

/** Whether the event store holds nothing (a fresh installation: nothing to re-normalize). */
export async function eventStoreIsEmpty(client: Client, eventStore: string): Promise<boolean> {
  await client.transport.request({ method: 'POST', path: `/${eventStore}/_refresh` });
  const response = await client.transport.request({ method: 'POST', path: `/${eventStore}/_count` });
  return (response.body as { count: number }).count === 0;
}

/** What the status document says about the rules and a re-normalization (normalizer-checkpoint.ts). */
export interface RenormalizationStatus {
  /** The rules version the documents have (null: not read yet); equal to `current_version` when no
   * re-normalization is needed. */
  readonly rules_version: number | null;
  /** This release's RULES_VERSION. */
  readonly current_version: number;
  readonly state: 'done' | 'running' | 'unknown';
  readonly after_instance_id: string | null;
  readonly instances_done: number;
  /** The event store's instance count when this process started the walk (an estimate), for a progress ratio. */
  readonly instances_estimated: number | null;
  readonly started_at_ms: number | null;
  readonly finished_at_ms: number | null;
  readonly last_error: string | null;
}
