// The statistics on OpenSearch (core stats.ts states the rules): composite aggregations, paged by `after`, so no
// answer holds more buckets than a page at once in the node (search.max_buckets). workflowStats: a `histogram` on
// start_time_us (epoch µs) with the interval's width in µs floors each start to the UTC minute / hour / day (epoch time
// has no leap seconds, and µs values stay below 2^53, exact in the histogram's doubles), then the grouped keywords
// (missing_bucket: a run without the field is its own null group); per bucket a `terms` on status and the exact
// duration summary: collected (duration-script.ts) when the request's finished runs are at most COLLECT_LIMIT (counted
// first, up to the limit), otherwise ranked from estimates (duration-ranks.ts), so the node never holds more than
// COLLECT_LIMIT durations for a request. topErrors / topFailingTasks: a composite over the grouped fields, every group
// counted (counts of a composite are exact), the first `limit` kept while paging, as PostgreSQL's ORDER BY … LIMIT
// does; at most MAX_TOP_GROUPS groups are read.
import { badUserInput, compareBuckets, compareErrorCounts, compareTaskFailureCounts, formatMicros, INSTANCE_STATUSES, INTERVAL_MICROS, parseDateTimeToMicros, STATS_PERCENTILES } from '@workflow-index/core';
import type {
  DurationSummaryRecord,
  ErrorCountRecord,
  InstanceFilter,
  StatsBucketRecord,
  StatsGroupField,
  StatsQuery,
  TaskFailureCountRecord,
  TaskFilter,
  TopErrorsQuery,
  TopFailingTasksQuery,
  WorkflowInstanceStatus,
} from '@workflow-index/core';
import type { NormalizedIndexNames } from '../../normalized-indices.js';
import { type Query, and, exists, MATCH_NONE, not, range, term } from '../query-dsl.js';
import type { SearchRequests } from '../search-requests.js';
import type { Target } from '../lookups/lookup-filter.js';
import { DURATION_SCRIPT, durationSummaryOf } from './duration-script.js';
import { DurationRanks, type EstimatedBucket } from './duration-ranks.js';

/** Composite buckets per search of topErrors / topFailingTasks (a page held while the top is kept). */
const PAGE = 1000;
/**
 * Composite buckets per search of workflowStats: every page is a search over all the request's runs, so a day by name
 * and version (about 1,200 buckets) in one search instead of two. Each bucket carries a status terms (at most 6
 * buckets) and a script state or estimates: 5,000 × 7 stays under search.max_buckets (65,535).
 */
const STATS_PAGE = 5000;
/** A workflowStats request collects the durations of its finished runs in the node when there are at most this many
 * (8 bytes and a box each: a few MB); beyond, it ranks them without holding them (duration-ranks.ts). */
export const COLLECT_LIMIT = 100_000;
/** topErrors / topFailingTasks read at most this many groups (a hundred pages) before refusing the filter. */
export const MAX_TOP_GROUPS = 100_000;
/** A run has a duration once it has ended (the script's condition). */
const FINISHED: Query = and([exists('end_time_us'), exists('duration_us')]);
/** Per bucket, when ranking: the finished runs' count, min, max and estimated percentiles (a TDigest, bounded). */
const ESTIMATES = {
  filter: FINISHED,
  aggs: {
    min: { min: { field: 'duration_us' } },
    max: { max: { field: 'duration_us' } },
    estimate: { percentiles: { field: 'duration_us', percents: Object.values(STATS_PERCENTILES), keyed: false } },
  },
};

type Key = Readonly<Record<string, string | number | null>>;
interface CompositeBucket {
  readonly key: Key;
  readonly doc_count: number;
  readonly [sub: string]: unknown;
}

export interface OpenSearchStatsOptions {
  readonly requests: SearchRequests;
  readonly names: NormalizedIndexNames;
  /** The served query of a filter (LookupReader.servedQuery). */
  readonly served: (filter: InstanceFilter | TaskFilter | null, target: Target) => Promise<Query>;
  /** The index's max_result_window: the deepest hit one search of duration-ranks.ts reads. */
  readonly maxResultWindow: number;
  /** Finished runs a workflowStats request may collect (default COLLECT_LIMIT; 0: always rank). */
  readonly collectLimit?: number;
  /** Groups topErrors / topFailingTasks read at most (default MAX_TOP_GROUPS; tests lower it). */
  readonly maxTopGroups?: number;
  /** Composite buckets per search of workflowStats (default STATS_PAGE; tests lower it so that requests page). */
  readonly pageSize?: number;
}

