// Recomputes the normalized documents of a set of instances from all their stored events (event-store.ts) and writes
// them in one bulk request: the new events for the store, instance documents, execution documents, superseded
// markers in place of execution documents whose id disappeared (a late, earlier loop iteration takes over the plain
// id; supersededExecutionDocument), and one ingest-errors document per rejected raw event.
// Writes carry an external version (the newest ingest time among the instance's events, `external_gte`), so a
// stale writer — a normalizer that lost its lease mid-cycle — can never replace a newer computation, nor (since
// nothing here is deleted) bring back an execution a newer computation withdrew; and the job fences each bulk with
// its lease (WriteOptions.fence). The same code recomputes instances from the store alone after a rules change
// (recomputeStoredInstances, normalizer-renormalize.ts).
import type { Client } from '@opensearch-project/opensearch';
import { createHash } from 'node:crypto';
import { type StoredEvent, eventIdentity, mergeStoredEvent, storedEventDocument, storedEventsOfInstances, stringifyLossless } from './event-store.js';
import { normalizeInstance } from './normalize-instance.js';
import type { NormalizedIndexNames } from './normalized-indices.js';
import { parseRawEvent } from './raw-event-parse.js';
import type { RawHit } from './raw-event-source.js';

export interface IngestErrorDocument {
  readonly raw_index: string;
  readonly raw_id: string;
  readonly instance_id: string | null;
  readonly event_type: string | null;
  readonly reason: string;
  readonly ingest_time: number;
  /** The raw event as read, lossless JSON text (a run's event history serves it); absent for the normalizer's own faults. */
  readonly source?: string;
}

export interface RecomputeResult {
  readonly instances: number;
  readonly executions: number;
  readonly deletedExecutions: number;
  readonly rawEvents: number;
  readonly rejectedEvents: number;
}

export function ingestErrorDocument(hit: Pick<RawHit, 'index' | 'id' | 'ingestTimeMs' | 'source'>, reason: string, instanceId: string | null, eventType: string | null): IngestErrorDocument {
  return { raw_index: hit.index, raw_id: hit.id, instance_id: instanceId, event_type: eventType, reason, ingest_time: hit.ingestTimeMs, source: stringifyLossless(hit.source) };
}

/** The ingest-errors document of a failure of the normalizer itself (no raw event): recorded as `normalizer/…`. */
export function normalizerErrorDocument(instanceId: string | null, reason: string, ingestTime: number): IngestErrorDocument {
  return { raw_index: '', raw_id: '', instance_id: instanceId, event_type: null, reason: reason.slice(0, 2000), ingest_time: ingestTime };
}

/** The ingest-errors document id of a raw event: writing it again changes nothing. */
export function ingestErrorId(hit: { index: string; id: string }): string {
  return `${hit.index}/${hit.id}`;
}

/** An execution document found in the index: its run, its id, and whether it is a superseded marker. */
export interface ExistingExecution {
  readonly instanceId: string;
  readonly id: string;
  readonly superseded: boolean;
}

/** Every execution document of the instances (superseded markers included), by `_id`. */
export async function existingExecutionIds(client: Client, index: string, instanceIds: readonly string[]): Promise<Map<string, ExistingExecution>> {
  const found = new Map<string, ExistingExecution>();
  let after: unknown[] | undefined;
  for (;;) {
    const body: Record<string, unknown> = {
      size: 5000,
      _source: false,
      track_total_hits: false,
      query: { terms: { instance_id: instanceIds } },
      docvalue_fields: ['instance_id', 'id', 'superseded'],
      sort: [{ id: 'asc' }],
    };
    if (after) body['search_after'] = after;
    const response = await client.transport.request({ method: 'POST', path: `/${index}/_search`, body });
    const hits = (response.body as { hits: { hits: { _id: string; sort: unknown[]; fields: { instance_id: string[]; id: string[]; superseded?: boolean[] } }[] } }).hits.hits;
    for (const hit of hits) found.set(hit._id, { instanceId: hit.fields.instance_id[0]!, id: hit.fields.id[0]!, superseded: hit.fields.superseded?.[0] === true });
    if (hits.length < 5000) return found;
    after = hits[hits.length - 1]!.sort;
  }
}

