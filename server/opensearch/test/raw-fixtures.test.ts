// Every real event the fixtures captured from Quarkus Flow indexes through the Fluent Bit bulk shape and the
// pipeline without a recorded problem, and its times come out as the exact microseconds.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import type { TestNamespace } from './support/test-node.js';

const REAL_FIXTURES = fileURLToPath(new URL('../../../../shared/fixtures/real/', import.meta.url));
const fixtureSets = existsSync(REAL_FIXTURES) ? readdirSync(REAL_FIXTURES).filter((d) => existsSync(join(REAL_FIXTURES, d, 'events.jsonl'))).sort() : [];

/** Exact µs of an ISO string with 9 fraction digits and Z (the iso8601 fixture's only form), half to even. */
function isoMicros(text: string): number {
  const m = /^(.{19})\.([0-9]{9})Z$/.exec(text);
  if (!m) throw new Error(`unexpected fixture time ${text}`);
  const seconds = BigInt(Date.parse(`${m[1]}Z`) / 1000);
  const nanos = BigInt(m[2]!);
  let micros = nanos / 1000n;
  const rest = nanos % 1000n;
  if (rest > 500n || (rest === 500n && micros % 2n === 1n)) micros += 1n;
  return Number(seconds * 1_000_000n + micros);
}

function holdsBigInteger(line: string): boolean {
  return [...line.matchAll(/(?<![0-9.eE+-])(-?[0-9]{19,})(?![0-9.eE])/g)].some((m) => {
    const n = BigInt(m[1]!);
    return n > 9223372036854775807n || n < -9223372036854775808n;
  });
}

describeOpenSearch('real fixture events in OpenSearch', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  it('finds the fixture sets beside the repository', () => {
    expect(fixtureSets).toEqual(['epoch-seconds', 'iso8601']);
  });

  for (const set of fixtureSets) {
    it(`indexes every event of ${set} with exact times and no problem`, async () => {
      const lines = readFileSync(join(REAL_FIXTURES, set, 'events.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
      const recordTimeMs = Date.UTC(2026, 10, 23, 13, 45, 55);
      await applyRawSchema(ns.client, { prefix: `${ns.prefix}${set}-` });
      const result = await writeEventLines(ns.client, lines.map((line) => ({ line, recordTimeMs })), `${ns.prefix}${set}-`);
      expect(result.items.filter((i) => i.status !== 201)).toEqual([]);
      expect(result.items).toHaveLength(lines.length);
      await ns.refresh();
      const response = await ns.client.transport.request({ method: 'POST', path: `/${ns.prefix}${set}-*/_search`, body: { size: 1000, query: { match_all: {} } } });
      const hits = (response.body as { hits: { hits: { _source: { timestamp: unknown; wi: { timestamp_us?: number; errors?: string[]; times_deferred?: string } } }[] } }).hits.hits;
      expect(hits).toHaveLength(lines.length);
      expect(hits.filter((h) => h._source.wi.errors !== undefined).map((h) => h._source.wi.errors)).toEqual([]);
      // Events holding an integer beyond 64 bits cannot pass an ingest script: their times are left to the normalizer.
      const deferred = hits.filter((h) => h._source.wi.times_deferred !== undefined);
      expect(deferred).toHaveLength(lines.filter(holdsBigInteger).length);
      for (const { _source: doc } of hits) {
        if (doc.wi.times_deferred !== undefined) {
          expect(doc.wi.timestamp_us).toBeUndefined();
          continue;
        }
        const ts = doc.timestamp;
        // Seconds: the double as printed by Fluent Bit (%.16g keeps µs exactly), scaled with decimal arithmetic.
        const expected = typeof ts === 'string' ? isoMicros(ts) : Number(BigInt(Math.round(Number((ts as number).toFixed(6)) * 1e6)));
        expect(doc.wi.timestamp_us).toBe(expected);
      }
    });
  }
});
