// Translates the backend-neutral filter tree (server/core/src/reader.ts) into a SQL condition. Every value
// travels as a bind parameter; the SQL text only ever contains column names from the fixed maps below.
//
// Two-valued logic without losing indexes: `not` is pushed down to the leaves (De Morgan), so the condition
// is free of NOT above any leaf. A positive leaf is emitted as is: in a NOT-free AND/OR tree a NULL leaf
// can never make the whole condition true, so it acts as false. A negated leaf is emitted as
// `(<pred>) IS NOT TRUE`, which is true for NULL — `not` matches exactly the rows its operand does not.
// Wrapping every leaf in coalesce(…, false) would be equivalent but hides the column from the planner.
import { durationBoundMicros } from '@workflow-index/core';
import type {
  Direction,
  DurationPredicate,
  FilterNode,
  InstanceFilter,
  JsonPredicate,
  InstanceSortField,
  TaskSortField,
  InstanceStringField,
  InstanceTimeField,
  IntPredicate,
  JsonField,
  KeysetPosition,
  LikeSegment,
  SortKey,
  StringPredicate,
  TaskStringField,
  TaskTimeField,
  TimePredicate,
} from '@workflow-index/core';

/** Collects bind parameters; `add` returns the placeholder (`$n`) to put into the SQL text. */
export class SqlParams {
  readonly values: unknown[] = [];
  #aliases = 0;
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  /** A table alias not used elsewhere in the statement (for the subqueries of relation filters). */
  alias(prefix: string): string {
    this.#aliases += 1;
    return `${prefix}${this.#aliases}`;
  }
}

/** Maps from the filter tree's field names to (trusted, constant) column expressions. */
export interface FieldColumns<S extends string, T extends string> {
  readonly string: Readonly<Record<S, string>>;
  readonly time: Readonly<Record<T, string>>;
  readonly int: Readonly<Record<'error.status', string>>;
  readonly json: Readonly<Record<JsonField, string>>;
  /** endDate − startDate in microseconds (migrations/0006_durations.sql). */
  readonly duration: string;
  /** The id of the row's workflow instance (its own id for instances): what relation filters join on. */
  readonly instanceId: string;
  /** The row's table and primary key column (over the alias): what a JSON value list's semi-join reads back. */
  readonly table: string;
  readonly key: string;
  /** Whether the JSON columns have a GIN (jsonb_path_ops) index, which containment tests can use. */
  readonly jsonIndexed: boolean;
  /** Task rows: their run's fields they carry (migrations/0011_task_run_fields.sql), which `instance` filters read. */
  readonly runFields?: Readonly<Record<RunField, string>>;
}

/** The run's fields a task row carries, as the instance filter names them. */
type RunField = 'namespace' | 'name' | 'version';
const RUN_FIELDS: Readonly<Record<RunField, string>> = { namespace: 'workflow_namespace', name: 'workflow_name', version: 'workflow_version' };
const isRunField = (field: string): field is RunField => Object.hasOwn(RUN_FIELDS, field);

/** Whether an instance filter reads only the run's fields a task row carries (then no run lookup is needed). */
function onRunFields(node: InstanceFilter): boolean {
  switch (node.kind) {
    case 'string':
      return isRunField(node.field);
    case 'and':
    case 'or':
      return node.nodes.every(onRunFields);
    case 'not':
      return onRunFields(node.node);
    default:
      return false;
  }
}

const ERROR_STRING_COLUMNS = {
  'error.type': 'error_type',
  'error.title': 'error_title',
  'error.detail': 'error_detail',
  'error.instance': 'error_instance',
} as const;

/** The error fields live in the same columns on both normalized tables. */
function errorColumns(c: (column: string) => string): Record<keyof typeof ERROR_STRING_COLUMNS, string> {
  return {
    'error.type': c(ERROR_STRING_COLUMNS['error.type']),
    'error.title': c(ERROR_STRING_COLUMNS['error.title']),
    'error.detail': c(ERROR_STRING_COLUMNS['error.detail']),
    'error.instance': c(ERROR_STRING_COLUMNS['error.instance']),
  };
}

