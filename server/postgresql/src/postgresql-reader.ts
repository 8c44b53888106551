// The PostgreSQL Reader: read-only queries over workflow_index.workflow_instances / task_executions.
// Placeholders (instances without workflow.started, and the tasks of any instance without a served row) are
// excluded from every query. Timestamps are formatted in SQL because a JS Date would drop the microseconds.
import type pg from 'pg';
import { BackendUnavailableError, DEFAULT_LIST_ORDER, effectiveSortKeys } from '@workflow-index/core';
import type {
  Count,
  CountOptions,
  ErrorRecord,
  InstanceFilter,
  InstanceSortField,
  TaskFilter,
  TaskSortField,
  IngestionStats,
  ListQuery,
  PoolStats,
  Reader,
  TaskExecutionRecord,
  WorkflowEventRecord,
  WorkflowInstanceRecord,
  WorkflowInstanceStatus,
} from '@workflow-index/core';
import { type EventRow, EVENTS_OF_INSTANCES_SQL, eventsByInstance } from './postgresql-events.js';
import { CountStatements } from './postgresql-counts.js';
import { classifyError, statementTimeoutOf } from './postgresql-errors.js';
import { filterSql, INSTANCE_SORT_SQL, instanceColumns, listSql, SqlParams, TASK_SORT_SQL, taskColumns } from './postgresql-filter-sql.js';
import { POSTGRESQL_WORK_PRICES } from './postgresql-work-prices.js';
import { PostgresqlStats } from './postgresql-stats.js';
import { REPLICATION_LAG_SECONDS_SQL, lagOf } from './replication-lag.js';
import type { ErrorCountRecord, StatsBucketRecord, StatsQuery, TaskFailureCountRecord, TopErrorsQuery, TopFailingTasksQuery } from '@workflow-index/core';

const INSTANCES = 'workflow_index.workflow_instances';
const TASKS = 'workflow_index.task_executions';
// A run's tasks in their default order (the (instance_id, start_time, end_time, id) index gives it).
const TASK_ORDER_IN_RUN = 't.start_time ASC NULLS LAST, t.end_time ASC NULLS LAST, t.id ASC';

const ERROR_RAW = ['error_type', 'error_title', 'error_detail', 'error_status', 'error_instance'];
// duration_us: the outer ORDER BY of a split page may sort on it (orderBy duration).
const INSTANCE_RAW = ['id', 'name', 'namespace', 'version', 'status', 'start_time', 'end_time', 'last_update', 'duration_us', ...ERROR_RAW];
const TASK_RAW = ['id', 'instance_id', 'task_name', 'task_position', 'status', 'start_time', 'end_time', 'duration_us', ...ERROR_RAW];
const PAYLOAD_RAW = ['input', 'output'];

