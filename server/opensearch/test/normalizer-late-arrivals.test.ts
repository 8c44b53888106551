// Raw documents that become searchable after the normalizer's overlap window has passed their stamp (a hung node
// held the write after the ingest pipeline stamped it) are normalized all the same: the late-arrival audit
// (normalizer-late-arrivals.ts) counts the late window per second and lists the grown seconds again. The late
// visibility is made on the real node: the document is run through the raw pipeline by `_simulate`, its
// `wi.ingest_time` set back by up to the late window, and indexed without the pipeline, at an arbitrary point of a
// sequence of cycles and normalizer restarts. Whatever the sequence, the result equals one clean normalization.
import fc from 'fast-check';
import type { Client } from '@opensearch-project/opensearch';
import { describe, expect, it as unitIt } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import type { JsonObject } from '@workflow-index/events';
import { stringifyLossless } from '../src/event-store.js';
import { type FluentBitRecord, fluentBitDocument, rawPrefixFor, writeEventLines } from '../src/fluent-bit-bulk.js';
import { LATE_BUCKET_MS, LateArrivalAudit, type StoredLateCounts, countPerBucket } from '../src/normalizer-late-arrivals.js';
import { OpenSearchNormalizer } from '../src/normalizer-job.js';
import { slotOfInstance, takeoverBoundMs } from '../src/normalizer-slots.js';
import { rawEventPipelineName } from '../src/raw-event-pipeline.js';
import { requestLossless } from '../src/raw-event-source.js';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { generatedEventLines } from './support/generated-events.js';
import { loadNormalized, RECORD_TIME_MS } from './support/normalized-store.js';
import { type ComparableState, openSearchState } from './support/opensearch-state.js';
import type { TestNamespace } from './support/test-node.js';

const OVERLAP_MS = 10_000;
const LATE_WINDOW_MS = 120_000;
const LINES = generatedEventLines(10, 20_261_129);
const RECORDS: FluentBitRecord[] = LINES.map((line, i) => ({ line, recordTimeMs: RECORD_TIME_MS + i }));

/** Indexes `record` as the pipeline would have, but stamped `stampMs` and searchable only now. */
async function writeLate(ns: TestNamespace, prefix: string, record: FluentBitRecord, stampMs: number): Promise<void> {
  const eventType = (JSON.parse(record.line) as { eventType: string }).eventType;
  const doc = fluentBitDocument(`${prefix}${rawPrefixFor(eventType)}`, record);
  // Bodies as text: the event's numbers stay as printed, as Fluent Bit sends them.
  const simulated = await requestLossless(ns.client, 'POST', `/_ingest/pipeline/${rawEventPipelineName(prefix)}/_simulate`, `{"docs":[{"_index":${JSON.stringify(doc.index)},"_id":${JSON.stringify(doc.id)},"_source":${doc.source}}]}`);
  const source = (((simulated.get('docs') as JsonObject[])[0]!.get('doc') as JsonObject).get('_source') as JsonObject);
  (source.get('wi') as JsonObject).set('ingest_time', new Date(stampMs).toISOString());
  await ns.client.transport.request({ method: 'PUT', path: `/${doc.index}/_doc/${encodeURIComponent(doc.id)}`, querystring: { pipeline: '_none', op_type: 'create', refresh: 'true' }, body: stringifyLossless(source) });
}

type Step = { readonly kind: 'on-time'; readonly count: number } | { readonly kind: 'late'; readonly ageMs: number } | { readonly kind: 'cycle' } | { readonly kind: 'restart' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('on-time' as const), count: fc.integer({ min: 1, max: 8 }) }),
  // Older than the overlap behind the newest stamp (plus a margin for a slow machine), within the late window.
  fc.record({ kind: fc.constant('late' as const), ageMs: fc.integer({ min: OVERLAP_MS + 5000, max: LATE_WINDOW_MS - 15_000 }) }),
  fc.constant({ kind: 'cycle' as const }),
  fc.constant({ kind: 'restart' as const }),
);

