// Reading raw events for the normalizer. Responses are parsed losslessly (`_source` numbers kept as their tokens),
// because the documents the normalizer writes must carry payload numbers to the digit.
import type { Client } from '@opensearch-project/opensearch';
import type { Readable } from 'node:stream';
import { JsonNumber, type JsonObject, type JsonValue, parseLosslessJson } from '@workflow-index/events';
import { TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX, rawIndexPattern } from './raw-index-templates.js';

export interface RawHit {
  readonly index: string;
  readonly id: string;
  readonly source: JsonValue;
  /** wi.instance_id: the pipeline's copy of a valid string instanceId, else undefined. */
  readonly instanceId: string | undefined;
  /** wi.ingest_time in epoch milliseconds. */
  readonly ingestTimeMs: number;
}

/** A raw document seen by the touched-instances scan (no `_source`). */
export interface RawMark {
  readonly key: string;
  readonly index: string;
  readonly id: string;
  readonly instanceId: string | undefined;
  readonly ingestTimeMs: number;
}

export function rawIndices(prefix = ''): string {
  return `${rawIndexPattern(WORKFLOW_RAW_PREFIX, prefix)},${rawIndexPattern(TASK_RAW_PREFIX, prefix)}`;
}

export async function requestLossless(client: Client, method: string, path: string, body?: unknown, querystring?: Record<string, string>): Promise<JsonObject> {
  const response = await client.transport.request({ method, path, body: body as Record<string, unknown>, querystring }, { asStream: true });
  const chunks: Buffer[] = [];
  for await (const chunk of response.body as Readable) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const parsed = parseLosslessJson(text);
  if (!(parsed instanceof Map)) throw new Error(`unexpected OpenSearch response: ${text.slice(0, 200)}`);
  if ((response.statusCode ?? 200) >= 300) throw new Error(`OpenSearch ${method} ${path} answered ${response.statusCode}: ${text.slice(0, 500)}`);
  return parsed;
}

export function hitsOf(body: JsonObject): JsonObject[] {
  const hits = body.get('hits') as JsonObject | undefined;
  return ((hits?.get('hits') as JsonValue[] | undefined) ?? []) as JsonObject[];
}

function firstField(hit: JsonObject, field: string): string | undefined {
  const fields = hit.get('fields') as JsonObject | undefined;
  const values = fields?.get(field) as JsonValue[] | undefined;
  const v = values?.[0];
  if (v instanceof JsonNumber) return v.text;
  return typeof v === 'string' ? v : undefined;
}

export function sortValues(values: readonly JsonValue[]): unknown[] {
  return values.map((v) => (v instanceof JsonNumber ? Number(v.text) : v));
}

const DOC_FIELDS = [{ field: 'wi.ingest_time', format: 'epoch_millis' }, { field: 'wi.instance_id' }];

function toHit(hit: JsonObject): RawHit {
  const index = hit.get('_index') as string;
  const id = hit.get('_id') as string;
  const source = hit.get('_source') ?? null;
  const wi = source instanceof Map ? (source.get('wi') as JsonValue | undefined) : undefined;
  const iid = wi instanceof Map ? wi.get('instance_id') : undefined;
  return { index, id, source, instanceId: typeof iid === 'string' ? iid : undefined, ingestTimeMs: Number(firstField(hit, 'wi.ingest_time') ?? 0) };
}

/**
 * Every raw document ingested at or after `sinceMs` (and before `untilMs` when given), without `_source`, in (ingest
 * time, id) order. Paged with search_after, so a burst of any size is read whole.
 */
export async function scanIngestedSince(client: Client, prefix: string, sinceMs: number, untilMs?: number, pageSize = 5000): Promise<RawMark[]> {
  const marks: RawMark[] = [];
  let after: JsonValue[] | undefined;
  for (;;) {
    const body: Record<string, unknown> = {
      size: pageSize,
      _source: false,
      track_total_hits: false,
      query: { range: { 'wi.ingest_time': { gte: sinceMs, ...(untilMs === undefined ? {} : { lt: untilMs }), format: 'epoch_millis' } } },
      sort: [{ 'wi.ingest_time': 'asc' }, { _id: 'asc' }],
      docvalue_fields: DOC_FIELDS,
    };
    if (after) body['search_after'] = sortValues(after);
    const response = await requestLossless(client, 'POST', `/${rawIndices(prefix)}/_search`, body, { ignore_unavailable: 'true', allow_no_indices: 'true' });
    const hits = hitsOf(response);
    for (const hit of hits) {
      const index = hit.get('_index') as string;
      const id = hit.get('_id') as string;
      marks.push({ key: `${index}/${id}`, index, id, instanceId: firstField(hit, 'wi.instance_id'), ingestTimeMs: Number(firstField(hit, 'wi.ingest_time') ?? 0) });
    }
    if (hits.length < pageSize) return marks;
    after = hits[hits.length - 1]!.get('sort') as JsonValue[];
  }
}

/** The given raw documents with their `_source` (the events a cycle found new), in requests of `chunk` documents.
 * A document deleted meanwhile (raw retention) is simply not returned. */
export async function rawEventsByKey(client: Client, marks: readonly RawMark[], chunk = 2000): Promise<RawHit[]> {
  const hits: RawHit[] = [];
  const ingestTimes = new Map(marks.map((m) => [`${m.index}/${m.id}`, m.ingestTimeMs]));
  for (let i = 0; i < marks.length; i += chunk) {
    const slice = marks.slice(i, i + chunk);
    const response = await requestLossless(client, 'POST', '/_mget', { docs: slice.map((m) => ({ _index: m.index, _id: m.id })) });
    const docs = (response.get('docs') as JsonObject[] | undefined) ?? [];
    for (const d of docs) {
      if (d.get('found') !== true) continue;
      const hit = toHit(d);
      hits.push({ ...hit, ingestTimeMs: ingestTimes.get(`${hit.index}/${hit.id}`) ?? 0 });
    }
  }
  return hits;
}
