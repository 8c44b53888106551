// Exact nearest-rank durations of buckets too big to collect (opensearch-stats.ts decides), in memory bounded by a page
// of hits whatever the bucket holds. The aggregation pass gave each bucket its finished count n, min, max and an
// estimate e of each percentile (OpenSearch's `percentiles`, a TDigest: close, not exact). The value at rank
// r = ceil(pct·n / 100) is then found exactly:
//  1. count the bucket's durations below e (a filter aggregation's doc_count, exact): c;
//  2. if c < r the value is the (r − c)-th smallest duration ≥ e, otherwise the (c − r + 1)-th largest below e: one
//     search sorted by (duration, id) from e in that direction, reading hit number k (`from: k − 1, size: 1` when k is
//     within the result window; beyond it, pages of the window with search_after, then the rest).
// Ranks 1 and n are the min and max. The estimate only decides how far step 2 walks (a few hundred hits for a TDigest
// at millions of runs); the answer is the definition, as the collecting script and PostgreSQL compute it.
import { nearestRank, STATS_PERCENTILES } from '@workflow-index/core';
import type { DurationSummaryRecord } from '@workflow-index/core';
import { type Query, and, range } from '../query-dsl.js';
import type { SearchBody, SearchRequests } from '../search-requests.js';

type Percentile = keyof typeof STATS_PERCENTILES;
const PERCENTILES = Object.entries(STATS_PERCENTILES) as [Percentile, number][];
/** Searches per _msearch round trip. */
const BATCH = 100;

export interface EstimatedBucket {
  /** The bucket's finished runs (its range, group, filter and `end_time_us` present). */
  readonly query: Query;
  readonly count: number;
  readonly min: number;
  readonly max: number;
  readonly estimates: Readonly<Record<Percentile, number>>;
}

interface Walk {
  readonly bucket: number;
  readonly percentile: Percentile;
  readonly rank: number;
  readonly estimate: number;
  /** Which duration from the estimate, 1-based, in the walk's direction. */
  position: number;
  up: boolean;
  after: string[] | null;
  value: number | null;
}

export class DurationRanks {
  constructor(
    private readonly requests: SearchRequests,
    private readonly index: string,
    /** The deepest hit one search reads (the index's max_result_window). */
    private readonly window: number,
  ) {}

  async summaries(buckets: readonly EstimatedBucket[]): Promise<DurationSummaryRecord[]> {
    const values = buckets.map((b) => ({ count: b.count, p50: null, p90: null, p99: null, max: b.count === 0 ? null : b.max }) as Record<string, number | null>);
    const walks: Walk[] = [];
    buckets.forEach((b, i) => {
      for (const [name, pct] of b.count === 0 ? [] : PERCENTILES) {
        const rank = nearestRank(pct, b.count);
        if (rank === 1 || rank === b.count) values[i]![name] = rank === 1 ? b.min : b.max;
        else walks.push({ bucket: i, percentile: name, rank, estimate: Math.min(b.max, Math.max(b.min, Math.round(b.estimates[name]))), position: 0, up: true, after: null, value: null });
      }
    });
    await this.countBelow(buckets, walks);
    await this.walk(buckets, walks);
    for (const w of walks) values[w.bucket]![w.percentile] = w.value;
    return values as unknown as DurationSummaryRecord[];
  }

  /** Step 1: each walk's direction and position from the exact count below its estimate. */
  private async countBelow(buckets: readonly EstimatedBucket[], walks: Walk[]): Promise<void> {
    const bodies = walks.map((w): SearchBody => ({ query: and([buckets[w.bucket]!.query, range('duration_us', { lt: w.estimate })]), size: 0, track_total_hits: true }));
    const responses = await this.batched(bodies, 'workflowStats');
    walks.forEach((w, i) => {
      const below = responses[i]!.hits.total?.value ?? 0;
      w.up = below < w.rank;
      w.position = w.up ? w.rank - below : below - w.rank + 1;
    });
  }

  /** Step 2: every walk read to its position, page by page for the rare one beyond the window. */
  private async walk(buckets: readonly EstimatedBucket[], walks: readonly Walk[]): Promise<void> {
    for (let open = walks.filter((w) => w.value === null); open.length > 0; open = open.filter((w) => w.value === null)) {
      const responses = await this.batched(open.map((w) => this.step(buckets[w.bucket]!.query, w)), 'workflowStats');
      open.forEach((w, i) => {
        const hits = responses[i]!.hits.hits;
        if (w.position <= this.window) {
          const sort = hits[w.after === null ? 0 : w.position - 1]?.sort;
          if (sort === undefined) throw new Error(`workflowStats: no duration at rank ${w.rank} of a bucket (the index changed during the request?)`);
          w.value = Number(sort[0]);
          return;
        }
        const last = hits.at(-1)?.sort;
        if (last === undefined || hits.length < this.window) throw new Error(`workflowStats: the durations of a bucket ended before rank ${w.rank}`);
        w.position -= hits.length;
        w.after = last.map(String);
      });
    }
  }

  private step(bucket: Query, w: Walk): SearchBody {
    const order = w.up ? 'asc' : 'desc';
    const side = range('duration_us', w.up ? { gte: w.estimate } : { lt: w.estimate });
    const sort = [{ duration_us: { order } }, { id: { order } }];
    // The hit at the position itself (no fetch of those before it) unless paging, where `from` must be 0.
    const reach = w.position > this.window ? { size: this.window } : w.after === null ? { from: w.position - 1, size: 1 } : { size: w.position };
    return { query: and([bucket, side]), sort, ...reach, ...(w.after === null ? {} : { search_after: w.after }), _source: false };
  }

  private async batched(bodies: readonly SearchBody[], what: string) {
    const responses = [];
    for (let i = 0; i < bodies.length; i += BATCH) {
      responses.push(...(await this.requests.msearch(bodies.slice(i, i + BATCH).map((body) => ({ index: this.index, body })), what)));
    }
    return responses;
  }
}