export function instanceColumns(alias: string): FieldColumns<InstanceStringField, InstanceTimeField> {
  const c = (column: string): string => `${alias}.${column}`;
  return {
    string: {
      id: c('id'),
      name: c('name'),
      namespace: c('namespace'),
      version: c('version'),
      status: c('status'),
      ...errorColumns(c),
    },
    time: { startDate: c('start_time'), endDate: c('end_time'), lastUpdate: c('last_update') },
    int: { 'error.status': c('error_status') },
    json: { input: c('input'), output: c('output') },
    duration: c('duration_us'),
    instanceId: c('id'),
    table: INSTANCES_TABLE,
    key: c('id'),
    jsonIndexed: true,
  };
}

export function taskColumns(alias: string): FieldColumns<TaskStringField, TaskTimeField> {
  const c = (column: string): string => `${alias}.${column}`;
  return {
    string: {
      id: c('id'),
      workflowInstanceId: c('instance_id'),
      taskName: c('task_name'),
      taskPosition: c('task_position'),
      status: c('status'),
      ...errorColumns(c),
    },
    time: { startDate: c('start_time'), endDate: c('end_time') },
    int: { 'error.status': c('error_status') },
    json: { input: c('input'), output: c('output') },
    duration: c('duration_us'),
    instanceId: c('instance_id'),
    table: TASKS_TABLE,
    key: c('id'),
    jsonIndexed: false,
    runFields: { namespace: c(RUN_FIELDS.namespace), name: c(RUN_FIELDS.name), version: c(RUN_FIELDS.version) },
  };
}

/** The SQL condition of a filter tree (`true` for no filter). */
export function filterSql<S extends string, T extends string>(
  node: FilterNode<S, T> | null,
  columns: FieldColumns<S, T>,
  params: SqlParams,
): string {
  return node === null ? 'true' : translate(node, columns, params, { negated: false, conjunct: true });
}

/**
 * Where a node sits: under an odd number of `not`s (`negated`), and whether it is one of the conditions the whole
 * WHERE ANDs together (`conjunct`: reached from the root through `and`s only, never negated), where a semi-join may
 * stand for it.
 */
interface Position {
  readonly negated: boolean;
  readonly conjunct: boolean;
}

function translate<S extends string, T extends string>(
  node: FilterNode<S, T>,
  columns: FieldColumns<S, T>,
  params: SqlParams,
  at: Position,
): string {
  const { negated } = at;
  switch (node.kind) {
    case 'not':
      return translate(node.node, columns, params, { negated: !negated, conjunct: false });
    case 'and':
    case 'or': {
      // De Morgan: under negation, and becomes or and vice versa.
      const conjunction = (node.kind === 'and') !== negated;
      if (node.nodes.length === 0) return conjunction ? 'true' : 'false';
      const inner = { negated, conjunct: at.conjunct && node.kind === 'and' && !negated };
      const parts = node.nodes.map((child) => translate(child, columns, params, inner));
      return parts.length === 1 ? (parts[0] as string) : `(${parts.join(conjunction ? ' AND ' : ' OR ')})`;
    }
    case 'string':
      return leaf(stringPredicateSql(columns.string[node.field], node.predicate, params), negated);
    case 'time':
      return leaf(timePredicateSql(columns.time[node.field], node.predicate, params), negated);
    case 'int':
      return leaf(intPredicateSql(columns.int[node.field], node.predicate, params), negated);
    case 'json':
      return leaf(jsonPredicateSql(jsonTarget(columns, node.field, at), node.path, node.value, params), negated);
    case 'jsonOp':
      return leaf(jsonOperatorSql(jsonTarget(columns, node.field, at), node.path, node.predicate, params), negated);
    case 'duration':
      return leaf(durationPredicateSql(columns.duration, node.predicate, params), negated);
    case 'tasks': {
      // Some task execution of the instance matches (the instance index of task_executions finds its tasks).
      const t = params.alias('tf');
      const condition = filterSql(node.node, taskColumns(t), params);
      return leaf({ sql: `EXISTS (SELECT 1 FROM ${TASKS_TABLE} ${t} WHERE ${t}.instance_id = ${columns.instanceId} AND ${condition})`, nullable: false }, negated);
    }
    case 'instance': {
      // The run's namespace, name and version: the task row's own columns, equal to its run's (NULL while the run is a
      // placeholder, whose tasks are not served either), so `not` keeps its meaning: NULL is "does not match".
      if (columns.runFields !== undefined && onRunFields(node.node)) {
        const onTask = instanceColumns('');
        return translate(node.node, { ...onTask, string: { ...onTask.string, ...columns.runFields } }, params, { negated, conjunct: false });
      }
      // Any other field of the task's instance (its primary key).
      const i = params.alias('if');
      const condition = filterSql(node.node, instanceColumns(i), params);
      return leaf({ sql: `EXISTS (SELECT 1 FROM ${INSTANCES_TABLE} ${i} WHERE ${i}.id = ${columns.instanceId} AND ${condition})`, nullable: false }, negated);
    }
  }
}