const timestamp = (column: string, as: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${as}`;
// JSON null is stored as SQL NULL by the normalizer already; nullif keeps that true for any other writer.
const payload = (column: string, as: string): string => `nullif(${column}, 'null'::jsonb)::text AS ${as}`;

const ERROR_COLUMNS = (alias: string): string =>
  `${alias}.error_type, ${alias}.error_title, ${alias}.error_detail, ${alias}.error_status, ${alias}.error_instance`;

function instanceSelect(payloads: boolean): string {
  return [
    'i.id', 'i.name', 'i.namespace', 'i.version', 'i.status',
    timestamp('i.start_time', 'start_date'), timestamp('i.end_time', 'end_date'), timestamp('i.last_update', 'last_update'),
    ERROR_COLUMNS('i'),
    ...(payloads ? [payload('i.input', 'input_data'), payload('i.output', 'output_data')] : []),
  ].join(', ');
}

function taskSelect(payloads: boolean): string {
  return [
    't.id', 't.instance_id', 't.task_name', 't.task_position', 't.status',
    timestamp('t.start_time', 'start_date'), timestamp('t.end_time', 'end_date'),
    ERROR_COLUMNS('t'),
    ...(payloads ? [payload('t.input', 'input_data'), payload('t.output', 'output_data')] : []),
  ].join(', ');
}

// The task executions of instance `i` as one json array of arrays (columns of TASK_JSON_COLUMNS), chronological as
// tasksOfInstances: one round trip for a run with its tasks (the instance index gives the order).
const TASK_JSON_COLUMNS = ['id', 'instance_id', 'task_name', 'task_position', 'status', 'start_date', 'end_date',
  'error_type', 'error_title', 'error_detail', 'error_status', 'error_instance', 'input_data', 'output_data'] as const;
function tasksAsJson(payloads: boolean): string {
  const time = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  const values = [
    't.id', 't.instance_id', 't.task_name', 't.task_position', 't.status', time('t.start_time'), time('t.end_time'), ERROR_COLUMNS('t'),
    ...(payloads ? [`nullif(t.input, 'null'::jsonb)::text`, `nullif(t.output, 'null'::jsonb)::text`] : []),
  ].join(', ');
  return `(SELECT coalesce(json_agg(json_build_array(${values}) ORDER BY ${TASK_ORDER_IN_RUN}), '[]'::json)` +
    ` FROM ${TASKS} t WHERE t.instance_id = i.id)`;
}
function taskRowOf(values: readonly unknown[]): TaskRow {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < values.length; i++) row[TASK_JSON_COLUMNS[i] as string] = values[i];
  return row as unknown as TaskRow;
}

const SERVED_INSTANCE = 'i.started_event_time IS NOT NULL';
// A task is served when its run is. Every task row has a run row (the normalizer inserts a placeholder for a run
// known only from task events in the statement that stores the task; retention deletes a run and its tasks in one
// statement), so "the run is not a placeholder" says the same as "the run is served" and is checked against the few
// placeholders (their partial index, workflow_instances_placeholder_idx) instead of the run's row for every task.
const placeholderRun = (id: string): string => `SELECT 1 FROM ${INSTANCES} s WHERE s.id = ${id} AND s.started_event_time IS NULL`;
const PLACEHOLDER_OF_TASK = placeholderRun('t.instance_id');
const SERVED_TASK = `NOT EXISTS (${PLACEHOLDER_OF_TASK})`;

/**
 * The lookups of a fixed shape (one run, with or without its tasks; one task; the tasks of a page of runs) run as
 * named statements: each session parses and plans them once, then sends only Bind/Execute. All their texts are
 * built here, so a session holds at most these twelve; list queries, whose text follows the filter, stay unnamed.
 */
interface Prepared { readonly name: string; readonly text: string }
const PREPARED_NAMES = new Map<string, string>();
function prepared(name: string, text: string): Prepared {
  PREPARED_NAMES.set(text, name);
  return { name, text };
}
const payloadsKey = (payloads: boolean): string => (payloads ? 'p' : 'n');

/** The statement name the reader gives this SQL text, or undefined when it sends it unnamed (bench:query's floor prepares the same ones). */
export function preparedStatementName(text: string): string | undefined {
  return PREPARED_NAMES.get(text);
}

const GET_INSTANCE = new Map<string, Prepared>(
  [false, true].flatMap((payloads) =>
    [undefined, false, true].map((taskPayloads): [string, Prepared] => {
      const key = `${payloadsKey(payloads)}${taskPayloads === undefined ? '' : payloadsKey(taskPayloads)}`;
      const tasks = taskPayloads === undefined ? '' : `, ${tasksAsJson(taskPayloads)} AS tasks`;
      return [key, prepared(`wi_get_instance_${key}`, `SELECT ${instanceSelect(payloads)}${tasks} FROM ${INSTANCES} i WHERE i.id = $1 AND ${SERVED_INSTANCE}`)];
    }),
  ),
);
const GET_TASK = new Map<boolean, Prepared>(
  [false, true].map((payloads) => [payloads, prepared(`wi_get_task_${payloadsKey(payloads)}`, `SELECT ${taskSelect(payloads)} FROM ${TASKS} t WHERE t.id = $1 AND ${SERVED_TASK}`)]),
);
// One statement for a whole page of runs; the (instance_id, start_time, end_time, id) index gives this order.
const EVENTS_OF_INSTANCES = prepared('wi_events_of_instances', EVENTS_OF_INSTANCES_SQL);
const TASKS_OF_INSTANCES = new Map<boolean, Prepared>(
  [false, true].map((payloads) => [
    payloads,
    prepared(
      `wi_tasks_of_instances_${payloadsKey(payloads)}`,
      `SELECT ${taskSelect(payloads)} FROM ${TASKS} t WHERE t.instance_id = ANY($1::text[]) AND ${SERVED_TASK}` +
        ` ORDER BY t.instance_id, ${TASK_ORDER_IN_RUN}`,
    ),
  ]),
);

// The tasks of one run (getTaskExecutionsByWorkflowInstance, a run's taskExecutions): a scalar id, so the session
// plans the statement once and reuses the generic plan; with `= ANY($1::text[])` the generic plan assumes 100 runs,
// so PostgreSQL re-planned it on every execution (the custom plan is cheaper), which cost more than executing it. The
// placeholder check is one probe of the run's id (a one-time filter), not a join per task; the
// (instance_id, start_time, end_time, id) index gives the order.
const TASKS_OF_INSTANCE = new Map<boolean, Prepared>(
  [false, true].map((payloads) => [
    payloads,
    prepared(
      `wi_tasks_of_instance_${payloadsKey(payloads)}`,
      `SELECT ${taskSelect(payloads)} FROM ${TASKS} t WHERE t.instance_id = $1` +
        ` AND NOT EXISTS (${placeholderRun('$1')})` +
        ` ORDER BY ${TASK_ORDER_IN_RUN}`,
    ),
  ]),
);

interface ErrorColumns {
  error_type: string | null;
  error_title: string | null;
  error_detail: string | null;
  error_status: number | null;
  error_instance: string | null;
}
interface InstanceRow extends ErrorColumns {
  id: string;
  name: string | null;
  namespace: string | null;
  version: string | null;
  status: string;
  start_date: string | null;
  end_date: string | null;
  last_update: string | null;
  input_data?: string | null;
  output_data?: string | null;
}
interface TaskRow extends ErrorColumns {
  id: string;
  instance_id: string;
  task_name: string;
  task_position: string;
  status: string;
  start_date: string | null;
  end_date: string | null;
  input_data?: string | null;
  output_data?: string | null;
}

function errorOf(row: ErrorColumns): ErrorRecord | null {
  if (row.error_type === null && row.error_title === null && row.error_detail === null && row.error_status === null && row.error_instance === null) {
    return null;
  }
  return { type: row.error_type, title: row.error_title, detail: row.error_detail, status: row.error_status, instance: row.error_instance };
}

function toInstance(row: InstanceRow, payloads: boolean): WorkflowInstanceRecord {
  return {
    id: row.id,
    name: row.name ?? '',
    namespace: row.namespace,
    version: row.version,
    status: row.status as WorkflowInstanceStatus,
    startDate: row.start_date,
    endDate: row.end_date,
    lastUpdate: row.last_update,
    ...(payloads ? { inputData: row.input_data ?? null, outputData: row.output_data ?? null } : {}),
    error: errorOf(row),
  };
}

function toTask(row: TaskRow, payloads: boolean): TaskExecutionRecord {
  return {
    id: row.id,
    workflowInstanceId: row.instance_id,
    taskName: row.task_name,
    taskPosition: row.task_position,
    status: row.status,
    startDate: row.start_date,
    endDate: row.end_date,
    ...(payloads ? { inputData: row.input_data ?? null, outputData: row.output_data ?? null } : {}),
    error: errorOf(row),
  };
}

export interface PostgresqlReaderOptions {
  readonly pool: pg.Pool;
  /** Whether close() ends the pool (default true). */
  readonly ownsPool?: boolean;
  /** How long an exact count may run before the planner's estimate answers instead (default 1000 ms). */
  readonly countTimeoutMs?: number;
}

export class PostgresqlReader implements Reader {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #counts: CountStatements;
  readonly #stats: PostgresqlStats;
  #closed: Promise<void> | undefined;
  readonly backendName = 'postgresql';
  readonly workPrices = POSTGRESQL_WORK_PRICES;

  constructor(options: PostgresqlReaderOptions) {
    this.#pool = options.pool;
    this.#ownsPool = options.ownsPool ?? true;
    this.#counts = new CountStatements(options.pool, options.countTimeoutMs ?? 1000);
    this.#stats = new PostgresqlStats((text, values, what) => this.#query(text, values, what), {
      instances: INSTANCES, tasks: TASKS, servedInstance: SERVED_INSTANCE, servedTask: SERVED_TASK,
    });
  }

  workflowStats(query: StatsQuery): Promise<StatsBucketRecord[]> {
    return this.#stats.workflowStats(query);
  }

  topErrors(query: TopErrorsQuery): Promise<ErrorCountRecord[]> {
    return this.#stats.topErrors(query);
  }

  topFailingTasks(query: TopFailingTasksQuery): Promise<TaskFailureCountRecord[]> {
    return this.#stats.topFailingTasks(query);
  }

  countInstances(filter: InstanceFilter | null, options: CountOptions): Promise<Count> {
    if (filter?.kind === 'tasks') return this.#countRunsOfTasks(filter.node, options);
    const params = new SqlParams();
    const where = `${SERVED_INSTANCE} AND ${filterSql(filter, instanceColumns('i'), params)}`;
    return this.#counts.count(`FROM ${INSTANCES} i WHERE ${where}`, params.values, options.exactLimit, 'countInstances');
  }

  countTasks(filter: TaskFilter | null, options: CountOptions): Promise<Count> {
    const params = new SqlParams();
    const condition = filterSql(filter, taskColumns('t'), params);
    // Counted as (matching tasks) − (matching tasks of placeholder runs): the first part reads only the filter's
    // index (index-only when the filter's columns are in one), without a look at the run of every task.
    return this.#counts.countExcluding(
      { from: `FROM ${TASKS} t WHERE ${condition}`, excluded: `FROM ${TASKS} t WHERE EXISTS (${PLACEHOLDER_OF_TASK}) AND ${condition}` },
      `FROM ${TASKS} t WHERE ${SERVED_TASK} AND ${condition}`,
      params.values, options.exactLimit, 'countTasks',
    );
  }

  /**
   * Runs where some task matches (an instance filter that is one `taskExecutions` condition): the runs of the matching
   * tasks, grouped by run and bounded like every count, less the placeholder runs among them (as countTasks). It reads
   * the task filter's index, not every served run (a hash semi join over all of them: at 100,000 runs, the 1,000 runs
   * where charge faulted took 52 ms against 1.3 ms, and it grows with the table); a task filter that matches most runs
   * stops after limit + 1 of them, in run order.
   */
  #countRunsOfTasks(node: TaskFilter, options: CountOptions): Promise<Count> {
    const params = new SqlParams();
    const condition = filterSql(node, taskColumns('t'), params);
    return this.#counts.countExcluding(
      {
        from: `FROM ${TASKS} t WHERE ${condition} GROUP BY t.instance_id`,
        excluded: `FROM (SELECT DISTINCT t.instance_id FROM ${TASKS} t WHERE EXISTS (${PLACEHOLDER_OF_TASK}) AND ${condition}) d`,
      },
      `FROM ${INSTANCES} i WHERE ${SERVED_INSTANCE} AND EXISTS (SELECT 1 FROM ${TASKS} t WHERE t.instance_id = i.id AND ${condition})`,
      params.values, options.exactLimit, 'countInstances',
    );
  }

  countInstancesByStatus(filter: InstanceFilter | null, options: CountOptions): Promise<Readonly<Record<WorkflowInstanceStatus, Count>>> {
    const params = new SqlParams();
    const where = `${SERVED_INSTANCE} AND ${filterSql(filter, instanceColumns('i'), params)}`;
    return this.#counts.countByStatus(`FROM ${INSTANCES} i WHERE ${where}`, 'i.status', params.values, options.exactLimit);
  }

  async getInstance(id: string, options: { payloads: boolean; tasks?: { payloads: boolean } }): Promise<WorkflowInstanceRecord | null> {
    const key = `${payloadsKey(options.payloads)}${options.tasks === undefined ? '' : payloadsKey(options.tasks.payloads)}`;
    const rows = await this.#query<InstanceRow & { tasks?: unknown[][] }>(GET_INSTANCE.get(key) as Prepared, [id], 'getInstance');
    const row = rows[0];
    if (!row) return null;
    const instance = toInstance(row, options.payloads);
    if (options.tasks === undefined || row.tasks === undefined) return instance;
    const taskPayloads = options.tasks.payloads;
    return { ...instance, tasks: row.tasks.map((values) => toTask(taskRowOf(values), taskPayloads)) };
  }

  async listInstances(query: ListQuery<InstanceFilter, InstanceSortField>): Promise<WorkflowInstanceRecord[]> {
    if (query.limit <= 0) return [];
    const params = new SqlParams();
    const where = `${SERVED_INSTANCE} AND ${filterSql(query.filter, instanceColumns('i'), params)}`;
    const sql = listSql({
      table: INSTANCES, alias: 'i', select: instanceSelect(query.payloads),
      rawColumns: query.payloads ? [...INSTANCE_RAW, ...PAYLOAD_RAW] : INSTANCE_RAW,
      where, keys: effectiveSortKeys<InstanceSortField>(query.orderBy, DEFAULT_LIST_ORDER), fields: INSTANCE_SORT_SQL,
      after: query.after ?? null, limit: query.limit, offset: query.offset, params,
    });
    const rows = await this.#query<InstanceRow>(sql, params.values, 'listInstances');
    return rows.map((row) => toInstance(row, query.payloads));
  }

  async getTask(id: string, options: { payloads: boolean }): Promise<TaskExecutionRecord | null> {
    const rows = await this.#query<TaskRow>(GET_TASK.get(options.payloads) as Prepared, [id], 'getTask');
    const row = rows[0];
    return row ? toTask(row, options.payloads) : null;
  }

  async listTasks(query: ListQuery<TaskFilter, TaskSortField>): Promise<TaskExecutionRecord[]> {
    if (query.limit <= 0) return [];
    const params = new SqlParams();
    const where = `${SERVED_TASK} AND ${filterSql(query.filter, taskColumns('t'), params)}`;
    const sql = listSql({
      table: TASKS, alias: 't', select: taskSelect(query.payloads),
      rawColumns: query.payloads ? [...TASK_RAW, ...PAYLOAD_RAW] : TASK_RAW,
      where, keys: effectiveSortKeys<TaskSortField>(query.orderBy, DEFAULT_LIST_ORDER), fields: TASK_SORT_SQL,
      after: query.after ?? null, limit: query.limit, offset: query.offset, params,
    });
    const rows = await this.#query<TaskRow>(sql, params.values, 'listTasks');
    return rows.map((row) => toTask(row, query.payloads));
  }

  async tasksOfInstances(instanceIds: readonly string[], options: { payloads: boolean }): Promise<Map<string, TaskExecutionRecord[]>> {
    const result = new Map<string, TaskExecutionRecord[]>(instanceIds.map((id) => [id, []]));
    if (instanceIds.length === 0) return result;
    const ids = [...new Set(instanceIds)];
    const rows = ids.length === 1
      ? await this.#query<TaskRow>(TASKS_OF_INSTANCE.get(options.payloads) as Prepared, ids, 'tasksOfInstances')
      : await this.#query<TaskRow>(TASKS_OF_INSTANCES.get(options.payloads) as Prepared, [ids], 'tasksOfInstances');
    for (const row of rows) result.get(row.instance_id)?.push(toTask(row, options.payloads));
    return result;
  }

  async eventsOfInstances(instanceIds: readonly string[], options: { payloads: boolean }): Promise<Map<string, WorkflowEventRecord[]>> {
    const ids = [...new Set(instanceIds)];
    const rows = ids.length === 0 ? [] : await this.#query<EventRow>(EVENTS_OF_INSTANCES, [ids, options.payloads], 'eventsOfInstances');
    return eventsByInstance(instanceIds, rows, options.payloads);
  }

  async ping(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BackendUnavailableError(`PostgreSQL did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    const attempt = this.#query('SELECT 1', [], 'ping', timeoutMs);
    attempt.catch(() => undefined); // a late failure after the deadline is not an unhandled rejection
    try {
      await Promise.race([attempt, deadline]);
    } catch (error) {
      throw error instanceof BackendUnavailableError ? error : new BackendUnavailableError(`PostgreSQL ping failed: ${(error as Error).message}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  async ingestionStats(): Promise<IngestionStats> {
    const rows = await this.#query<{
      workflow_raw_events: string; task_raw_events: string; ingest_errors: string; newest_event_time: string | null;
      placeholder_instances: string; instances: string; task_executions: string; replication_lag_seconds: number | null;
    }>(
      `SELECT workflow_raw_events, task_raw_events, ingest_errors, ${timestamp('newest_event_time', 'newest_event_time')},
              placeholder_instances, instances, task_executions, ${REPLICATION_LAG_SECONDS_SQL} AS replication_lag_seconds
       FROM workflow_index.ingest_stats()`,
      [],
      'ingestionStats',
    );
    const row = rows[0];
    if (!row) throw new Error('workflow_index.ingest_stats() returned no row');
    return {
      rawEvents: { workflow: Number(row.workflow_raw_events), task: Number(row.task_raw_events) },
      ingestErrors: Number(row.ingest_errors),
      newestEventTime: row.newest_event_time,
      placeholderInstances: Number(row.placeholder_instances),
      instances: Number(row.instances),
      taskExecutions: Number(row.task_executions),
      replicationLagSeconds: lagOf(row.replication_lag_seconds),
    };
  }

  poolStats(): PoolStats {
    return { total: this.#pool.totalCount, idle: this.#pool.idleCount, waiting: this.#pool.waitingCount };
  }

  close(): Promise<void> {
    this.#closed ??= this.#ownsPool ? this.#pool.end() : Promise.resolve();
    return this.#closed;
  }

  async #query<R extends object>(statement: string | Prepared, values: readonly unknown[], what: string, timeoutMs?: number): Promise<R[]> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      // Any failure to obtain a session (refused, timed out, database missing or closed, login refused) means
      // the backend cannot serve now.
      const reason = error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);
      throw new BackendUnavailableError(`PostgreSQL unavailable (${what}): ${reason}`, { cause: error });
    }
    try {
      const named = typeof statement === 'string' ? { text: statement } : statement;
      const result = await client.query<R>({ ...named, values: [...values], ...(timeoutMs !== undefined ? { query_timeout: timeoutMs } : {}) });
      client.release();
      return result.rows;
    } catch (error) {
      const classified = classifyError(error, what, statementTimeoutOf(this.#pool));
      // A session that failed below SQL (socket, protocol, client timeout) is discarded; after an SQL error it is reusable.
      const sqlError = typeof (error as { code?: unknown }).code === 'string' && /^[0-9A-Z]{5}$/.test((error as { code: string }).code);
      client.release(sqlError && !String((error as { code: string }).code).startsWith('57P') ? undefined : (error as Error));
      throw classified;
    }
  }
}

export function createPostgresqlReader(options: PostgresqlReaderOptions): Reader {
  return new PostgresqlReader(options);
}
