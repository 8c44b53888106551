// A Fluent Bit flush against a cluster that may lose a node meanwhile: sent until every item is in, as Fluent Bit's
// retries do.
import type { Client } from '@opensearch-project/opensearch';
import { setTimeout as sleep } from 'node:timers/promises';
import { fluentBitDocument, writeEventLines } from '../../src/fluent-bit-bulk.js';
import type { FluentBitRecord } from '../../src/fluent-bit-bulk.js';

/**
 * Writes `records` as one flush until every item is in: a flush that fails as a whole (no node answered in time) or
 * items that fail are sent again half a second later; 409 is a document of an earlier attempt (Fluent Bit's
 * generated id) that did arrive. Answers how many times it sent again.
 */
export async function flushUntilWritten(client: Client, records: readonly FluentBitRecord[], prefix: string): Promise<number> {
  let retries = 0;
  let pending = records;
  while (pending.length > 0) {
    try {
      const written = await writeEventLines(client, pending, prefix);
      const failed = new Set(written.items.filter((item) => item.status !== 201 && item.status !== 409).map((item) => item.id));
      pending = pending.filter((record) => failed.has(fluentBitDocument('', record).id));
    } catch {
      // sent again
    }
    if (pending.length > 0) {
      retries++;
      await sleep(500);
    }
  }
  return retries;
}