/**
 * Superseded executions. An execution id can disappear from a run (a late, earlier loop iteration takes over the
 * plain id). Deleting its document with the run's external version would protect it from a stale normalizer's
 * older write only for `index.gc_deletes` (60 s): OpenSearch forgets a delete's version after that, and an older
 * write of the id then creates the document again, served until the run's next event. So the document is replaced by
 * this marker instead, written like every other document of the run with the run's version: a live document keeps
 * its version for as long as it exists, so an older computation's write of the id is refused whenever it arrives.
 * `placeholder: true` keeps it out of everything served (the reader serves `placeholder: false` only) and
 * `superseded: true` tells it from a placeholder run's execution (the executions' total excludes it). It is
 * rewritten with the run's newest version at every recomputation of the run that still lacks the id, replaced by a
 * real execution should a newer computation give the id again, and deleted with its run by instance retention.
 */
export function supersededExecutionDocument(id: string, instanceId: string): Record<string, unknown> {
  return { id, instance_id: instanceId, placeholder: true, superseded: true };
}

/** OpenSearch refuses `_id`s over 512 bytes; an execution id can be longer (255-byte instance id, 1024-byte
 * position), so such a document gets a hash as `_id` and keeps its id in the `id` field, which readers query. */
export function documentId(id: string): string {
  return Buffer.byteLength(id, 'utf8') <= 512 ? id : `#sha256:${createHash('sha256').update(id).digest('hex')}`;
}

export interface BulkLine {
  readonly action: Record<string, unknown>;
  readonly document?: unknown;
}

export interface BulkItemFailure {
  readonly index: string;
  readonly id: string;
  readonly status: number;
  readonly reason: string;
}

/** Error types a retry can cure (the cluster overloaded, an index closed or missing, a shard unavailable). */
export const TRANSIENT_ERRORS = /index_closed|cluster_block|es_rejected_execution|circuit_breaking|unavailable_shards|no_shard_available|timeout|index_not_found/;

/**
 * Sends one bulk request. A failure a retry can cure (the cluster overloaded, an index closed or missing, a shard
 * unavailable) throws, so the cycle is retried; a document the index refuses for good (a mapping error) is returned,
 * so the caller records it and the other documents are not held back by it. Version conflicts (a newer computation
 * is already stored) and deletes of missing documents are no failures.
 */
export async function sendBulk(client: Client, lines: readonly BulkLine[], refresh = false): Promise<BulkItemFailure[]> {
  if (lines.length === 0) return [];
  const texts = lines.map((l) => (l.document === undefined ? JSON.stringify(l.action) : `${JSON.stringify(l.action)}\n${JSON.stringify(l.document)}`));
  // Bodies of at most BULK_BODY_BYTES (one line alone may be larger): a node refuses a bulk over its indexing-pressure
  // limit (10 % of the heap: 53 MB at 512 MiB) with 429, which a retry never cures, and over http.max_content_length
  // with 413. Every document carries its own external version, so a recomputation split over several bulks, or sent
  // again after one of them failed, writes the same.
  const failures: BulkItemFailure[] = [];
  let start = 0;
  while (start < texts.length) {
    let end = start;
    let bytes = 0;
    while (end < texts.length && (end === start || bytes + Buffer.byteLength(texts[end]!) + 1 <= BULK_BODY_BYTES)) bytes += Buffer.byteLength(texts[end++]!) + 1;
    failures.push(...(await sendBulkBody(client, texts.slice(start, end).join('\n') + '\n', refresh)));
    start = end;
  }
  return failures;
}

/** The largest bulk body sendBulk sends (unless one document alone is larger). */
export const BULK_BODY_BYTES = 8 * 1024 * 1024;

