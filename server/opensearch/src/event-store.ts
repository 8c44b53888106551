// The event store `workflow-index-events`: every accepted event, once per event identity, kept for as long as its
// instance is served. The normalizer recomputes an instance from here, not from the raw indices, so the daily raw
// indices are only an inbox that retention can delete (a late event for an instance whose raw events are gone is
// merged with its stored events: the same result as with the raw events kept). This is the twin of PostgreSQL's
// workflow_index.task_events (the write path's store of task events, one row per identity).
//   _id: the event identity (write-path.md "Event identity and order"): a task event by (instance, position,
//        timestamp, kind, content hash); a workflow event by everything the instance merge reads, payload numbers
//        canonical (canonical-number.ts), so two workflow events with one _id contribute the same to every merged
//        field but the spelling of their payload numbers.
//   source: the raw `_source` of the first delivery, as lossless JSON text (payload numbers to the digit). A later
//        delivery of the same identity, by another path and in another spelling of its numbers, is a duplicate: it
//        moves the version on and changes nothing served (PostgreSQL keeps the first delivery likewise).
import type { Client } from '@opensearch-project/opensearch';
import { createHash } from 'node:crypto';
import { canonicalJson, jsonbText } from '@workflow-index/events';
import { JsonNumber, type JsonObject, type JsonValue, parseLosslessJson } from '@workflow-index/events';
import { DEFAULT_INDEX_LAYOUT, type IndexLayout, layoutSettings } from './index-layout.js';
import { type ParsedEvent, parseRawEvent } from './raw-event-parse.js';
import { hitsOf, requestLossless, sortValues } from './raw-event-source.js';

export const EVENT_STORE_INDEX = 'workflow-index-events';

const keyword = { type: 'keyword' } as const;

export function eventStoreIndex(layout: IndexLayout = DEFAULT_INDEX_LAYOUT): Record<string, unknown> {
  return {
    settings: { index: { ...layoutSettings(layout), refresh_interval: '1s' } },
    mappings: {
      dynamic: 'strict',
      _meta: { managed_by: 'workflow-index', role: 'event store: the normalizer recomputes instances from it' },
      properties: {
        id: keyword,
        instance_id: keyword,
        kind: keyword,
        // Ingest time (epoch ms) of the newest delivery of this event: the version of what is computed from it.
        ingest_time_ms: { type: 'long' },
        raw_index: keyword,
        raw_id: keyword,
        source: { type: 'keyword', index: false, doc_values: false },
      },
    },
  };
}