const INSTANCES_TABLE = 'workflow_index.workflow_instances';
const TASKS_TABLE = 'workflow_index.task_executions';

/** A leaf predicate; `nullable: false` when it can never evaluate to NULL (IS NULL, constants). */
interface Leaf {
  readonly sql: string;
  readonly nullable: boolean;
}

function leaf(predicate: Leaf, negated: boolean): string {
  if (!negated) return predicate.sql;
  if (predicate.sql === 'true') return 'false';
  if (predicate.sql === 'false') return 'true';
  return predicate.nullable ? `(${predicate.sql}) IS NOT TRUE` : `NOT (${predicate.sql})`;
}

const COMPARISON = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

function stringPredicateSql(column: string, predicate: StringPredicate, params: SqlParams): Leaf {
  switch (predicate.op) {
    case 'eq':
    case 'ne':
      return { sql: `${column} ${COMPARISON[predicate.op]} ${params.add(predicate.value)}`, nullable: true };
    case 'in':
      if (predicate.values.length === 0) return { sql: 'false', nullable: false };
      return { sql: `${column} = ANY(${params.add([...predicate.values])}::text[])`, nullable: true };
    case 'contains':
      return likeSql(column, `%${escapeLike(predicate.value)}%`, params);
    case 'startsWith':
      return likeSql(column, `${escapeLike(predicate.value)}%`, params);
    case 'endsWith':
      return likeSql(column, `%${escapeLike(predicate.value)}`, params);
    case 'like':
      return likeSql(column, likePattern(predicate.pattern), params);
    case 'isNull':
      return { sql: `${column} ${predicate.value ? 'IS NULL' : 'IS NOT NULL'}`, nullable: false };
  }
}

function likeSql(column: string, pattern: string, params: SqlParams): Leaf {
  // The "C" collation of the columns makes LIKE case-sensitive and lets a literal prefix use the btree index.
  // E'\\' is one backslash whatever standard_conforming_strings says.
  return { sql: `${column} LIKE ${params.add(pattern)} ESCAPE E'\\\\'`, nullable: true };
}

