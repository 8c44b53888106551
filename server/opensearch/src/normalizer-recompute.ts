// Recomputes the normalized documents of a set of instances from all their raw events and writes them in one bulk
// request: instance documents, execution documents, deletes of execution documents whose id disappeared (a late,
// earlier loop iteration takes over the plain id), and one ingest-errors document per rejected raw event.
// Writes carry an external version (the newest ingest time among the instance's raw events, `external_gte`), so a
// stale writer — a normalizer that lost its lease mid-cycle — can never replace a newer computation.
import type { Client } from '@opensearch-project/opensearch';
import { normalizeInstance } from './normalize-instance.js';
import type { NormalizedIndexNames } from './normalized-indices.js';
import { type ParsedEvent, parseRawEvent } from './raw-event-parse.js';
import { type RawHit, rawEventsOfInstances } from './raw-event-source.js';

export interface IngestErrorDocument {
  readonly raw_index: string;
  readonly raw_id: string;
  readonly instance_id: string | null;
  readonly event_type: string | null;
  readonly reason: string;
  readonly ingest_time: number;
}

export interface RecomputeResult {
  readonly instances: number;
  readonly executions: number;
  readonly deletedExecutions: number;
  readonly rawEvents: number;
  readonly rejectedEvents: number;
}

export function ingestErrorDocument(hit: RawHit, reason: string, instanceId: string | null, eventType: string | null): IngestErrorDocument {
  return { raw_index: hit.index, raw_id: hit.id, instance_id: instanceId, event_type: eventType, reason, ingest_time: hit.ingestTimeMs };
}

/** The ingest-errors document id of a raw event: writing it again changes nothing. */
export function ingestErrorId(hit: { index: string; id: string }): string {
  return `${hit.index}/${hit.id}`;
}

async function existingExecutionIds(client: Client, index: string, instanceIds: readonly string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  let after: unknown[] | undefined;
  for (;;) {
    const body: Record<string, unknown> = {
      size: 5000,
      _source: false,
      track_total_hits: false,
      query: { terms: { instance_id: instanceIds } },
      docvalue_fields: ['instance_id'],
      sort: [{ id: 'asc' }],
    };
    if (after) body['search_after'] = after;
    const response = await client.transport.request({ method: 'POST', path: `/${index}/_search`, body });
    const hits = (response.body as { hits: { hits: { _id: string; sort: unknown[]; fields: { instance_id: string[] } }[] } }).hits.hits;
    for (const hit of hits) found.set(hit._id, hit.fields.instance_id[0]!);
    if (hits.length < 5000) return found;
    after = hits[hits.length - 1]!.sort;
  }
}

export interface BulkLine {
  readonly action: Record<string, unknown>;
  readonly document?: unknown;
}

export async function sendBulk(client: Client, lines: readonly BulkLine[], refresh = false): Promise<void> {
  if (lines.length === 0) return;
  const body = lines.map((l) => (l.document === undefined ? JSON.stringify(l.action) : `${JSON.stringify(l.action)}\n${JSON.stringify(l.document)}`)).join('\n') + '\n';
  const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: body, querystring: refresh ? { refresh: 'true' } : {} });
  const result = response.body as { errors: boolean; items: Record<string, { status: number; error?: unknown }>[] };
  if (!result.errors) return;
  // A version conflict means a newer computation is already there; a delete of a missing document is fine.
  const failures = result.items.map((item) => Object.values(item)[0]!).filter((r) => r.status >= 300 && r.status !== 409 && r.status !== 404);
  if (failures.length > 0) throw new Error(`bulk write failed for ${failures.length} documents: ${JSON.stringify(failures[0]).slice(0, 500)}`);
}

/** Recomputes and writes the given instances. */
export async function recomputeInstances(client: Client, names: NormalizedIndexNames, rawPrefix: string, instanceIds: readonly string[], options: { refresh?: boolean } = {}): Promise<RecomputeResult> {
  const hits = await rawEventsOfInstances(client, rawPrefix, instanceIds);
  const byInstance = new Map<string, RawHit[]>();
  for (const hit of hits) {
    if (hit.instanceId === undefined) continue;
    const list = byInstance.get(hit.instanceId);
    if (list) list.push(hit);
    else byInstance.set(hit.instanceId, [hit]);
  }
  const lines: BulkLine[] = [];
  const keep = new Set<string>();
  let instances = 0;
  let executions = 0;
  let rejected = 0;
  for (const [instanceId, group] of byInstance) {
    const accepted: ParsedEvent[] = [];
    let version = 0;
    for (const hit of group) {
      version = Math.max(version, hit.ingestTimeMs);
      let parsed;
      try {
        parsed = parseRawEvent(hit.source);
      } catch (error) {
        parsed = { ok: false as const, reason: `normalizer error: ${(error as Error).message}`, instanceId, eventType: null };
      }
      if (parsed.ok) accepted.push(parsed.event);
      else {
        rejected++;
        lines.push({ action: { index: { _index: names.ingestErrors, _id: ingestErrorId(hit) } }, document: ingestErrorDocument(hit, parsed.reason, parsed.instanceId, parsed.eventType) });
      }
    }
    if (accepted.length === 0) continue;
    const normalized = normalizeInstance(instanceId, accepted);
    const versioning = { version, version_type: 'external_gte' };
    lines.push({ action: { index: { _index: names.workflowInstances, _id: instanceId, ...versioning } }, document: normalized.instance });
    instances++;
    for (const execution of normalized.executions) {
      keep.add(execution.id);
      lines.push({ action: { index: { _index: names.taskExecutions, _id: execution.id, ...versioning } }, document: execution });
      executions++;
    }
  }
  let deleted = 0;
  const existing = await existingExecutionIds(client, names.taskExecutions, [...byInstance.keys()]);
  for (const [id, instanceId] of existing) {
    if (keep.has(id)) continue;
    const version = Math.max(...byInstance.get(instanceId)!.map((h) => h.ingestTimeMs));
    lines.push({ action: { delete: { _index: names.taskExecutions, _id: id, version, version_type: 'external_gte' } } });
    deleted++;
  }
  await sendBulk(client, lines, options.refresh ?? false);
  return { instances, executions, deletedExecutions: deleted, rawEvents: hits.length, rejectedEvents: rejected };
}
