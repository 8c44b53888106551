// The cycle's batches (normalizer-cycle.ts): the instances new raw events touched are recomputed a batch at a
// time, each batch read whole (every stored event of its instances) before its bulk is written. A batch holds at most
// NORMALIZER_BATCH_SIZE instances and, beyond its first, at most NORMALIZER_CYCLE_EVENT_BUDGET stored and new events:
// without the budget, a cycle touching 200 long runs (loops of thousands of iterations) read them all at once, once
// per worker, and a normalizer that ran out of memory restarted into the same cycle for ever.
import type { Client } from '@opensearch-project/opensearch';
import { type StoredInstance, pageWithinBudget } from './normalizer-renormalize.js';

/** Ids per counting request (a terms query and a terms aggregation over them). */
const COUNT_CHUNK = 1000;

/** How many documents each of `ids` has in the event store (0 for none): one search per thousand ids. */
export async function storedEventCounts(client: Client, eventStore: string, ids: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (let i = 0; i < ids.length; i += COUNT_CHUNK) {
    const chunk = ids.slice(i, i + COUNT_CHUNK);
    const response = await client.transport.request({
      method: 'POST',
      path: `/${eventStore}/_search`,
      body: { size: 0, track_total_hits: false, query: { terms: { instance_id: chunk } }, aggs: { ids: { terms: { field: 'instance_id', size: chunk.length } } } },
    });
    const buckets = (response.body as { aggregations: { ids: { buckets: { key: string; doc_count: number }[] } } }).aggregations.ids.buckets;
    for (const b of buckets) counts.set(b.key, b.doc_count);
  }
  return counts;
}

/** `instances` cut in order into batches of at most `limit`, each within `eventBudget` beyond its first instance. */
export function batchesWithinBudget(instances: readonly StoredInstance[], eventBudget: number, limit: number): StoredInstance[][] {
  const batches: StoredInstance[][] = [];
  for (let rest = instances; rest.length > 0;) {
    const batch = pageWithinBudget(rest, eventBudget, limit);
    batches.push(batch);
    rest = rest.slice(batch.length);
  }
  return batches;
}
