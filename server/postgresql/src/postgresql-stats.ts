// The statistics on PostgreSQL (core stats.ts states the rules): one aggregate statement each. workflowStats reads
// its range one interval at a time: the intervals' bounds (core stats-intervals.ts: the first floored to the UTC
// minute / hour / day, each [lo, hi)) are unnested and each aggregated in a LATERAL subquery from its own range of the
// start-time index, which holds every column a bucket needs (migration 0017), so the statement is an index-only scan
// with no sort of the whole range by bucket. A bucket's finished durations are aggregated sorted into one array and
// the percentiles read at the nearest rank ceil(pct·n / 100), computed in integers ((n·pct + 99) / 100), so the ranks
// are the oracle's exactly (percentile_disc computes the rank in floating point). The filter is the lists' own SQL.
import { INSTANCE_STATUSES, STATS_PERCENTILES, statsIntervalRanges } from '@workflow-index/core';
import type {
  ErrorCountRecord,
  StatsBucketRecord,
  StatsGroupField,
  StatsQuery,
  TaskFailureCountRecord,
  TopErrorsQuery,
  TopFailingTasksQuery,
  WorkflowInstanceStatus,
} from '@workflow-index/core';
import { filterSql, instanceColumns, SqlParams, taskColumns } from './postgresql-filter-sql.js';

/** Runs one statement (the reader's session handling and error classification). */
export type StatsQueryRunner = <R extends object>(text: string, values: readonly unknown[], what: string) => Promise<R[]>;

export interface StatsTables {
  readonly instances: string;
  readonly tasks: string;
  /** The condition that an instance `i` is served. */
  readonly servedInstance: string;
  /** The condition that a task `t` is served. */
  readonly servedTask: string;
}

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;
const GROUP_COLUMN: Readonly<Record<StatsGroupField, string>> = { name: 'name', namespace: 'namespace', version: 'version' };
const statusColumn = (status: WorkflowInstanceStatus): string => `n_${status.toLowerCase()}`;
const rank = (pct: number): string => `(cardinality(b.d) * ${pct} + 99) / 100`;

type BucketRow = Record<string, string | null> & { k: string; n: string | null; p50: string | null; p90: string | null; p99: string | null; max: string | null };

export class PostgresqlStats {
  constructor(
    private readonly run: StatsQueryRunner,
    private readonly tables: StatsTables,
  ) {}

  async workflowStats(query: StatsQuery): Promise<StatsBucketRecord[]> {
    const intervals = statsIntervalRanges(query);
    const params = new SqlParams();
    const bounds = `unnest(${params.add(intervals.map((r) => r.lo))}::timestamptz[], ${params.add(intervals.map((r) => r.hi))}::timestamptz[]) WITH ORDINALITY AS iv(lo, hi, k)`;
    const where = `${this.tables.servedInstance} AND i.start_time >= iv.lo AND i.start_time < iv.hi AND ${filterSql(query.filter, instanceColumns('i'), params)}`;
    const groups = query.groupBy.map((f) => `i.${GROUP_COLUMN[f]} AS g_${f}`);
    const counts = INSTANCE_STATUSES.map((s) => `count(*) FILTER (WHERE i.status = '${s}') AS ${statusColumn(s)}`);
    // duration_us is set exactly when end_time is (start_time is, within a range): the index entry has both.
    const perInterval =
      `SELECT ${[...groups, ...counts].join(', ')}, array_agg(i.duration_us ORDER BY i.duration_us) FILTER (WHERE i.duration_us IS NOT NULL) AS d` +
      ` FROM ${this.tables.instances} i WHERE ${where}` +
      (query.groupBy.length === 0 ? ' HAVING count(*) > 0' : ` GROUP BY ${query.groupBy.map((_, k) => String(k + 1)).join(', ')}`);
    const order = ['iv.k', ...query.groupBy.map((f) => `b.g_${f} COLLATE "C" ASC NULLS LAST`)].join(', ');
    const percentiles = Object.entries(STATS_PERCENTILES).map(([name, pct]) => `b.d[${rank(pct)}]::text AS ${name}`);
    const limit = params.add(query.maxBuckets + 1);
    const sql =
      `SELECT iv.k${query.groupBy.map((f) => `, b.g_${f}`).join('')}, ${INSTANCE_STATUSES.map((s) => `b.${statusColumn(s)}`).join(', ')},` +
      ` cardinality(b.d) AS n, ${percentiles.join(', ')}, b.d[cardinality(b.d)]::text AS max` +
      ` FROM ${bounds} CROSS JOIN LATERAL (${perInterval}) b ORDER BY ${order} LIMIT ${limit}::int8`;
    const rows = await this.run<BucketRow>(sql, params.values, 'workflowStats');
    return rows.map((row) => bucketOf(row, intervals[Number(row.k) - 1]!.start, query.groupBy));
  }