/** Escapes LIKE's own wildcards and escape character so the text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function likePattern(segments: readonly LikeSegment[]): string {
  return segments.map((s) => (s.kind === 'literal' ? escapeLike(s.text) : s.kind === 'any' ? '%' : '_')).join('');
}

function timePredicateSql(column: string, predicate: TimePredicate, params: SqlParams): Leaf {
  switch (predicate.op) {
    case 'between':
      return {
        sql: `${column} BETWEEN ${params.add(predicate.from)}::timestamptz AND ${params.add(predicate.to)}::timestamptz`,
        nullable: true,
      };
    case 'isNull':
      return { sql: `${column} ${predicate.value ? 'IS NULL' : 'IS NOT NULL'}`, nullable: false };
    default:
      return { sql: `${column} ${COMPARISON[predicate.op]} ${params.add(predicate.value)}::timestamptz`, nullable: true };
  }
}

function intPredicateSql(column: string, predicate: IntPredicate, params: SqlParams): Leaf {
  if (predicate.op === 'in') {
    if (predicate.values.length === 0) return { sql: 'false', nullable: false };
    return { sql: `${column} = ANY(${params.add([...predicate.values])}::int4[])`, nullable: true };
  }
  return { sql: `${column} ${COMPARISON[predicate.op]} ${params.add(predicate.value)}::int8`, nullable: true };
}

// JSON number grammar (RFC 8259): the value is compared numerically only when it is written as a JSON number.
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The JSON values a filter value stands for: the JSON string itself, the number it spells (compared by value:
 * jsonb equality is numeric, so 1000 = 1000.0), the boolean it spells.
 */
export function jsonCandidates(value: string): string[] {
  const candidates = [JSON.stringify(value)];
  if (JSON_NUMBER.test(value)) candidates.push(value);
  if (value === 'true' || value === 'false') candidates.push(value);
  return candidates;
}

/** A segment `#>` reads as an array index (strtol: optional white space and sign, digits) that is not written as one. */
const LOOSE_INDEX = /^[ \t\n\v\f\r]*[+-]?\d+$/;
const CANONICAL_INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * The value at `path`, as `#>` reads it (a missing path is NULL), except that only `0` or digits without a leading
 * zero index an array: `#>` also reads `-1` (the last element), `01`, `+1` or ` 1` as indexes, which the OpenSearch
 * reader's leaves cannot (docs/api.md, Filters: JSON paths). Such a segment meeting an array gives NULL; meeting an object it is a
 * key, as for `#>`.
 */
function jsonValueAtPath(column: string, path: readonly string[], params: SqlParams): string {
  const value = `(${column} #> ${params.add([...path])}::text[])`;
  const loose = path.flatMap((segment, i) => (LOOSE_INDEX.test(segment) && !CANONICAL_INDEX.test(segment) ? [i] : []));
  if (loose.length === 0) return value;
  const arrays = loose.map((i) => `jsonb_typeof(${column} #> ${params.add(path.slice(0, i))}::text[]) = 'array'`);
  return `(CASE WHEN ${arrays.join(' OR ')} THEN NULL ELSE ${value} END)`;
}

/** A JSON column of the row, and how containment tests on it may pre-select rows (see withContainment). */
interface JsonTarget {
  /** The column over the row's alias. */
  readonly column: string;
  /** The column's bare name, the table and its key, for a semi-join; null when no index serves containment. */
  readonly indexed: { readonly name: string; readonly table: string; readonly key: string } | null;
  /** Whether the leaf is a conjunct of the statement's WHERE (Position). */
  readonly conjunct: boolean;
}

function jsonTarget<S extends string, T extends string>(columns: FieldColumns<S, T>, field: JsonField, at: Position): JsonTarget {
  const column = columns.json[field];
  const name = column.slice(column.lastIndexOf('.') + 1);
  return { column, indexed: columns.jsonIndexed ? { name, table: columns.table, key: columns.key } : null, conjunct: at.conjunct && !at.negated };
}

function jsonPredicateSql(target: JsonTarget, path: readonly string[], value: string, params: SqlParams): Leaf {
  const candidates = jsonCandidates(value);
  // a digit segment indexes an array, or names an object key; a missing path is NULL
  const exact = `${jsonValueAtPath(target.column, path, params)} = ANY(${params.add(candidates)}::jsonb[])`;
  return withContainment(target, path, candidates, exact, params);
}

/**
 * Most candidates pre-selected by OR'ed containment tests. The planner builds one bitmap index scan per test, and each
 * costs the backend about 0.3 MB while it plans and runs them: 10,000 of them took 3.1 GB (docs/query-cost.md).
 */