async function sendBulkBody(client: Client, body: string, refresh: boolean): Promise<BulkItemFailure[]> {
  const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: body, querystring: refresh ? { refresh: 'true' } : {} });
  const result = response.body as { errors: boolean; items: Record<string, { _index: string; _id: string; status: number; error?: { type?: string; reason?: string } }>[] };
  if (!result.errors) return [];
  const failures = result.items.map((item) => Object.values(item)[0]!).filter((r) => r.status >= 300 && r.status !== 409 && r.status !== 404);
  const transient = failures.find((r) => r.status === 429 || r.status >= 500 || TRANSIENT_ERRORS.test(r.error?.type ?? ''));
  if (transient) throw new Error(`bulk write failed for ${failures.length} documents: ${JSON.stringify(transient).slice(0, 500)}`);
  return failures.map((r) => ({ index: r._index, id: r._id, status: r.status, reason: `${r.error?.type ?? 'error'}: ${r.error?.reason ?? ''}`.slice(0, 2000) }));
}

/** A recomputation computed but not yet written: the bulk lines and, per normalized `_id`, its instance. */
export interface RecomputePlan {
  readonly lines: readonly BulkLine[];
  readonly owner: ReadonlyMap<string, string>;
  readonly instances: number;
  readonly executions: number;
  readonly deletedExecutions: number;
  readonly rawEvents: number;
  readonly rejectedEvents: number;
}

/**
 * Merges newly seen raw events into the event store and recomputes their instances from it. `hits` are raw
 * documents with a usable instance id; their instances' stored events are read, the accepted new events merged in
 * (mergeStoredEvent), and the instances recomputed from the merged set. The store documents, the normalized
 * documents and the ingest errors go out in one bulk request; a failure throws and the cycle is retried, and since
 * every instance touched is recomputed whole again, nothing half-written stays.
 */
export async function recomputeInstances(client: Client, names: NormalizedIndexNames, hits: readonly RawHit[], options: WriteOptions = {}): Promise<RecomputeResult> {
  const byInstance = hitsByInstance(hits);
  return writeRecompute(client, names, await planRecompute(client, names, [...byInstance.keys()], byInstance), options);
}

/** Raw documents with a usable instance id, by instance (first seen first). */
export function hitsByInstance(hits: readonly RawHit[]): Map<string, RawHit[]> {
  const byInstance = new Map<string, RawHit[]>();
  for (const hit of hits) {
    if (hit.instanceId === undefined) continue;
    const list = byInstance.get(hit.instanceId);
    if (list) list.push(hit);
    else byInstance.set(hit.instanceId, [hit]);
  }
  return byInstance;
}

/**
 * Recomputes instances from their stored events alone, no new raw event: the re-normalization after a change of the
 * rules (normalizer-renormalize.ts). The same code as a cycle's recomputation, so the documents are the ones a cycle
 * would write; an instance retention deleted stays deleted, one without stored events is left alone.
 */
export async function recomputeStoredInstances(client: Client, names: NormalizedIndexNames, instanceIds: readonly string[], options: WriteOptions = {}): Promise<RecomputeResult> {
  return writeRecompute(client, names, await planRecompute(client, names, instanceIds, new Map()), options);
}

/**
 * Reads the instances' stored events (and their existing execution ids), merges the new raw events of each
 * (`hits`, possibly none) and computes the bulk that writes the result. Nothing is written: writeRecompute sends it.
 */
