// Events into a real node through the real ingestion path, for reader tests: Fluent Bit's `_bulk` shape into the raw
// indices (the ingest pipeline repairs them), then the normalizer run to quiescence, under a test prefix.
import type { Client } from '@opensearch-project/opensearch';
import { applyRawSchema } from '../../src/apply-raw-schema.js';
import { writeEventLines } from '../../src/fluent-bit-bulk.js';
import { OpenSearchNormalizer } from '../../src/normalizer-job.js';

/** A fixed record time, so raw index names are stable; each line one millisecond after the previous. */
export const RECORD_TIME_MS = Date.UTC(2026, 4, 12, 9, 0, 0);

export async function loadNormalized(client: Client, prefix: string, lines: readonly string[], flushSize = 500): Promise<void> {
  await applyRawSchema(client, { prefix });
  for (let i = 0; i < lines.length; i += flushSize) {
    const records = lines.slice(i, i + flushSize).map((line, j) => ({ line, recordTimeMs: RECORD_TIME_MS + i + j }));
    const written = await writeEventLines(client, records, prefix);
    const refused = written.items.filter((item) => item.status !== 201);
    if (refused.length > 0) throw new Error(`bulk refused ${refused.length} documents: ${JSON.stringify(refused[0])}`);
  }
  await client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh`, querystring: { allow_no_indices: 'true' } });
  const normalizer = new OpenSearchNormalizer({ client, prefix, refresh: true });
  await normalizer.setup();
  if (!(await normalizer.acquire())) throw new Error('the test normalizer did not get its lease');
  // To quiescence: a cycle that finds nothing new.
  for (let guard = 0; guard < 20; guard++) {
    const cycle = await normalizer.cycle();
    if (cycle.newRawEvents === 0) return;
  }
  throw new Error('the normalizer did not reach quiescence in 20 cycles');
}

export const eventLines = (events: readonly Record<string, unknown>[]): string[] => events.map((e) => JSON.stringify(e));