const keyword = (field: string): Record<string, unknown> => ({ terms: { field, missing_bucket: true } });
const text = (value: string | number | null | undefined): string | null => (value === null || value === undefined ? null : String(value));

export class OpenSearchStats {
  constructor(private readonly options: OpenSearchStatsOptions) {}

  async workflowStats(query: StatsQuery): Promise<StatsBucketRecord[]> {
    const filter = await this.options.served(query.filter, 'instances');
    if (filter === MATCH_NONE) return [];
    const inRange = range('start_time_us', { gte: String(parseDateTimeToMicros(query.from)), lt: String(parseDateTimeToMicros(query.to)) });
    const sources = [{ start: { histogram: { field: 'start_time_us', interval: Number(INTERVAL_MICROS[query.interval]) } } }, ...query.groupBy.map((f) => ({ [f]: keyword(f) }))];
    const statuses = { terms: { field: 'status', size: INSTANCE_STATUSES.length + 1 } };
    const index = this.options.names.workflowInstances;
    if (await this.collectable(index, and([filter, inRange, FINISHED]))) {
      const buckets = await this.composite(index, and([filter, inRange]), sources, { statuses, durations: DURATION_SCRIPT }, query.maxBuckets + 1, 'workflowStats');
      return buckets.map((b) => bucketOf(b, query.groupBy, durationSummaryOf(b['durations'] as Parameters<typeof durationSummaryOf>[0]))).sort(compareBuckets);
    }
    const buckets = await this.composite(index, and([filter, inRange]), sources, { statuses, finished: ESTIMATES }, query.maxBuckets + 1, 'workflowStats');
    const durations = await new DurationRanks(this.options.requests, index, this.options.maxResultWindow).summaries(buckets.map((b) => estimatedBucket(b, filter, query)));
    return buckets.map((b, i) => bucketOf(b, query.groupBy, durations[i]!)).sort(compareBuckets);
  }

  /** Whether the finished runs of a request are few enough to collect their durations (COLLECT_LIMIT). */
  private async collectable(index: string, finished: Query): Promise<boolean> {
    const limit = this.options.collectLimit ?? COLLECT_LIMIT;
    if (limit === 0) return false;
    const response = await this.options.requests.search(index, { query: finished, size: 0, track_total_hits: limit + 1 }, 'workflowStats');
    return (response.hits.total?.value ?? 0) <= limit;
  }

  async topErrors(query: TopErrorsQuery): Promise<ErrorCountRecord[]> {
    const filter = await this.options.served(query.filter, 'instances');
    if (filter === MATCH_NONE) return [];
    const sources = [{ type: keyword('error.type') }, { title: keyword('error.title') }, { status: keyword('error.status') }];
    const aggs = { end: { max: { field: 'end_time_us' } }, update: { max: { field: 'last_update_us' } } };
    const pages = this.pages(this.options.names.workflowInstances, and([filter, term('status', 'FAULTED')]), sources, aggs, 'topErrors');
    const record = (b: CompositeBucket): ErrorCountRecord => ({
      type: text(b.key['type']),
      title: text(b.key['title']),
      status: b.key['status'] === null || b.key['status'] === undefined ? null : Number(b.key['status']),
      count: b.doc_count,
      lastSeen: formatMicros(BigInt((maxOf(b['end']) ?? maxOf(b['update']))!)),
    });
    return topOf(pages, record, compareErrorCounts, { limit: query.limit, max: this.options.maxTopGroups ?? MAX_TOP_GROUPS }, 'topErrors', '(error.type, error.title, error.status)');
  }

  async topFailingTasks(query: TopFailingTasksQuery): Promise<TaskFailureCountRecord[]> {
    const filter = await this.options.served(query.filter, 'tasks');
    if (filter === MATCH_NONE) return [];
    const sources = [{ position: keyword('task_position') }, { name: keyword('task_name') }, { workflow: keyword('workflow_name') }];
    const pages = this.pages(this.options.names.taskExecutions, and([filter, term('status', 'FAULTED')]), sources, {}, 'topFailingTasks');
    const record = (b: CompositeBucket): TaskFailureCountRecord => ({ taskPosition: String(b.key['position']), taskName: text(b.key['name']), workflowName: text(b.key['workflow']), count: b.doc_count });
    return topOf(pages, record, compareTaskFailureCounts, { limit: query.limit, max: this.options.maxTopGroups ?? MAX_TOP_GROUPS }, 'topFailingTasks', '(taskPosition, taskName, workflowName)');
  }

