// The setup most normalizer, retention and prune tests repeat: the raw schema under the test's prefix, then a
// normalizer that created its indices and holds the lease (ready for cycle() and retention()); and the reference
// fixture's lines, written as Fluent Bit records on given days, with the raw indices they land in.
import type { Client } from '@opensearch-project/opensearch';
import { readFileSync } from 'node:fs';
import { FIXTURE_PATH, withRecordTimes } from '@workflow-index/testkit';
import { applyRawSchema } from '../../src/apply-raw-schema.js';
import type { FluentBitRecord } from '../../src/fluent-bit-bulk.js';
import { type NormalizerOptions, OpenSearchNormalizer } from '../../src/normalizer-job.js';
import { rawIndices } from '../../src/raw-event-source.js';

export const DAY_MS = 86_400_000;
/** The record time of the fixture's first day (raw indices `…-2026.05.12`), and the next day's. */
export const DAY_ONE = Date.UTC(2026, 4, 12, 9, 0, 0);
export const DAY_TWO = DAY_ONE + DAY_MS;

/** The reference fixture (server/postgresql/test/fixtures), one event a line. */
export const FIXTURE_LINES: readonly string[] = readFileSync(FIXTURE_PATH, 'utf8').split('\n').filter((l) => l.trim() !== '');

/** Lines as Fluent Bit records, one millisecond apart from `recordTimeMs`. */
export function records(lines: readonly string[], recordTimeMs: number): FluentBitRecord[] {
  return withRecordTimes(lines, recordTimeMs);
}

/** The raw schema under `prefix`, and a normalizer (refresh on, unless said otherwise) with its indices and the lease. */
export async function leasedNormalizer(client: Client, prefix: string, options: Partial<NormalizerOptions> = {}): Promise<OpenSearchNormalizer> {
  await applyRawSchema(client, { prefix });
  const normalizer = new OpenSearchNormalizer({ client, prefix, refresh: true, ...options });
  await normalizer.setup();
  if (!(await normalizer.acquire())) throw new Error(`the test normalizer (${prefix}) did not get its lease`);
  return normalizer;
}

/** The raw indices under `prefix`, sorted. */
export async function rawIndexNames(client: Client, prefix: string): Promise<string[]> {
  const response = await client.transport.request({ method: 'GET', path: `/${rawIndices(prefix)}/_settings/index.creation_date`, querystring: { allow_no_indices: 'true', ignore_unavailable: 'true' } });
  return Object.keys(response.body as object).sort();
}
