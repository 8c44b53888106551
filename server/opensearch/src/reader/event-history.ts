// A run's event history on OpenSearch (Reader.eventsOfInstances): the accepted events from the event store
// (`workflow-index-events`, event-store.ts: one document per event identity, its `source` the spelling kept) and the
// rejected raw events the normalizer recorded against the run in the ingest-errors index, with the raw document's
// `_source` while raw retention keeps its index. Both are found by `instance_id`, a keyword of both mappings (no
// mapping change). Each stored text is read the way the normalizer reads it (asForwarded: numbers as Fluent Bit
// printed them, the text repairs PostgreSQL's writer makes) without the pipeline's `wi` object, so core derives
// the same record from it as from PostgreSQL's store (workflowEventRecord): same text, same time, same order.
import type { Client } from '@opensearch-project/opensearch';
import type { Readable } from 'node:stream';
import { distinctEventRecords, type StoredEventInput, type WorkflowEventRecord } from '@workflow-index/core';
import { type JsonObject, type JsonValue, parseLosslessJson } from '@workflow-index/events';
import { PRUNED_KIND } from '../event-store.js';
import type { NormalizedIndexNames } from '../normalized-indices.js';
import { asForwarded } from '../raw-event-parse.js';
import { and, not, term, terms } from './query-dsl.js';
import { classifyError, type SearchHit, type Searcher } from './search-requests.js';

const PAGE = 5000;

interface RejectionHit {
  readonly instanceId: string;
  readonly rawIndex: string;
  readonly rawId: string;
  readonly reason: string;
  readonly eventType: string | null;
}

/** Every hit of a query, paged by search_after on `sortFields` (fields every document has, together unique). */
async function allHits(requests: Searcher, index: string, query: Record<string, unknown>, sortFields: readonly string[], source: string[], what: string): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  let after: readonly string[] | undefined;
  for (;;) {
    const body = { query, size: PAGE, sort: sortFields.map((field) => ({ [field]: 'asc' })), _source: source, ...(after === undefined ? {} : { search_after: after }) };
    const page = (await requests.search(index, body, what)).hits.hits;
    hits.push(...page);
    if (page.length < PAGE) return hits;
    after = page[page.length - 1]!.sort as readonly string[];
  }
}

/** The event as the normalizer reads it, without the raw pipeline's `wi` object. */
function storedText(value: JsonValue): JsonValue {
  const forwarded = asForwarded(value);
  if (!(forwarded instanceof Map)) return forwarded;
  const kept: JsonObject = new Map(forwarded);
  kept.delete('wi');
  return kept;
}

/** The raw documents' `_source` (lossless) by `<index>/<id>`; a document or index retention deleted is absent. */
async function rawSources(client: Client, refs: readonly { rawIndex: string; rawId: string }[], timeoutMs: number): Promise<Map<string, JsonValue>> {
  const found = new Map<string, JsonValue>();
  const docs = [...new Map(refs.filter((r) => r.rawIndex !== '').map((r) => [`${r.rawIndex}/${r.rawId}`, { _index: r.rawIndex, _id: r.rawId }])).values()];
  for (let i = 0; i < docs.length; i += PAGE) {
    let text: string;
    try {
      const response = await client.transport.request({ method: 'POST', path: '/_mget', body: { docs: docs.slice(i, i + PAGE) } }, { asStream: true, requestTimeout: timeoutMs, maxRetries: 0 });
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as Readable) chunks.push(chunk as Buffer);
      text = Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      throw classifyError(error, 'eventsOfInstances', timeoutMs);
    }
    const body = parseLosslessJson(text) as JsonObject;
    for (const doc of (body.get('docs') as JsonObject[] | undefined) ?? []) {
      if (doc.get('found') === true) found.set(`${String(doc.get('_index'))}/${String(doc.get('_id'))}`, doc.get('_source') ?? null);
    }
  }
  return found;
}

export async function eventsOfInstances(
  deps: { readonly client: Client; readonly requests: Searcher; readonly names: NormalizedIndexNames },
  instanceIds: readonly string[],
  options: { payloads: boolean },
): Promise<Map<string, WorkflowEventRecord[]>> {
  const inputs = new Map<string, StoredEventInput[]>(instanceIds.map((id) => [id, []]));
  const ids = [...new Set(instanceIds)];
  if (ids.length === 0) return new Map();
  const stored = await allHits(deps.requests, deps.names.eventStore, and([terms('instance_id', ids), not(term('kind', PRUNED_KIND))]), ['id'], ['instance_id', 'source'], 'eventsOfInstances');
  for (const hit of stored) {
    inputs.get(String(hit._source['instance_id']))?.push({ accepted: true, document: storedText(parseLosslessJson(String(hit._source['source']))), rejection: null, eventType: null });
  }
  const rejected: RejectionHit[] = (await allHits(deps.requests, deps.names.ingestErrors, terms('instance_id', ids), ['raw_index', 'raw_id', 'ingest_time', 'reason'], ['instance_id', 'raw_index', 'raw_id', 'reason', 'event_type'], 'eventsOfInstances')).map((hit) => ({
    instanceId: String(hit._source['instance_id']),
    rawIndex: String(hit._source['raw_index'] ?? ''),
    rawId: String(hit._source['raw_id'] ?? ''),
    reason: String(hit._source['reason']),
    eventType: typeof hit._source['event_type'] === 'string' ? hit._source['event_type'] : null,
  }));
  const raw = await rawSources(deps.client, rejected, deps.requests.timeoutMs);
  for (const r of rejected) {
    const source = raw.get(`${r.rawIndex}/${r.rawId}`);
    inputs.get(r.instanceId)?.push({ accepted: false, document: source === undefined ? null : storedText(source), rejection: r.reason, eventType: r.eventType });
  }
  return new Map([...inputs].map(([id, list]) => [id, distinctEventRecords(list, options)]));
}