/** JSON text of a lossless value: numbers exactly as their tokens. */
export function stringifyLossless(v: JsonValue): string {
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) return `[${v.map(stringifyLossless).join(',')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${JSON.stringify(k)}:${stringifyLossless(x)}`).join(',')}}`;
  return JSON.stringify(v);
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
/** A payload's identity text: its numbers canonical (the served payload keeps the delivered spelling). */
const payloadText = (v: JsonValue): string | null => (v === null ? null : jsonbText(canonicalJson(v)));

/** The store `_id` of an accepted event (see the header). */
export function eventIdentity(e: ParsedEvent): string {
  if (e.kind === 'task') return `t-${sha256(JSON.stringify([e.instanceId, e.taskPosition, e.ts, e.action, e.contentHash.toString()]))}`;
  return `w-${sha256(JSON.stringify([
    e.instanceId, e.action, e.ts, e.namespace, e.name, e.version, e.status, e.startTime, e.endTime,
    e.inputRank, payloadText(e.input), e.hasOutput, payloadText(e.output),
    e.error === null ? null : [e.error.type, e.error.title, e.error.detail, e.error.status, e.error.instance],
  ]))}`;
}

/** One event as stored (or about to be). */
export interface StoredEvent {
  readonly id: string;
  /** The raw document's wi.instance_id: the instance the event is normalized into (its document id). */
  readonly instanceId: string;
  readonly event: ParsedEvent;
  readonly source: JsonValue;
  readonly rawIndex: string;
  readonly rawId: string;
  readonly ingestTimeMs: number;
}

export function storedEventDocument(s: StoredEvent): Record<string, unknown> {
  return { id: s.id, instance_id: s.instanceId, kind: s.event.kind, ingest_time_ms: s.ingestTimeMs, raw_index: s.rawIndex, raw_id: s.rawId, source: stringifyLossless(s.source) };
}

/**
 * Merges one accepted event into an instance's stored events (id → event), in delivery order (a cycle's raw events
 * by ingest time, then id). Returns true when the store must be written: a new identity, or a newer delivery of a
 * stored one (the version moves on; the first delivery's spelling stays).
 */
export function mergeStoredEvent(events: Map<string, StoredEvent>, candidate: StoredEvent): boolean {
  const kept = events.get(candidate.id);
  if (kept === undefined) {
    events.set(candidate.id, candidate);
    return true;
  }
  if (candidate.ingestTimeMs <= kept.ingestTimeMs) return false;
  events.set(candidate.id, { ...kept, ingestTimeMs: candidate.ingestTimeMs });
  return true;
}

/** The tombstone instance retention leaves for a deleted run (see instance-retention.ts). */
export const PRUNED_KIND = 'pruned';

export function tombstoneId(instanceId: string): string {
  return `p-${sha256(instanceId)}`;
}

export function tombstoneDocument(instanceId: string, nowMs: number): Record<string, unknown> {
  return { id: tombstoneId(instanceId), instance_id: instanceId, kind: PRUNED_KIND, ingest_time_ms: nowMs, raw_index: '', raw_id: '', source: '' };
}

/** A stored event the current rules refuse (accepted by the rules of an earlier release). */
export interface RefusedStoredEvent {
  readonly instanceId: string;
  readonly rawIndex: string;
  readonly rawId: string;
  readonly reason: string;
  readonly eventType: string | null;
  readonly ingestTimeMs: number;
  /** The stored spelling (recorded with the refusal, as a raw event's is). */
  readonly source: JsonValue;
}

export interface StoredInstances {
  /** Stored events by instance (id → event). */
  readonly events: Map<string, Map<string, StoredEvent>>;
  /** Instances instance retention deleted: their late events are not applied. */
  readonly pruned: Set<string>;
  /** Stored events the current rules refuse, by instance: left out, and recorded as the raw event would be. */
  readonly refused: Map<string, RefusedStoredEvent[]>;
}

/** Every stored event of the given instances, grouped by instance, and which of them were pruned. */
export async function storedEventsOfInstances(client: Client, index: string, instanceIds: readonly string[], pageSize = 2000): Promise<StoredInstances> {
  const byInstance = new Map<string, Map<string, StoredEvent>>();
  const pruned = new Set<string>();
  const refused = new Map<string, RefusedStoredEvent[]>();
  if (instanceIds.length === 0) return { events: byInstance, pruned, refused };
  let after: JsonValue[] | undefined;
  for (;;) {
    const body: Record<string, unknown> = { size: pageSize, track_total_hits: false, query: { terms: { instance_id: instanceIds } }, sort: [{ id: 'asc' }] };
    if (after) body['search_after'] = sortValues(after);
    const page = hitsOf(await requestLossless(client, 'POST', `/${index}/_search`, body, { ignore_unavailable: 'true', allow_no_indices: 'true' }));
    for (const hit of page) {
      const doc = hit.get('_source') as JsonObject;
      const instanceId = doc.get('instance_id') as string;
      if (doc.get('kind') === PRUNED_KIND) {
        pruned.add(instanceId);
        continue;
      }
      const source = parseLosslessJson(doc.get('source') as string);
      const parsed = parseRawEvent(source);
      const rawIndex = doc.get('raw_index') as string;
      const rawId = doc.get('raw_id') as string;
      const ingestTimeMs = Number((doc.get('ingest_time_ms') as JsonNumber).text);
      // Accepted when stored; only a change of the rules can refuse it now, and then it no longer counts.
      if (!parsed.ok) {
        const list = refused.get(instanceId) ?? [];
        list.push({ instanceId, rawIndex, rawId, reason: parsed.reason, eventType: parsed.eventType, ingestTimeMs, source });
        refused.set(instanceId, list);
        continue;
      }
      const stored: StoredEvent = { id: doc.get('id') as string, instanceId, event: parsed.event, source, rawIndex, rawId, ingestTimeMs };
      let events = byInstance.get(instanceId);
      if (events === undefined) byInstance.set(instanceId, (events = new Map()));
      events.set(stored.id, stored);
    }
    if (page.length < pageSize) return { events: byInstance, pruned, refused };
    after = page[page.length - 1]!.get('sort') as JsonValue[];
  }
}