  /** Every bucket of a composite aggregation (at most `max`), page by page. */
  private async composite(index: string, query: Query, sources: readonly unknown[], aggs: Readonly<Record<string, unknown>>, max: number, what: string): Promise<CompositeBucket[]> {
    const all: CompositeBucket[] = [];
    for await (const page of this.pages(index, query, sources, aggs, what, max, this.options.pageSize ?? STATS_PAGE)) all.push(...page);
    return all;
  }

  /** The pages of a composite aggregation, `page` buckets each (the last cut so that at most `max` are read). */
  private async *pages(index: string, query: Query, sources: readonly unknown[], aggs: Readonly<Record<string, unknown>>, what: string, max = Infinity, page = PAGE): AsyncGenerator<CompositeBucket[]> {
    let after: Key | undefined;
    for (let read = 0; read < max; ) {
      const composite = { size: Math.min(page, max - read), sources, ...(after === undefined ? {} : { after }) };
      const response = await this.options.requests.search(index, { query, size: 0, aggs: { groups: { composite, aggs } } }, what);
      const groups = (response.aggregations as { groups: { buckets: CompositeBucket[]; after_key?: Key } }).groups;
      read += groups.buckets.length;
      yield groups.buckets;
      if (groups.after_key === undefined || groups.buckets.length === 0) break;
      after = groups.after_key;
    }
  }
}

/**
 * The first `limit` groups in `compare` order, holding no more than a page and the limit while reading; refused when
 * the filter matches more than MAX_TOP_GROUPS groups (every group must be counted before any is known to be in the top).
 */
async function topOf<R>(
  pages: AsyncIterable<CompositeBucket[]>,
  record: (b: CompositeBucket) => R,
  compare: (a: R, b: R) => number,
  bounds: { limit: number; max: number },
  what: string,
  key: string,
): Promise<R[]> {
  let top: R[] = [];
  let read = 0;
  for await (const page of pages) {
    read += page.length;
    if (read > bounds.max) {
      throw badUserInput(`${what} counts at most ${bounds.max} distinct ${key} groups on OpenSearch and this filter matches more; narrow it (a startDate range, a name)`);
    }
    top = [...top, ...page.map(record)].sort(compare).slice(0, bounds.limit);
  }
  return top;
}

const maxOf = (agg: unknown): number | null => (agg as { value: number | null } | undefined)?.value ?? null;

/** The finished runs of a composite bucket as a query (its interval clipped to the range, its group) and its estimates. */
function estimatedBucket(bucket: CompositeBucket, filter: Query, query: StatsQuery): EstimatedBucket {
  const start = BigInt(Math.round(Number(bucket.key['start'])));
  const from = parseDateTimeToMicros(query.from);
  const to = parseDateTimeToMicros(query.to);
  const end = start + INTERVAL_MICROS[query.interval];
  const interval = range('start_time_us', { gte: String(start > from ? start : from), lt: String(end < to ? end : to) });
  const groups = query.groupBy.map((f) => (bucket.key[f] === null || bucket.key[f] === undefined ? not(exists(f)) : term(f, String(bucket.key[f]))));
  const finished = bucket['finished'] as { doc_count: number; min: { value: number | null }; max: { value: number | null }; estimate: { values: { key: number; value: number | null }[] } };
  const estimate = (pct: number): number => finished.estimate.values.find((v) => v.key === pct)?.value ?? 0;
  return {
    query: and([filter, interval, ...groups, FINISHED]),
    count: finished.doc_count,
    min: finished.min.value ?? 0,
    max: finished.max.value ?? 0,
    estimates: { p50: estimate(STATS_PERCENTILES.p50), p90: estimate(STATS_PERCENTILES.p90), p99: estimate(STATS_PERCENTILES.p99) },
  };
}

function bucketOf(bucket: CompositeBucket, groupBy: readonly StatsGroupField[], durations: DurationSummaryRecord): StatsBucketRecord {
  const statuses = (bucket['statuses'] as { buckets: { key: string; doc_count: number }[] }).buckets;
  const counted = new Map(statuses.map((s) => [s.key, s.doc_count]));
  return {
    start: formatMicros(BigInt(Math.round(Number(bucket.key['start'])))),
    group: Object.fromEntries(groupBy.map((f) => [f, text(bucket.key[f])])),
    statusCounts: Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, counted.get(s) ?? 0])) as Record<WorkflowInstanceStatus, number>,
    durations,
  };
}