export const MAX_OR_CONTAINMENT_TESTS = 8;

/**
 * `exact` (the value at `path` is one of `candidates`) pre-selected by containment when the path names object keys and
 * the column has a GIN (jsonb_path_ops) index: the containment documents let the index find the rows; the exact check
 * then rejects containment's extra matches (e.g. a value inside an array at that key). A few candidates are OR'ed
 * containment tests anywhere in the filter. More are one semi-join over the list (one index lookup per value at run
 * time, a plan of constant size) where the leaf is a conjunct of the WHERE; elsewhere (under `or` or `not`, where a
 * semi-join would become a subplan run per row) they are the exact check alone, a hashed test per row. A path with an
 * array index, or a column without the index: `exact` alone.
 */
function withContainment(target: JsonTarget, path: readonly string[], candidates: readonly string[], exact: string, params: SqlParams): Leaf {
  const index = target.indexed;
  if (index === null || path.length === 0 || path.some((segment) => /^\d+$/.test(segment))) return { sql: exact, nullable: true };
  const documents = candidates.map((candidate) => containmentDocument(path, candidate));
  if (documents.length <= MAX_OR_CONTAINMENT_TESTS) {
    const containment = documents.map((document) => `${target.column} @> ${params.add(document)}::jsonb`);
    const prefilter = containment.length === 1 ? containment[0] : `(${containment.join(' OR ')})`;
    return { sql: `(${prefilter} AND ${exact})`, nullable: true };
  }
  if (!target.conjunct) return { sql: exact, nullable: true };
  const row = params.alias('jv');
  const semiJoin = `${index.key} IN (SELECT ${row}.id FROM ${index.table} ${row} CROSS JOIN unnest(${params.add(documents)}::jsonb[]) ${row}d(doc) WHERE ${row}.${index.name} @> ${row}d.doc)`;
  return { sql: `(${semiJoin} AND ${exact})`, nullable: true };
}

function containmentDocument(path: readonly string[], candidateJson: string): string {
  return path.reduceRight((inner, key) => `{${JSON.stringify(key)}:${inner}}`, candidateJson);
}

/**
 * The JSON operators beyond eq (reader.ts JsonPredicate). A comparison yields NULL (false, two-valued) for a value of
 * another JSON type, checked first in a CASE because `::numeric` of a string would fail the statement.
 */
function jsonOperatorSql(target: JsonTarget, path: readonly string[], predicate: JsonPredicate, params: SqlParams): Leaf {
  if (predicate.op === 'in' && predicate.values.length === 0) return { sql: 'false', nullable: false };
  const value = jsonValueAtPath(target.column, path, params);
  switch (predicate.op) {
    case 'exists':
      return { sql: `${value} ${predicate.value ? 'IS NOT NULL' : 'IS NULL'}`, nullable: false };
    case 'ne':
      return { sql: `${value} <> ALL(${params.add(jsonCandidates(predicate.value))}::jsonb[])`, nullable: true };
    case 'in': {
      // eq with several values: served by the GIN index like eq (withContainment).
      const candidates = [...new Set(predicate.values.flatMap(jsonCandidates))];
      return withContainment(target, path, candidates, `${value} = ANY(${params.add(candidates)}::jsonb[])`, params);
    }
    case 'contains':
      return { sql: `CASE WHEN jsonb_typeof(${value}) = 'string' THEN strpos(${value} #>> '{}', ${params.add(predicate.value)}::text) > 0 END`, nullable: true };
    default: {
      const operator = COMPARISON[predicate.op];
      if (JSON_NUMBER.test(predicate.value)) {
        return { sql: `CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${value})::numeric ${operator} ${params.add(predicate.value)}::numeric END`, nullable: true };
      }
      return {
        sql: `CASE WHEN jsonb_typeof(${value}) = 'string' THEN (${value} #>> '{}') COLLATE "C" ${operator} ${params.add(predicate.value)}::text COLLATE "C" END`,
        nullable: true,
      };
    }
  }
}