describe('the audit\'s counts as checkpoints store them', () => {
  const stored = fc.record({ from_ms: fc.integer({ min: 0, max: 1000 }).map((n) => n * LATE_BUCKET_MS), counts: fc.array(fc.nat({ max: 5 }), { maxLength: 20 }) }).map((c): StoredLateCounts => ({ bucket_ms: LATE_BUCKET_MS, ...c }));
  const trimmed = (counts: readonly number[]): number[] => {
    const end = counts.reduceRight((found, c, i) => (found === -1 && c > 0 ? i : found), -1);
    return counts.slice(0, end + 1);
  };
  // Only the counting and the listing need the node; adopt and stored are this process's memory.
  const audit = (): LateArrivalAudit => new LateArrivalAudit(undefined as unknown as Client, '');

  unitIt('stores what it adopted; two slots\' counts give the smaller of each second (absent is zero)', () => {
    fc.assert(fc.property(stored, stored, (x, y) => {
      const one = audit();
      one.adopt(x);
      expect(one.stored(x.from_ms).counts).toEqual(trimmed(x.counts));
      one.adopt(y);
      const from = Math.min(x.from_ms, y.from_ms);
      const at = (c: StoredLateCounts, ms: number): number => c.counts[(ms - c.from_ms) / LATE_BUCKET_MS] ?? 0;
      const end = Math.max(x.from_ms + x.counts.length * LATE_BUCKET_MS, y.from_ms + y.counts.length * LATE_BUCKET_MS);
      const expected = Array.from({ length: Math.max(0, end - from) / LATE_BUCKET_MS }, (_, i) => from + i * LATE_BUCKET_MS)
        .map((ms) => (ms < x.from_ms || ms < y.from_ms ? 0 : Math.min(at(x, ms), at(y, ms))));
      expect(one.stored(from).counts).toEqual(trimmed(expected));
    }));
  });
});