  async topErrors(query: TopErrorsQuery): Promise<ErrorCountRecord[]> {
    const params = new SqlParams();
    const where = `${this.tables.servedInstance} AND i.status = 'FAULTED' AND ${filterSql(query.filter, instanceColumns('i'), params)}`;
    const limit = params.add(query.limit);
    const rows = await this.run<{ type: string | null; title: string | null; status: number | null; n: string; last_seen: string }>(
      `SELECT i.error_type AS type, i.error_title AS title, i.error_status AS status, count(*) AS n,` +
        ` to_char(coalesce(max(i.end_time), max(i.last_update)) AT TIME ZONE 'UTC', ${ISO}) AS last_seen` +
        ` FROM ${this.tables.instances} i WHERE ${where} GROUP BY i.error_type, i.error_title, i.error_status` +
        ` ORDER BY n DESC, i.error_type COLLATE "C" ASC NULLS LAST, i.error_title COLLATE "C" ASC NULLS LAST, i.error_status ASC NULLS LAST LIMIT ${limit}::int8`,
      params.values,
      'topErrors',
    );
    return rows.map((r) => ({ type: r.type, title: r.title, status: r.status, count: Number(r.n), lastSeen: r.last_seen }));
  }

  async topFailingTasks(query: TopFailingTasksQuery): Promise<TaskFailureCountRecord[]> {
    const params = new SqlParams();
    const where = `${this.tables.servedTask} AND t.status = 'FAULTED' AND ${filterSql(query.filter, taskColumns('t'), params)}`;
    const limit = params.add(query.limit);
    const rows = await this.run<{ task_position: string; task_name: string | null; workflow_name: string | null; n: string }>(
      `SELECT t.task_position, t.task_name, t.workflow_name, count(*) AS n FROM ${this.tables.tasks} t WHERE ${where} GROUP BY t.task_position, t.task_name, t.workflow_name` +
        ` ORDER BY n DESC, t.workflow_name COLLATE "C" ASC NULLS LAST, t.task_position COLLATE "C" ASC NULLS LAST, t.task_name COLLATE "C" ASC NULLS LAST LIMIT ${limit}::int8`,
      params.values,
      'topFailingTasks',
    );
    return rows.map((r) => ({ taskPosition: r.task_position, taskName: r.task_name, workflowName: r.workflow_name, count: Number(r.n) }));
  }
}

const micros = (value: string | null): number | null => (value === null ? null : Number(value));

function bucketOf(row: BucketRow, start: string, groupBy: readonly StatsGroupField[]): StatsBucketRecord {
  return {
    start,
    group: Object.fromEntries(groupBy.map((f) => [f, row[`g_${f}`] ?? null])),
    statusCounts: Object.fromEntries(INSTANCE_STATUSES.map((s) => [s, Number(row[statusColumn(s)])])) as Record<WorkflowInstanceStatus, number>,
    durations: { count: Number(row.n ?? 0), p50: micros(row.p50), p90: micros(row.p90), p99: micros(row.p99), max: micros(row.max) },
  };
}