function durationPredicateSql(column: string, predicate: DurationPredicate, params: SqlParams): Leaf {
  if (predicate.op === 'isNull') return { sql: `${column} ${predicate.value ? 'IS NULL' : 'IS NOT NULL'}`, nullable: false };
  return { sql: `${column} ${COMPARISON[predicate.op]} ${params.add(durationBoundMicros(predicate.op, predicate.value))}::int8`, nullable: true };
}

/**
 * What the list statement needs to know about a table's sort fields: the column, whether it can be NULL, whether it
 * is a timestamp (bind parameters cast to timestamptz), and whether its only index is `(column DESC NULLS LAST, id)`
 * (timestamps: the ascending order reads it backwards, see migrations/0003_ordering_indexes.sql).
 */
export interface SortFieldSql {
  readonly column: string;
  readonly nullable: boolean;
  readonly time: boolean;
  readonly descIndexOnly: boolean;
  /** The SQL type of keyset values when not text or a timestamp (durations: int8 microseconds). */
  readonly cast?: 'int8';
}

export const INSTANCE_SORT_SQL: Readonly<Record<InstanceSortField, SortFieldSql>> = {
  id: { column: 'id', nullable: false, time: false, descIndexOnly: false },
  name: { column: 'name', nullable: true, time: false, descIndexOnly: false },
  namespace: { column: 'namespace', nullable: true, time: false, descIndexOnly: false },
  version: { column: 'version', nullable: true, time: false, descIndexOnly: false },
  status: { column: 'status', nullable: false, time: false, descIndexOnly: false },
  startDate: { column: 'start_time', nullable: true, time: true, descIndexOnly: true },
  endDate: { column: 'end_time', nullable: true, time: true, descIndexOnly: true },
  lastUpdate: { column: 'last_update', nullable: true, time: true, descIndexOnly: true },
  // One index per direction, (duration_us ASC|DESC NULLS LAST, id): durations repeat, so a backward scan would
  // need a large reorder of equal values (migrations/0006_durations.sql, 0008_duration_ascending_indexes.sql).
  duration: { column: 'duration_us', nullable: true, time: false, descIndexOnly: false, cast: 'int8' },
};

export const TASK_SORT_SQL: Readonly<Record<TaskSortField, SortFieldSql>> = {
  id: { column: 'id', nullable: false, time: false, descIndexOnly: false },
  taskName: { column: 'task_name', nullable: false, time: false, descIndexOnly: false },
  taskPosition: { column: 'task_position', nullable: false, time: false, descIndexOnly: false },
  status: { column: 'status', nullable: false, time: false, descIndexOnly: false },
  startDate: { column: 'start_time', nullable: true, time: true, descIndexOnly: true },
  endDate: { column: 'end_time', nullable: true, time: true, descIndexOnly: true },
  duration: { column: 'duration_us', nullable: true, time: false, descIndexOnly: false, cast: 'int8' },
};

export interface ListStatement<F extends string> {
  /** `schema.table` */
  readonly table: string;
  readonly alias: string;
  /** The select list over `alias` (formatting included). */
  readonly select: string;
  /** The raw columns `select` reads, when rows pass through a UNION first. */
  readonly rawColumns: readonly string[];
  /** Filter and served-row condition over `alias`; its parameters are already in `params`. */
  readonly where: string;
  /** The effective order (`effectiveSortKeys`): the client's keys or the default, id last. */
  readonly keys: readonly SortKey<F>[];
  readonly fields: Readonly<Record<F, SortFieldSql>>;
  readonly after: KeysetPosition | null;
  readonly limit: number;
  readonly offset: number;
  readonly params: SqlParams;
}

