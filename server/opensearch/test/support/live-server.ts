// An OpenSearch server with live updates for a test: the real reader and the real change feed (polling the stamps
// the normalizer writes) under the test's prefix, the app served by a real node:http server; deliveries go through
// Fluent Bit's bulk shape into the raw indices and one normalizer, run to quiescence.
import type { Client } from '@opensearch-project/opensearch';
import { createApp } from '@workflow-index/core';
import type { App } from '@workflow-index/core';
import { MemoryLog, testConfig, serveApp } from '@workflow-index/testkit';
import type { Event } from '@workflow-index/testkit';
import { applyRawSchema } from '../../src/apply-raw-schema.js';
import { writeEventLines } from '../../src/fluent-bit-bulk.js';
import { applyNormalizedIndices, normalizedIndexNames } from '../../src/normalized-indices.js';
import { OpenSearchNormalizer } from '../../src/normalizer-job.js';
import { OpenSearchChangeFeed } from '../../src/opensearch-change-feed.js';
import { createOpenSearchReader } from '../../src/reader/opensearch-reader.js';

export interface LiveServer {
  readonly app: App;
  readonly baseUrl: string;
  /** Writes the events as one Fluent Bit flush and runs the normalizer until it finds nothing new. */
  deliver(events: readonly Event[]): Promise<void>;
  close(): Promise<void>;
}

let recordTimeMs = Date.UTC(2026, 4, 12, 9, 0, 0);

/**
 * `pollIntervalMs`: the feed's (tests poll fast; the push benchmark keeps the production default). `refresh`: whether
 * the normalizer refreshes what it wrote (false: the indices' own refresh intervals decide when it is searchable).
 */
export async function startLiveServer(client: Client, prefix: string, env: Record<string, string> = {}, pollIntervalMs = 100, refresh = true): Promise<LiveServer> {
  await applyRawSchema(client, { prefix });
  await applyNormalizedIndices(client, prefix);
  const normalizer = new OpenSearchNormalizer({ client, prefix, refresh });
  await normalizer.setup();
  if (!(await normalizer.acquire())) throw new Error('the test normalizer did not get its lease');
  const log = new MemoryLog();
  const logger = log.logger();
  const reader = createOpenSearchReader({ client, prefix, requestTimeoutMs: 10_000, ownsClient: false });
  const feed = new OpenSearchChangeFeed({ client, index: normalizedIndexNames(prefix).workflowInstances, logger, pollIntervalMs });
  const app = createApp({ config: testConfig({ GRAPHQL_SUBSCRIPTION_HEARTBEAT_MS: '200', ...env }), reader, logger, backend: 'opensearch', changeFeed: feed });
  const served = await serveApp(app);
  return {
    app,
    baseUrl: served.baseUrl,
    deliver: async (events) => {
      const records = events.map((e) => ({ line: JSON.stringify(e), recordTimeMs: (recordTimeMs += 1) }));
      const written = await writeEventLines(client, records, prefix);
      const refused = written.items.filter((item) => item.status !== 201);
      if (refused.length > 0) throw new Error(`bulk refused ${refused.length} documents: ${JSON.stringify(refused[0])}`);
      await client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh`, querystring: { allow_no_indices: 'true' } });
      for (let guard = 0; guard < 20; guard++) if ((await normalizer.cycle()).newRawEvents === 0) return;
      throw new Error('the normalizer did not reach quiescence in 20 cycles');
    },
    close: async () => {
      await served.close();
      await app.dispose();
    },
  };
}