describeOpenSearch('raw documents that become searchable late (real OpenSearch node)', () => {
  let ns: TestNamespace;
  let expected: ComparableState;
  let runs = 0;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    await loadNormalized(ns.client, `${ns.prefix}clean-`, LINES);
    expected = await openSearchState(ns.client, new OpenSearchNormalizer({ client: ns.client, prefix: `${ns.prefix}clean-` }).names);
  }, 120_000);

  async function normalizer(prefix: string): Promise<OpenSearchNormalizer> {
    const n = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, overlapMs: OVERLAP_MS, lateWindowMs: LATE_WINDOW_MS, retentionIntervalMs: 0 });
    await n.setup();
    if (!(await n.acquire())) throw new Error('the test normalizer did not get its slots');
    return n;
  }

  it('any sequence of on-time and late deliveries, cycles and restarts ends in one clean normalization', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 12 }), async (steps) => {
        const prefix = `${ns.prefix}p${runs++}-`;
        await applyRawSchema(ns.client, { prefix });
        let n = await normalizer(prefix);
        let next = 0;
        const onTime = async (count: number): Promise<void> => {
          const records = RECORDS.slice(next, next + count);
          next += records.length;
          if (records.length === 0) return;
          expect((await writeEventLines(ns.client, records, prefix)).errors).toBe(false);
          await ns.client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh` });
        };
        for (const s of steps) {
          if (s.kind === 'on-time') await onTime(s.count);
          else if (s.kind === 'late' && next < RECORDS.length) await writeLate(ns, prefix, RECORDS[next++]!, Date.now() - s.ageMs);
          else if (s.kind === 'cycle') await n.cycle();
          else if (s.kind === 'restart') {
            await n.release();
            n = await normalizer(prefix);
          }
        }
        await onTime(RECORDS.length);
        for (let guard = 0; (await n.cycle()).newRawEvents > 0; guard++) if (guard > 10) throw new Error('no quiescence in 10 cycles');
        const actual = await openSearchState(ns.client, n.names);
        await n.release();
        await ns.client.transport.request({ method: 'DELETE', path: `/${prefix}*`, querystring: { expand_wildcards: 'all' } });
        expect(actual).toEqual(expected);
      }),
      { numRuns: 12 },
    );
  }, 600_000);

  it('a restarted normalizer starts from the counts stored with the checkpoints: only the grown second is listed again', async () => {
    const prefix = `${ns.prefix}restart-`;
    await applyRawSchema(ns.client, { prefix });
    const first = await normalizer(prefix);
    expect((await writeEventLines(ns.client, RECORDS.slice(0, -1), prefix)).errors).toBe(false);
    await ns.client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh` });
    const listed = await first.cycle();
    expect(listed.newRawEvents).toBe(RECORDS.length - 1);
    await first.release();

    const stampMs = Date.now() - 60_000;
    await writeLate(ns, prefix, RECORDS[RECORDS.length - 1]!, stampMs);
    const second = await normalizer(prefix);
    const sameSecond = (await countPerBucket(ns.client, prefix, stampMs - (stampMs % 1000), stampMs - (stampMs % 1000) + 1000)).get(stampMs - (stampMs % 1000));
    expect(sameSecond).toBe(1);
    const cycle = await second.cycle();
    // The overlap window again (a new process has no seen set), and the one late document, nothing else of the window.
    expect(cycle.lateRawEvents).toBe(1);
    expect(await second.cycle()).toMatchObject({ newRawEvents: 0, lateRawEvents: 0 });
    expect(await openSearchState(ns.client, second.names)).toEqual(expected);
  }, 120_000);

  it('two replicas each normalize the late documents of their own slots; one that takes over starts from the stored counts', async () => {
    const prefix = `${ns.prefix}replicas-`;
    await applyRawSchema(ns.client, { prefix });
    let now = 1_000_000;
    const TTL = 20_000;
    const options = { client: ns.client, prefix, refresh: true, overlapMs: OVERLAP_MS, lateWindowMs: LATE_WINDOW_MS, leaseTtlMs: TTL, retentionIntervalMs: 0, now: () => now };
    const a = new OpenSearchNormalizer({ ...options, holder: 'a' });
    const b = new OpenSearchNormalizer({ ...options, holder: 'b' });
    await a.setup();
    await a.recordRulesIfFresh();
    expect(await a.acquire()).toBe(true);
    await b.acquire();
    await ns.refresh();
    await a.acquire();
    await a.releaseExcess();
    expect(await b.acquire()).toBe(true);
    const instanceOf = (r: FluentBitRecord): string => (JSON.parse(r.line) as { instanceId: string }).instanceId;
    const lastOf = (holder: OpenSearchNormalizer, skip = 0): number => {
      const indices = RECORDS.map((r, i) => [r, i] as const).filter(([r]) => holder.slots.includes(slotOfInstance(instanceOf(r)))).map(([, i]) => i);
      return indices[indices.length - 1 - skip]!;
    };
    // Late: the last event of a run of each replica's slots, and one more of a's for after the take-over.
    const late = [lastOf(a), lastOf(b), lastOf(a, 1)];
    expect(new Set(late).size).toBe(3);
    expect((await writeEventLines(ns.client, RECORDS.filter((_, i) => !late.includes(i)), prefix)).errors).toBe(false);
    await ns.client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh` });
    await a.cycle();
    await b.cycle();

    await writeLate(ns, prefix, RECORDS[late[0]!]!, Date.now() - 40_000);
    await writeLate(ns, prefix, RECORDS[late[1]!]!, Date.now() - 50_000);
    expect((await a.cycle()).lateRawEvents).toBe(1);
    expect((await b.cycle()).lateRawEvents).toBe(1);

    // a dies; b takes its slots over, with the counts a stored beside their checkpoints
    now += takeoverBoundMs(TTL, 1000) + 1000;
    await b.acquire();
    expect(b.slots).toHaveLength(32);
    await writeLate(ns, prefix, RECORDS[late[2]!]!, Date.now() - 60_000);
    expect((await b.cycle()).lateRawEvents).toBe(1);
    expect(await b.cycle()).toMatchObject({ lateRawEvents: 0 });
    expect(await openSearchState(ns.client, b.names)).toEqual(expected);
  }, 120_000);
});
