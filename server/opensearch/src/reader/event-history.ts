// A run's event history on OpenSearch (Reader.eventsOfInstances): the accepted events from the event store
// (`workflow-index-events`, event-store.ts: one document per event identity, its `source` the spelling kept) and the
// rejected raw events the normalizer recorded against the run in the ingest-errors index, whose `source` holds the
// raw event as read (records written before that field existed have none: their `data` is null). Both are found by
// `instance_id`, a keyword of both mappings; no raw index is read (the server's role may not read raw documents).
// Each stored text is read the way the normalizer reads it (asForwarded: numbers as Fluent Bit printed them, the text
// repairs PostgreSQL's writer makes) without the raw pipeline's `wi` object, so core derives the same record from it
// as from PostgreSQL's store (workflowEventRecord): same text, same time, same order.
import { distinctEventRecords, type StoredEventInput, type WorkflowEventRecord } from '@workflow-index/core';
import { type JsonObject, type JsonValue, parseLosslessJson } from '@workflow-index/events';
import { PRUNED_KIND } from '../event-store.js';
import type { NormalizedIndexNames } from '../normalized-indices.js';
import { asForwarded } from '../raw-event-parse.js';
import { and, not, term, terms } from './query-dsl.js';
import type { SearchHit, Searcher } from './search-requests.js';

const PAGE = 5000;

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

export async function eventsOfInstances(
  deps: { readonly requests: Searcher; readonly names: NormalizedIndexNames },
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
  const rejected = await allHits(deps.requests, deps.names.ingestErrors, terms('instance_id', ids), ['raw_index', 'raw_id', 'ingest_time', 'reason'], ['instance_id', 'reason', 'event_type', 'source'], 'eventsOfInstances');
  for (const hit of rejected) {
    const source = hit._source['source'];
    inputs.get(String(hit._source['instance_id']))?.push({
      accepted: false,
      document: typeof source === 'string' ? storedText(parseLosslessJson(source)) : null,
      rejection: String(hit._source['reason']),
      eventType: typeof hit._source['event_type'] === 'string' ? hit._source['event_type'] : null,
    });
  }
  return new Map([...inputs].map(([id, list]) => [id, distinctEventRecords(list, options)]));
}