export async function planRecompute(client: Client, names: NormalizedIndexNames, instanceIds: readonly string[], hits: ReadonlyMap<string, readonly RawHit[]>): Promise<RecomputePlan> {
  const stored = await storedEventsOfInstances(client, names.eventStore, instanceIds);
  const lines: BulkLine[] = [];
  const keep = new Set<string>();
  const owner = new Map<string, string>(); // normalized _id → instance id, to record refused documents
  const versions = new Map<string, number>();
  let instances = 0;
  let executions = 0;
  let rejected = 0;
  let rawEvents = 0;
  for (const instanceId of instanceIds) {
    const group = hits.get(instanceId) ?? [];
    rawEvents += group.length;
    if (stored.pruned.has(instanceId)) {
      // Instance retention deleted this finished run: a late event must not bring back a partial copy of it.
      for (const hit of group) {
        rejected++;
        lines.push({ action: { index: { _index: names.ingestErrors, _id: ingestErrorId(hit) } }, document: ingestErrorDocument(hit, `instance ${instanceId} was deleted by instance retention (it ended before the horizon); a late event for it is not applied`, instanceId, null) });
      }
      continue;
    }
    for (const r of stored.refused.get(instanceId) ?? []) {
      // An event an earlier release accepted and the current rules refuse: recorded under its raw document, as a
      // fresh normalization of it would (rewritten at each recomputation; counted once, when it was accepted).
      const raw = { index: r.rawIndex, id: r.rawId, ingestTimeMs: r.ingestTimeMs, source: r.source };
      lines.push({ action: { index: { _index: names.ingestErrors, _id: ingestErrorId(raw) } }, document: ingestErrorDocument(raw, r.reason, instanceId, r.eventType) });
    }
    const events = stored.events.get(instanceId) ?? new Map<string, StoredEvent>();
    for (const hit of group) {
      let parsed;
      try {
        parsed = parseRawEvent(hit.source);
      } catch (error) {
        parsed = { ok: false as const, reason: `normalizer error: ${(error as Error).message}`, instanceId, eventType: null };
      }
      if (!parsed.ok) {
        rejected++;
        lines.push({ action: { index: { _index: names.ingestErrors, _id: ingestErrorId(hit) } }, document: ingestErrorDocument(hit, parsed.reason, parsed.instanceId, parsed.eventType) });
        continue;
      }
      const candidate: StoredEvent = { id: eventIdentity(parsed.event), instanceId, event: parsed.event, source: hit.source, rawIndex: hit.index, rawId: hit.id, ingestTimeMs: hit.ingestTimeMs };
      if (mergeStoredEvent(events, candidate)) {
        const merged = events.get(candidate.id)!;
        lines.push({ action: { index: { _index: names.eventStore, _id: merged.id, version: merged.ingestTimeMs, version_type: 'external_gte' } }, document: storedEventDocument(merged) });
      }
    }
    if (events.size === 0) continue;
    // The version counts the stored events the current rules refuse too: the documents there were written by a
    // computation that accepted them, with their ingest time in its version, and a new computation with a lower one
    // would be refused by every document (the run would silently keep its old shape after a rules change).
    let version = 0;
    for (const e of events.values()) version = Math.max(version, e.ingestTimeMs);
    for (const r of stored.refused.get(instanceId) ?? []) version = Math.max(version, r.ingestTimeMs);
    let normalized;
    try {
      normalized = normalizeInstance(instanceId, [...events.values()].map((e) => e.event));
    } catch (error) {
      // A bug must not stall every other instance: the instance is recorded and left as it was (no version set, so
      // its executions are not withdrawn below).
      rejected++;
      lines.push({ action: { index: { _index: names.ingestErrors, _id: `normalizer/${instanceId}` } }, document: normalizerErrorDocument(instanceId, `normalizer error: ${(error as Error).message}`, version) });
      continue;
    }
    versions.set(instanceId, version);
    const versioning = { version, version_type: 'external_gte' };
    // changed_at_ms (live updates, docs/live-updates.md): when the run was last written by a cycle, stamped by
    // writeRecompute; a recomputation from the store alone (a rules change) keeps it at the run's version, in the
    // past, so re-normalizing every run does not look like every run changing.
    lines.push({ action: { index: { _index: names.workflowInstances, _id: instanceId, ...versioning } }, document: { ...normalized.instance, [CHANGED_AT_FIELD]: version } });
    owner.set(instanceId, instanceId);
    instances++;
    for (const execution of normalized.executions) {
      const id = documentId(execution.id);
      keep.add(id);
      owner.set(id, instanceId);
      lines.push({ action: { index: { _index: names.taskExecutions, _id: id, ...versioning } }, document: execution });
      executions++;
    }
  }
  let deleted = 0;
  const existing = await existingExecutionIds(client, names.taskExecutions, [...versions.keys()]);
  for (const [id, found] of existing) {
    if (keep.has(id)) continue;
    // Not deleted: superseded (see supersededExecutionDocument), and a marker already there moves to this version.
    const version = versions.get(found.instanceId)!;
    owner.set(id, found.instanceId);
    lines.push({ action: { index: { _index: names.taskExecutions, _id: id, version, version_type: 'external_gte' } }, document: supersededExecutionDocument(found.id, found.instanceId) });
    if (!found.superseded) deleted++;
  }
  return { lines, owner, instances, executions, deletedExecutions: deleted, rawEvents, rejectedEvents: rejected };
}

