// The resolvers of workflowStats, topErrors and topFailingTasks: arguments checked (stats-arguments.ts), the filter
// translated, the Reader asked (the request's scoped and bounded view), its records shaped as the schema serves them.
import { formatTimestampForOutput } from './date-time.js';
import { translateInstanceFilter, translateTaskFilter } from './filter-translation.js';
import type { FilterLimits, InstanceFilterArg, TaskFilterArg } from './filter-translation.js';
import { INSTANCE_STATUSES } from './reader.js';
import type { Reader, WorkflowInstanceStatus } from './reader.js';
import { MAX_STATS_BUCKETS, microsToMillis, STATS_INTERVALS } from './stats.js';
import type { DurationSummaryRecord, ErrorCountRecord, StatsBucketRecord, StatsInterval, TaskFailureCountRecord } from './stats.js';
import { statsGroupBy, statsRange, tooManyBuckets, topLimit } from './stats-arguments.js';

export interface StatsContext {
  readonly reader: Reader;
}

export interface WorkflowStatsArgs {
  readonly filter?: InstanceFilterArg | null;
  readonly interval: StatsInterval;
  readonly from: string;
  readonly to: string;
  readonly groupBy?: readonly string[] | null;
}

export interface TopArgs<F> {
  readonly filter?: F | null;
  readonly limit?: number | null;
}

export interface ServedBucket {
  readonly start: string;
  readonly name: string | null;
  readonly namespace: string | null;
  readonly version: string | null;
  readonly statusCounts: { status: WorkflowInstanceStatus; count: number }[];
  readonly durationMs: { p50: number | null; p90: number | null; p99: number | null; max: number | null; count: number };
}

const servedDurations = (d: DurationSummaryRecord): ServedBucket['durationMs'] => ({
  p50: microsToMillis(d.p50),
  p90: microsToMillis(d.p90),
  p99: microsToMillis(d.p99),
  max: microsToMillis(d.max),
  count: d.count,
});

function servedBucket(bucket: StatsBucketRecord): ServedBucket {
  return {
    start: formatTimestampForOutput(bucket.start),
    name: bucket.group.name ?? null,
    namespace: bucket.group.namespace ?? null,
    version: bucket.group.version ?? null,
    statusCounts: INSTANCE_STATUSES.map((status) => ({ status, count: bucket.statusCounts[status] })),
    durationMs: servedDurations(bucket.durations),
  };
}

export function statsResolvers(filterLimits: FilterLimits) {
  return {
    async workflowStats(_: unknown, args: WorkflowStatsArgs, ctx: StatsContext): Promise<ServedBucket[]> {
      if (!STATS_INTERVALS.includes(args.interval)) throw new Error(`unknown interval ${String(args.interval)}`); // the enum admits no other
      const range = statsRange(args.from, args.to, args.interval);
      const groupBy = statsGroupBy(args.groupBy);
      const filter = translateInstanceFilter(args.filter, filterLimits);
      const buckets = await ctx.reader.workflowStats({ filter, interval: args.interval, from: range.from, to: range.to, groupBy, maxBuckets: MAX_STATS_BUCKETS });
      if (buckets.length > MAX_STATS_BUCKETS) throw tooManyBuckets(`more than ${MAX_STATS_BUCKETS} buckets`);
      return buckets.map(servedBucket);
    },
    async topErrors(_: unknown, args: TopArgs<InstanceFilterArg>, ctx: StatsContext): Promise<ErrorCountRecord[]> {
      const limit = topLimit(args.limit, 'topErrors');
      const rows = await ctx.reader.topErrors({ filter: translateInstanceFilter(args.filter, filterLimits), limit });
      return rows.map((row) => ({ ...row, lastSeen: formatTimestampForOutput(row.lastSeen) }));
    },
    async topFailingTasks(_: unknown, args: TopArgs<TaskFilterArg>, ctx: StatsContext): Promise<TaskFailureCountRecord[]> {
      const limit = topLimit(args.limit, 'topFailingTasks');
      return ctx.reader.topFailingTasks({ filter: translateTaskFilter(args.filter, filterLimits), limit });
    },
  };
}