/**
 * The SELECT of one page of a list query, shaped so that PostgreSQL reads it from an index in order instead of
 * sorting the table:
 *  - A keyset position becomes a range on the first key (`c >= v`, an index condition) refined by the exact
 *    "after" comparison; a NULL-able first key splits the rows with a value from those without (nulls last), each
 *    branch reading its own index range, and only the two page-sized branches are merged and sorted.
 *  - Oldest-first on a timestamp reads the `(t DESC NULLS LAST, id)` index backwards: the branch with a time is
 *    ordered `t ASC NULLS FIRST, …` (what a backward scan delivers; an incremental sort fixes the id order of equal
 *    times), and the rows without a time follow, merged in order (mergeKey) rather than sorted again.
 */
export function listSql<F extends string>(q: ListStatement<F>): string {
  if (q.offset === 0) return pageSql(q, q.select, q.rawColumns);
  // Deferred join: the skipped rows are only counted on the index (an index-only scan when the keys and the
  // served condition are in it, see migrations/0003), and only the page's rows are read from the table.
  const keyColumns = [...new Set([...q.keys.map((k) => q.fields[k.field].column), 'id'])];
  const keys = pageSql(q, keyColumns.map((c) => `${q.alias}.${c}`).join(', '), keyColumns);
  return `SELECT ${q.select} FROM (${keys}) p JOIN ${q.table} ${q.alias} ON ${q.alias}.id = p.id ORDER BY ${sortSql(q.keys, q.fields, 'p')}`;
}

/** The ordered page: `select` over the table alias; `columns`, the raw columns `select` reads (through a UNION). */
function pageSql<F extends string>(q: ListStatement<F>, select: string, rawColumns: readonly string[]): string {
  const [first, ...rest] = q.keys as [SortKey<F>, ...SortKey<F>[]];
  const firstSql = q.fields[first.field];
  const firstColumn = `${q.alias}.${firstSql.column}`;
  const values = q.after?.values ?? null;
  const page = ` LIMIT ${q.params.add(q.limit)} OFFSET ${q.params.add(q.offset)}`;
  const base = (columns: string, condition: string, order: readonly SortKey<F>[], orderSql?: string): string =>
    `SELECT ${columns} FROM ${q.table} ${q.alias} WHERE ${q.where}${condition === 'true' ? '' : ` AND ${condition}`}` +
    (order.length > 0 || orderSql !== undefined ? ` ORDER BY ${orderSql ?? sortSql(order, q.fields, q.alias)}` : '');

  if (values !== null && values[0] === null && firstSql.nullable) {
    // After a row without a value of the first key come only rows without one: the first key is constant.
    return base(select, `${firstColumn} IS NULL AND ${afterSql(rest, values.slice(1), q.fields, q.alias, q.params)}`, rest) + page;
  }
  const split = firstSql.nullable && (values !== null || (firstSql.descIndexOnly && first.direction === 'ASC'));
  if (!split) {
    return base(select, values === null ? 'true' : boundedAfterSql(q.keys, values, q.fields, q.alias, q.params), q.keys) + page;
  }
  const backward = firstSql.descIndexOnly && first.direction === 'ASC';
  const restSql = rest.length > 0 ? [sortSql(rest, q.fields, q.alias)] : [];
  const withValueOrder = [`${firstColumn} ${first.direction} NULLS ${backward ? 'FIRST' : 'LAST'}`, ...restSql].join(', ');
  const withValue = values === null ? `${firstColumn} IS NOT NULL` : `${firstColumn} IS NOT NULL AND ${boundedAfterSql(q.keys, values, q.fields, q.alias, q.params)}`;
  const branchLimit = ` LIMIT ${q.params.add(q.limit + q.offset)}`;
  const columns = rawColumns.map((c) => `${q.alias}.${c}`).join(', ');
  // A backward branch is ordered nulls first, the page nulls last: merging them in order takes a key both share.
  const merged = backward && firstSql.time ? mergeKey(firstColumn, q.alias, restSql) : null;
  const branches =
    `(${base(`${columns}${merged?.withValue ?? ''}`, withValue, q.keys, withValueOrder)}${branchLimit})` +
    ` UNION ALL (${base(`${columns}${merged?.withoutValue ?? ''}`, `${firstColumn} IS NULL`, rest)}${branchLimit})`;
  return `SELECT ${select} FROM (${branches}) ${q.alias} ORDER BY ${merged?.order ?? sortSql(q.keys, q.fields, q.alias)}${page}`;
}