/** The instance document's field the server's live updates poll (opensearch-change-feed.ts): epoch milliseconds. */
export const CHANGED_AT_FIELD = 'changed_at_ms';

export interface WriteOptions {
  /** Refresh the written indices (tests). */
  readonly refresh?: boolean;
  /** Stamp the instance documents' changed_at_ms with the time of the bulk (a cycle's new events; live updates). */
  readonly stampChanges?: boolean;
  /** Called right before the bulk; throws to withhold it (the normalizer's slot check, normalizer-lease.ts fence). */
  readonly fence?: () => Promise<void>;
}

/** Sends a planned recomputation; a document the index refuses is recorded and marks its run's task states incomplete. */
export async function writeRecompute(client: Client, names: NormalizedIndexNames, plan: RecomputePlan, options: WriteOptions = {}): Promise<RecomputeResult> {
  const { owner } = plan;
  let rejected = plan.rejectedEvents;
  if (plan.lines.length > 0) await options.fence?.();
  const refused = await sendBulk(client, options.stampChanges === true ? stamped(plan.lines, names, Date.now()) : plan.lines, options.refresh ?? false);
  if (refused.length > 0) {
    const records: BulkLine[] = refused.map((f) => ({
      action: { index: { _index: names.ingestErrors, _id: `normalizer/${f.index}/${f.id}` } },
      document: normalizerErrorDocument(owner.get(f.id) ?? null, `normalized document ${f.id} refused by ${f.index}: ${f.reason}`, Date.now()),
    }));
    rejected += records.length;
    // A run whose instance or execution document was refused has task states that may not match its execution
    // documents: marked incomplete, so the reader's taskExecutions filters take the task index (task-states.ts).
    // Only ever false here; the run's next recomputation writes its states again.
    const runs = new Set(refused.map((f) => owner.get(f.id)).filter((id): id is string => id !== undefined));
    for (const id of runs) records.push({ action: { update: { _index: names.workflowInstances, _id: id } }, document: { doc: { task_states_complete: false } } });
    await options.fence?.(); // the second bulk too: its task_states_complete updates are run documents
    const unrecorded = await sendBulk(client, records, options.refresh ?? false);
    if (unrecorded.length > 0) throw new Error(`recording refused documents failed: ${unrecorded[0]!.reason}`);
  }
  return { instances: plan.instances, executions: plan.executions, deletedExecutions: plan.deletedExecutions, rawEvents: plan.rawEvents, rejectedEvents: rejected };
}

/** The lines with every instance document's changed_at_ms set to `nowMs`. */
function stamped(lines: readonly BulkLine[], names: NormalizedIndexNames, nowMs: number): BulkLine[] {
  return lines.map((line) => ((line.action as { index?: { _index?: string } }).index?._index === names.workflowInstances ? { ...line, document: { ...(line.document as Record<string, unknown>), [CHANGED_AT_FIELD]: nowMs } } : line));
}
