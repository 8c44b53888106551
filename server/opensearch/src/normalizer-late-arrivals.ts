// The late-arrival audit of the normalization cycle. The ingest pipeline stamps `wi.ingest_time` before a write
// reaches its primary, so a write held by a hung node (until fault detection removes it, about 30 s; the `_bulk`
// timeout is a minute) becomes searchable with a stamp older than the overlap the cycle re-reads. Listing every raw id
// of a longer window each cycle would cost hundreds of thousands of ids a second at high rates; instead each cycle
// counts the raw documents per ingest-time bucket of the late window (one date_histogram, no ids) and compares each
// bucket with the documents it held when it was last listed whole. Only a bucket whose count grew is listed again, and
// its documents go through the cycle like new ones (the event store and the recompute are idempotent).
//
// A bucket's baseline is the number of raw documents (of every slot) listed in it the last time it was listed whole
// while every document of the held slots among them was normalized: by the cycle's scan while the bucket lay wholly
// in every held slot's overlap window, or by this audit. Absent means zero. The baselines are stored with each slot's
// checkpoint (`late_counts`), so a replica that takes a slot over, or a restarted one, starts from what the previous
// holder listed: it takes the smaller of its own and the slot's. A slot stored without them (written by an earlier
// release, which had no audit) is trusted for what is searchable when this process first audits it: its counts then
// are the baselines, so an upgrade lists nothing again. Buckets behind every held slot's checkpoint minus the window
// are dropped: at most (late window + overlap) / bucket + a few baselines are kept.
import type { Client } from '@opensearch-project/opensearch';
import { JsonNumber, type JsonObject, type JsonValue } from '@workflow-index/events';
import { type RawMark, rawIndices, requestLossless, scanIngestedSince } from './raw-event-source.js';

/** The default late window: fault detection removes a hung node after about 30 s, and the `_bulk` timeout that
 * bounds how long a write can wait for its primary is a minute; twice that leaves room for a slow promotion. */
export const DEFAULT_LATE_WINDOW_MS = 120_000;

/** Width of an audited bucket: a grown bucket lists at most this much ingest time again. */
export const LATE_BUCKET_MS = 1000;

/** The baselines as a checkpoint document stores them: counts of consecutive buckets from `from_ms`. */
export interface StoredLateCounts {
  readonly bucket_ms: number;
  readonly from_ms: number;
  readonly counts: readonly number[];
}

/** What one audit found: the late documents of grown buckets, and the baselines to keep once they are normalized. */
export interface LateAudit {
  readonly marks: readonly RawMark[];
  /** Buckets counted (aggregation) and buckets listed again. */
  readonly buckets: number;
  readonly grown: number;
  readonly baselines: ReadonlyMap<number, number>;
}

export const bucketOf = (ms: number, bucketMs = LATE_BUCKET_MS): number => Math.floor(ms / bucketMs) * bucketMs;

/** Stored baselines as a map; undefined (nothing stored) is every bucket at zero. */
export function storedBaselines(stored: StoredLateCounts | undefined, bucketMs = LATE_BUCKET_MS): Map<number, number> {
  const result = new Map<number, number>();
  if (stored === undefined || stored.bucket_ms !== bucketMs) return result;
  stored.counts.forEach((count, i) => {
    if (count > 0) result.set(stored.from_ms + i * bucketMs, count);
  });
  return result;
}

/** Raw documents per bucket of [fromMs, toMs), one aggregation; buckets without documents are absent. */
export async function countPerBucket(client: Client, prefix: string, fromMs: number, toMs: number, bucketMs = LATE_BUCKET_MS): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (toMs <= fromMs) return counts;
  const body = {
    size: 0,
    track_total_hits: false,
    query: { range: { 'wi.ingest_time': { gte: fromMs, lt: toMs, format: 'epoch_millis' } } },
    aggs: { late: { date_histogram: { field: 'wi.ingest_time', fixed_interval: `${bucketMs}ms`, min_doc_count: 1 } } },
  };
  const response = await requestLossless(client, 'POST', `/${rawIndices(prefix)}/_search`, body, { ignore_unavailable: 'true', allow_no_indices: 'true' });
  const aggregations = response.get('aggregations') as JsonObject | undefined;
  const buckets = ((aggregations?.get('late') as JsonObject | undefined)?.get('buckets') as JsonValue[] | undefined) ?? [];
  const numberOf = (v: JsonValue | undefined): number => (v instanceof JsonNumber ? Number(v.text) : Number(v));
  for (const bucket of buckets as JsonObject[]) counts.set(numberOf(bucket.get('key')), numberOf(bucket.get('doc_count')));
  return counts;
}

/** Consecutive buckets merged into ranges [from, to), so a burst of grown buckets is listed with one paged search. */
function ranges(buckets: readonly number[], bucketMs: number): [number, number][] {
  const result: [number, number][] = [];
  for (const b of [...buckets].sort((x, y) => x - y)) {
    const last = result[result.length - 1];
    if (last !== undefined && last[1] === b) last[1] = b + bucketMs;
    else result.push([b, b + bucketMs]);
  }
  return result;
}

