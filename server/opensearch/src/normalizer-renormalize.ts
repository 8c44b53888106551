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
//   Pages are cut by instances (`renormalizePageSize`) and by stored events (`renormalizeEventBudget`, from the
//   composite buckets' doc_count), so a page of very long runs never holds more than about the budget's events.
//   A page that fails is retried in halves down to a single instance; a single instance whose recomputation keeps
//   failing for a reason of its own (renormalizationFailureKind: not the cluster being away, overloaded or refusing
//   this user) is recorded in the ingest errors and walked past (normalizer-renormalize-walk.ts,
//   normalizer-renormalize-narrowing.ts).
// The state document is written with if_seq_no/if_primary_term, so a normalizer that lost its lease cannot move it.
import { type Client, errors } from '@opensearch-project/opensearch';
import { readStateDocument, writeStateDocument } from './normalizer-checkpoint.js';
import { TRANSIENT_ERRORS } from './normalizer-recompute.js';

export const RULES_ID = 'rules';

export interface RulesState {
  /** The rules version every normalized document has been written with: 1 when none is recorded. */
  readonly rulesVersion: number;
  /** The version a re-normalization in progress recomputes to; null when none runs. */
  readonly targetVersion: number | null;
  /** The last instance id (event-store order) a re-normalization in progress has recomputed; null: none yet. */
  readonly afterInstanceId: string | null;
  /** Instances the re-normalization in progress (or the last one) walked, skipped ones included. */
  readonly instancesDone: number;
  /** Instances of the walk in progress (or the last one) skipped because their recomputation kept failing. */
  readonly instancesSkipped: number;
  /** Instances skipped since a page of the walk last succeeded (RENORMALIZE_MAX_SKIPS_IN_A_ROW), kept across
   * restarts, so a process that keeps restarting cannot skip more. */
  readonly skipsInARow: number;
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
  instances_skipped?: number;
  skips_in_a_row?: number;
  started_at_ms?: number | null;
  finished_at_ms?: number | null;
}

export async function readRulesState(client: Client, index: string): Promise<RulesState> {
  const stored = await readStateDocument<RulesDocument>(client, index, RULES_ID);
  if (stored === undefined) {
    return { rulesVersion: MISSING_RULES_VERSION, targetVersion: null, afterInstanceId: null, instancesDone: 0, instancesSkipped: 0, skipsInARow: 0, startedAtMs: null, finishedAtMs: null };
  }
  const s = stored.source;
  return {
    rulesVersion: s.rules_version ?? MISSING_RULES_VERSION,
    targetVersion: s.target_version ?? null,
    afterInstanceId: s.after_instance_id ?? null,
    instancesDone: s.instances_done ?? 0,
    instancesSkipped: s.instances_skipped ?? 0,
    skipsInARow: s.skips_in_a_row ?? 0,
    startedAtMs: s.started_at_ms ?? null,
    finishedAtMs: s.finished_at_ms ?? null,
    seqNo: stored.seqNo,
    primaryTerm: stored.primaryTerm,
  };
}

/** Stores the next state; undefined when someone else wrote it since `previous` was read (the lease is lost). */
export async function writeRulesState(client: Client, index: string, previous: RulesState, next: Omit<RulesState, 'seqNo' | 'primaryTerm'>): Promise<RulesState | undefined> {
  const document = {
    kind: 'rules',
    rules_version: next.rulesVersion,
    target_version: next.targetVersion,
    after_instance_id: next.afterInstanceId,
    instances_done: next.instancesDone,
    instances_skipped: next.instancesSkipped,
    skips_in_a_row: next.skipsInARow,
    started_at_ms: next.startedAtMs,
    finished_at_ms: next.finishedAtMs,
    updated_at_ms: Date.now(),
  };
  const written = await writeStateDocument(client, index, RULES_ID, previous, document);
  return written === undefined ? undefined : { ...next, ...written };
}

/** An instance id of the event store and how many documents it has there (its stored events, a tombstone too). */
export interface StoredInstance {
  readonly id: string;
  readonly events: number;
}

/**
 * The next `size` distinct instance ids of the event store after `after` (code-point order), tombstones included,
 * each with its document count: a composite aggregation on `instance_id`, which pages over the keyword's terms
 * without reading documents (a bucket's doc_count is exact).
 */