/**
 * The order key of a backward split on a time column: the time itself in the branch with one, and `infinity` (after
 * every time an event can carry: parse_event_time reads digits only) in the branch without. The branch with a time
 * comes from its index already ordered by it, nulls first, and so does the other, trivially, so PostgreSQL merges the
 * two page-sized branches (Merge Append) instead of sorting them again to put nulls last.
 */
function mergeKey(firstColumn: string, alias: string, restSql: readonly string[]): { withValue: string; withoutValue: string; order: string } {
  return {
    withValue: `, ${firstColumn} AS ${MERGE_KEY}`,
    withoutValue: `, 'infinity'::timestamptz AS ${MERGE_KEY}`,
    order: [`${alias}.${MERGE_KEY} ASC NULLS FIRST`, ...restSql].join(', '),
  };
}
const MERGE_KEY = 'wi_merge_key';

function sortSql<F extends string>(keys: readonly SortKey<F>[], fields: Readonly<Record<F, SortFieldSql>>, alias: string): string {
  // The primary key is never NULL: a bare DESC is the backward scan of its (ASC NULLS LAST) index.
  return keys.map((k) => `${alias}.${fields[k.field].column} ${k.direction}${k.field === 'id' ? '' : ' NULLS LAST'}`).join(', ');
}

const STRICTLY: Readonly<Record<Direction, string>> = { ASC: '>', DESC: '<' };

function valueSql(field: SortFieldSql, value: string, params: SqlParams): string {
  return `${params.add(value)}::${field.time ? 'timestamptz' : (field.cast ?? 'text')}`;
}

/**
 * "After the position", for a first key whose value is not NULL in the rows considered: `c1 >= v1` first (a range
 * the index can start from), then the exact comparison.
 */
function boundedAfterSql<F extends string>(
  keys: readonly SortKey<F>[],
  values: readonly (string | null)[],
  fields: Readonly<Record<F, SortFieldSql>>,
  alias: string,
  params: SqlParams,
): string {
  const [first] = keys as [SortKey<F>];
  const field = fields[first.field];
  const v = values[0];
  if (v === null || v === undefined) return 'false';
  const column = `${alias}.${field.column}`;
  const value = valueSql(field, v, params);
  if (keys.length === 1) return `${column} ${STRICTLY[first.direction]} ${value}`;
  const tail = afterSql(keys.slice(1), values.slice(1), fields, alias, params);
  return `${column} ${STRICTLY[first.direction]}= ${value} AND (${column} ${STRICTLY[first.direction]} ${value} OR (${column} = ${value} AND ${tail}))`;
}

/** Rows strictly after the position in the order `keys` (nulls last in both directions); 'false' when no key is left. */
function afterSql<F extends string>(
  keys: readonly SortKey<F>[],
  values: readonly (string | null)[],
  fields: Readonly<Record<F, SortFieldSql>>,
  alias: string,
  params: SqlParams,
): string {
  const [key, ...rest] = keys;
  if (key === undefined) return 'false';
  const field = fields[key.field];
  const column = `${alias}.${field.column}`;
  const v = values[0] ?? null;
  let strictly: string;
  let equal: string;
  if (v === null) {
    strictly = 'false';
    equal = `${column} IS NULL`;
  } else {
    const value = valueSql(field, v, params);
    strictly = field.nullable ? `(${column} ${STRICTLY[key.direction]} ${value} OR ${column} IS NULL)` : `${column} ${STRICTLY[key.direction]} ${value}`;
    equal = `${column} = ${value}`;
  }
  if (rest.length === 0) return strictly;
  const tail = `(${equal} AND ${afterSql(rest, values.slice(1), fields, alias, params)})`;
  return strictly === 'false' ? tail : `(${strictly} OR ${tail})`;
}
