// The conformance suite's store on a real OpenSearch node (conformance.test.ts, conformance-auth.test.ts): the events
// written as Fluent Bit's opensearch output writes them (the `_bulk` shape into the daily raw indices, repaired by the
// ingest pipeline), normalized by the real normalizer, read by the OpenSearch Reader, all under a test prefix.
import { Client } from '@opensearch-project/opensearch';
import type { Reader } from '@workflow-index/core';
import { createOpenSearchReader, type OpenSearchReaderOptions } from '../../src/reader/opensearch-reader.js';
import { eventLines, loadNormalized } from './normalized-store.js';
import { createTestNamespace, OPENSEARCH_URL } from './test-node.js';

type ReaderTuning = Omit<OpenSearchReaderOptions, 'client' | 'prefix'>;
type Store = { reader: Reader; teardown(): Promise<void> };

/** `readerOptions`: the reader's tuning (tests lower bounds to reach the paths large data takes). */
export function conformanceStore(events: readonly Record<string, unknown>[], readerOptions: ReaderTuning = {}): Promise<Store> {
  return conformanceStoreOn([OPENSEARCH_URL], events, readerOptions);
}

/** The same store on the nodes given (a cluster: every client knows all its nodes, as OPENSEARCH_HOST lists them). */
export async function conformanceStoreOn(nodes: readonly string[], events: readonly Record<string, unknown>[], readerOptions: ReaderTuning = {}): Promise<Store> {
  const ns = createTestNamespace(nodes);
  try {
    await loadNormalized(ns.client, ns.prefix, eventLines(events));
  } catch (error) {
    await ns.drop();
    throw error;
  }
  // The reader on its own client, as the server has it.
  const reader = createOpenSearchReader({ client: new Client({ nodes: [...nodes] }), prefix: ns.prefix, ...readerOptions });
  return {
    reader,
    async teardown() {
      await reader.close();
      await ns.drop();
    },
  };
}