export async function storedInstancePage(client: Client, eventStore: string, after: string | null, size: number): Promise<StoredInstance[]> {
  const composite: Record<string, unknown> = { size, sources: [{ id: { terms: { field: 'instance_id' } } }] };
  if (after !== null) composite['after'] = { id: after };
  const response = await client.transport.request({
    method: 'POST',
    path: `/${eventStore}/_search`,
    body: { size: 0, track_total_hits: false, aggs: { ids: { composite } } },
  });
  const buckets = (response.body as { aggregations: { ids: { buckets: { key: { id: string }; doc_count: number }[] } } }).aggregations.ids.buckets;
  return buckets.map((b) => ({ id: b.key.id, events: b.doc_count }));
}

/**
 * The first instances of `listed` that make one page: at most `limit`, and while their stored events add up to at
 * most `eventBudget`; always at least one (a run longer than the budget is a page of its own), so the walk moves.
 */
export function pageWithinBudget(listed: readonly StoredInstance[], eventBudget: number, limit: number): StoredInstance[] {
  const page: StoredInstance[] = [];
  let events = 0;
  for (const instance of listed) {
    if (page.length >= Math.max(1, limit)) break;
    if (page.length > 0 && events + instance.events > eventBudget) break;
    page.push(instance);
    events += instance.events;
  }
  return page;
}

/**
 * Why recomputing a page failed, for deciding whether a single instance that keeps failing may be skipped:
 * - `transient`: the cluster is away, overloaded or recovering (no answer, a timeout, HTTP 408, 429 or 5xx, a bulk
 *   item failure sendBulk throws for, a shard or block error); it says nothing about the run, so never a skip;
 * - `general`: an answer no run can get past (HTTP 401, 403: this user's permissions; 404: an index missing; 409);
 *   fixing it is an operator's job, so never a skip;
 * - `instance`: anything else (HTTP 400 or 413, e.g. a bulk over `http.max_content_length`; a document refused so
 *   that recording it failed; an exception of our own code): the same every time for that run.
 */
export type RenormalizationFailureKind = 'transient' | 'general' | 'instance';

// sendBulk's transient error types (normalizer-recompute.ts), and what a client or node says of the same in words.
const TRANSIENT_TEXT = new RegExp(`${TRANSIENT_ERRORS.source}|bulk write failed for|timed out|ECONNRESET|ECONNREFUSED|socket hang up|task_cancelled`, 'i');

function kindOfStatus(status: number, message: string): RenormalizationFailureKind {
  if (status === 408 || status === 429 || status >= 500 || status === 0) return 'transient';
  if (status === 401 || status === 403 || status === 404 || status === 409) return 'general';
  return TRANSIENT_TEXT.test(message) ? 'transient' : 'instance';
}

export function renormalizationFailureKind(error: unknown): RenormalizationFailureKind {
  if (error instanceof errors.ConnectionError || error instanceof errors.TimeoutError || error instanceof errors.NoLivingConnectionsError || error instanceof errors.RequestAbortedError) return 'transient';
  if (error instanceof errors.ResponseError) return kindOfStatus(error.meta.statusCode ?? 0, error.message);
  // A connection reset, broken or refused while a response streamed in (raw-event-source.ts reads bodies as streams)
  // is the cluster going away, not the run: large runs have the longest responses.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(ECONNRESET|EPIPE|ETIMEDOUT|ECONNREFUSED|ECONNABORTED|EHOSTUNREACH|ENETUNREACH|ERR_STREAM_PREMATURE_CLOSE|UND_ERR_SOCKET)$/.test(code)) return 'transient';
  const message = error instanceof Error ? error.message : String(error);
  if (message === 'aborted') return 'transient';
  // The lossless reads (raw-event-source.ts requestLossless) answer a failed request with a plain error naming its
  // status, and one whose body is not JSON (a gateway's page in front of the cluster) as unexpected.
  const answered = /^OpenSearch \S+ \S+ answered (\d{3})/.exec(message);
  if (answered !== null) return kindOfStatus(Number(answered[1]), message);
  if (message.startsWith('unexpected OpenSearch response')) return 'transient';
  return TRANSIENT_TEXT.test(message) ? 'transient' : 'instance';
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
  /** Instances walked past because their recomputation kept failing (recorded in the ingest errors as
   * `normalizer/<instance id>`); absent in the status of a release before it. */
  readonly instances_skipped?: number;
  /** The event store's instance count when this process started the walk (an estimate), for a progress ratio. */
  readonly instances_estimated: number | null;
  readonly started_at_ms: number | null;
  readonly finished_at_ms: number | null;
  readonly last_error: string | null;
}
