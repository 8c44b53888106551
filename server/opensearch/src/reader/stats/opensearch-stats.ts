// The statistics on OpenSearch (core stats.ts states the rules): composite aggregations, paged by `after`, so no
// answer holds more buckets than a page at once in the node (search.max_buckets). workflowStats: a `histogram` on
// start_time_us (epoch µs) with the interval's width in µs floors each start to the UTC minute / hour / day (epoch time
// has no leap seconds, and µs values stay below 2^53, exact in the histogram's doubles), then the grouped keywords
// (missing_bucket: a run without the field is its own null group); per bucket a `terms` on status and the exact
// duration summary (duration-script.ts). topErrors / topFailingTasks: a composite over the grouped fields, every group
// counted (counts of a composite are exact), then ordered and cut here, as PostgreSQL's ORDER BY … LIMIT does.
import { compareBuckets, compareErrorCounts, compareTaskFailureCounts, formatMicros, INSTANCE_STATUSES, INTERVAL_MICROS, parseDateTimeToMicros } from '@workflow-index/core';
import type {
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
import { type Query, and, MATCH_NONE, range, term } from '../query-dsl.js';
import type { SearchRequests } from '../search-requests.js';
import type { Target } from '../lookups/lookup-filter.js';
import { DURATION_SCRIPT, durationSummaryOf } from './duration-script.js';

/** Composite buckets per search: each carries a status terms and a script state, well under search.max_buckets. */
const PAGE = 1000;

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
    const aggs = { statuses: { terms: { field: 'status', size: INSTANCE_STATUSES.length + 1 } }, durations: DURATION_SCRIPT };
    const buckets = await this.composite(this.options.names.workflowInstances, and([filter, inRange]), sources, aggs, query.maxBuckets + 1, 'workflowStats');
    return buckets.map((b) => bucketOf(b, query.groupBy)).sort(compareBuckets);
  }

  async topErrors(query: TopErrorsQuery): Promise<ErrorCountRecord[]> {
    const filter = await this.options.served(query.filter, 'instances');
    if (filter === MATCH_NONE) return [];
    const sources = [{ type: keyword('error.type') }, { title: keyword('error.title') }, { status: keyword('error.status') }];
    const aggs = { end: { max: { field: 'end_time_us' } }, update: { max: { field: 'last_update_us' } } };
    const buckets = await this.composite(this.options.names.workflowInstances, and([filter, term('status', 'FAULTED')]), sources, aggs, Infinity, 'topErrors');
    return buckets
      .map((b): ErrorCountRecord => ({
        type: text(b.key['type']),
        title: text(b.key['title']),
        status: b.key['status'] === null || b.key['status'] === undefined ? null : Number(b.key['status']),
        count: b.doc_count,
        lastSeen: formatMicros(BigInt((maxOf(b['end']) ?? maxOf(b['update']))!)),
      }))
      .sort(compareErrorCounts)
      .slice(0, query.limit);
  }

  async topFailingTasks(query: TopFailingTasksQuery): Promise<TaskFailureCountRecord[]> {
    const filter = await this.options.served(query.filter, 'tasks');
    if (filter === MATCH_NONE) return [];
    const sources = [{ position: keyword('task_position') }, { name: keyword('task_name') }, { workflow: keyword('workflow_name') }];
    const buckets = await this.composite(this.options.names.taskExecutions, and([filter, term('status', 'FAULTED')]), sources, {}, Infinity, 'topFailingTasks');
    return buckets
      .map((b): TaskFailureCountRecord => ({ taskPosition: String(b.key['position']), taskName: text(b.key['name']), workflowName: text(b.key['workflow']), count: b.doc_count }))
      .sort(compareTaskFailureCounts)
      .slice(0, query.limit);
  }

  /** Every bucket of a composite aggregation (at most `max`), page by page. */
  private async composite(index: string, query: Query, sources: readonly unknown[], aggs: Readonly<Record<string, unknown>>, max: number, what: string): Promise<CompositeBucket[]> {
    const all: CompositeBucket[] = [];
    let after: Key | undefined;
    while (all.length < max) {
      const composite = { size: Math.min(PAGE, max - all.length), sources, ...(after === undefined ? {} : { after }) };
      const response = await this.options.requests.search(index, { query, size: 0, aggs: { groups: { composite, aggs } } }, what);
      const groups = (response.aggregations as { groups: { buckets: CompositeBucket[]; after_key?: Key } }).groups;
      all.push(...groups.buckets);
      if (groups.after_key === undefined || groups.buckets.length === 0) break;
      after = groups.after_key;
    }
    return all;
  }
}

const maxOf = (agg: unknown): number | null => (agg as { value: number | null } | undefined)?.value ?? null;

function bucketOf(bucket: CompositeBucket, groupBy: readonly StatsGroupField[]): StatsBucketRecord {
  const statuses = (bucket['statuses'] as { buckets: { key: string; doc_count: number }[] }).buckets;
  const counted = new Map(statuses.map((s) => [s.key, s.doc_count]));
  return {
    start: formatMicros(BigInt(Math.round(Number(bucket.key['start'])))),
    group: Object.fromEntries(groupBy.map((f) => [f, text(bucket.key[f])])),
    statusCounts: Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, counted.get(s) ?? 0])) as Record<WorkflowInstanceStatus, number>,
    durations: durationSummaryOf(bucket['durations'] as Parameters<typeof durationSummaryOf>[0]),
  };
}
