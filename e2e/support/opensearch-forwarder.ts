// The Fluent Bit side of the local OpenSearch pipeline suite: the `_bulk` requests the modelled opensearch outputs
// send (fluent-bit/model/opensearch-output.ts, driven by fluent-bit/opensearch), posted to the real node one by
// one, and the per-item outcome the way the output reads it (201 created, 409 a document with that generated id
// exists already: a re-delivery; anything else would make Fluent Bit retry the chunk).
import type { Client } from '@opensearch-project/opensearch';
import type { BulkRequest } from '@workflow-index/fluent-bit';

export interface BulkOutcome {
  readonly created: number;
  /** Items answered 409: the same record with the same time was delivered before (Generate_ID). */
  readonly conflicts: number;
  readonly failed: readonly string[];
}

/** Sends each request as one `POST /_bulk` (application/x-ndjson) and counts the per-item outcomes. */
export async function sendBulkRequests(client: Client, requests: readonly BulkRequest[]): Promise<BulkOutcome> {
  let created = 0;
  let conflicts = 0;
  const failed: string[] = [];
  for (const request of requests) {
    const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: request.body });
    for (const item of (response.body as { items: Record<string, { status: number; error?: { reason?: string } }>[] }).items) {
      const result = Object.values(item)[0]!;
      if (result.status === 201) created++;
      else if (result.status === 409) conflicts++;
      else failed.push(`${result.status}: ${result.error?.reason ?? ''}`);
    }
  }
  return { created, conflicts, failed };
}