export class LateArrivalAudit {
  /** Bucket start → raw documents listed in it when it was last listed whole (see the header); absent is zero. */
  private baselines: Map<number, number> | undefined;
  /** Slots without stored counts were taken while this process had no baselines: the next counts become them. */
  private trustNextCounts = false;

  constructor(
    private readonly client: Client,
    private readonly prefix: string,
    private readonly bucketMs = LATE_BUCKET_MS,
  ) {}

  /** A slot this process did not hold in its last cycle: its stored baselines lower this process's (the smaller is
   * what both the slot's previous holder and this process listed and normalized). */
  adopt(stored: StoredLateCounts | undefined): void {
    // Without stored counts, the earlier holder is trusted for what is searchable now: min(own, now) is own, since
    // a count above its baseline is listed anyway.
    if (stored === undefined) {
      if (this.baselines === undefined) this.trustNextCounts = true;
      return;
    }
    const theirs = storedBaselines(stored, this.bucketMs);
    if (this.baselines === undefined) {
      this.baselines = theirs;
      return;
    }
    for (const [bucket, count] of this.baselines) {
      const other = theirs.get(bucket) ?? 0;
      if (other < count) {
        if (other === 0) this.baselines.delete(bucket);
        else this.baselines.set(bucket, other);
      }
    }
  }

  /**
   * Counts the buckets of [fromMs, scanCoveredMs) (fromMs: the earliest held checkpoint minus the late window;
   * scanCoveredMs: where every held slot's overlap window has begun, rounded up to a bucket) and lists the grown ones
   * again. A bucket that holds fewer documents than its baseline (a raw index deleted) takes the smaller count.
   */
  async audit(fromMs: number, scanCoveredMs: number): Promise<LateAudit> {
    const from = bucketOf(Math.max(0, fromMs), this.bucketMs);
    const counts = await countPerBucket(this.client, this.prefix, from, scanCoveredMs, this.bucketMs);
    if (this.baselines === undefined && this.trustNextCounts) {
      // Kept at once, whatever becomes of the cycle: what the earlier holder is trusted with does not change.
      this.baselines = new Map(counts);
      this.trustNextCounts = false;
    }
    const baselines = new Map<number, number>();
    for (const bucket of this.baselines?.keys() ?? []) if (bucket >= from && bucket < scanCoveredMs && !counts.has(bucket)) baselines.set(bucket, 0);
    const grown: number[] = [];
    for (const [bucket, count] of counts) {
      const baseline = this.baselines?.get(bucket) ?? 0;
      if (count > baseline) grown.push(bucket);
      else baselines.set(bucket, count);
    }
    const marks: RawMark[] = [];
    for (const [since, until] of ranges(grown, this.bucketMs)) marks.push(...(await scanIngestedSince(this.client, this.prefix, since, until)));
    for (const bucket of grown) baselines.set(bucket, 0);
    for (const m of marks) {
      const bucket = bucketOf(m.ingestTimeMs, this.bucketMs);
      baselines.set(bucket, (baselines.get(bucket) ?? 0) + 1);
    }
    return { marks, buckets: counts.size, grown: grown.length, baselines };
  }

  /**
   * After the cycle normalized what it found: the audited buckets take what the audit counted or listed, the buckets
   * from scanCoveredMs on take what the scan listed (it listed them whole), and buckets before keepFromMs are dropped.
   */
  commit(audited: ReadonlyMap<number, number>, scanned: readonly RawMark[], scanCoveredMs: number, keepFromMs: number): void {
    const next = this.baselines ?? new Map<number, number>();
    for (const [bucket, count] of audited) next.set(bucket, count);
    for (const bucket of [...next.keys()]) if (bucket >= scanCoveredMs) next.delete(bucket);
    for (const m of scanned) {
      if (m.ingestTimeMs < scanCoveredMs) continue;
      const bucket = bucketOf(m.ingestTimeMs, this.bucketMs);
      next.set(bucket, (next.get(bucket) ?? 0) + 1);
    }
    const keepFrom = bucketOf(keepFromMs, this.bucketMs);
    for (const [bucket, count] of next) if (bucket < keepFrom || count === 0) next.delete(bucket);
    this.baselines = next;
  }

  /** The baselines from `fromMs` on, as a checkpoint document stores them. */
  stored(fromMs: number): StoredLateCounts {
    const from = bucketOf(Math.max(0, fromMs), this.bucketMs);
    const kept = [...(this.baselines ?? new Map<number, number>())].filter(([bucket]) => bucket >= from).sort((a, b) => a[0] - b[0]);
    const last = kept.length === 0 ? from : kept[kept.length - 1]![0];
    const counts = Array.from({ length: (last - from) / this.bucketMs + (kept.length === 0 ? 0 : 1) }, () => 0);
    for (const [bucket, count] of kept) counts[(bucket - from) / this.bucketMs] = count;
    return { bucket_ms: this.bucketMs, from_ms: from, counts };
  }

  /** Baselines kept (memory bound: about (late window + overlap) / bucket). */
  get size(): number {
    return this.baselines?.size ?? 0;
  }
}
