// Where each field of the Reader's filter tree and sort keys lives in the normalized documents
// (normalized-indices.ts): strings are keywords (code-point order), times are `*_us` longs (epoch µs) with the served
// ISO text beside them, payloads are stored text plus `*_leaves` keywords for JSON filters.
import type {
  SimpleInstanceSortField,
  InstanceStringField,
  InstanceTimeField,
  IntField,
  JsonField,
  SimpleTaskSortField,
  TaskStringField,
  TaskTimeField,
} from '@workflow-index/core';
import { DETAIL_CHUNKS_FIELD, DETAIL_HEAD_FIELD, DETAIL_LONG_FIELD, KEYWORD_LIMIT } from '../long-detail.js';

export interface JsonFieldDoc {
  /** Stored jsonb text of the payload (what is served). */
  readonly text: string;
  /** Keyword leaves (json-leaves.ts). */
  readonly leaves: string;
  /** false when the leaves were capped. */
  readonly complete: string;
}

/** A keyword field whose values beyond IGNORE_ABOVE are marked, with their head indexed (../long-detail.ts). */
export interface LongStringDoc {
  /** `_source` path of the whole text. */
  readonly text: string;
  /** true on documents whose text is beyond the limit. */
  readonly flag: string;
  /** The indexed head of such a text. */
  readonly head: string;
  /** The indexed overlapping chunks of such a text (../long-detail.ts keywordChunks). */
  readonly chunks: string;
}

export interface FilterFields<S extends string, T extends string> {
  readonly string: Readonly<Record<S, string>>;
  /** The string fields whose long values the keyword does not index (long-detail-filter.ts). */
  readonly longString?: Readonly<Partial<Record<S, LongStringDoc>>>;
  readonly time: Readonly<Record<T, string>>;
  readonly int: Readonly<Record<IntField, string>>;
  readonly json: Readonly<Record<JsonField, JsonFieldDoc>>;
}

/**
 * A sort key's document field. `source` is the `_source` field a keyset position is read from (times: the ISO text,
 * exact to the µs; the `*_us` number may not be exact in a JSON double for far dates).
 */
export interface SortFieldDoc {
  readonly field: string;
  readonly source: string;
  readonly nullable: boolean;
  readonly time: boolean;
}

/** The `ignore_above` of error.detail and of the payload leaves (normalized-indices.ts), in UTF-16 units as Lucene counts. */
export const IGNORE_ABOVE = KEYWORD_LIMIT;

const ERROR_STRING = { 'error.type': 'error.type', 'error.title': 'error.title', 'error.detail': 'error.detail', 'error.instance': 'error.instance' } as const;
const LONG_STRING = { 'error.detail': { text: 'error.detail', flag: DETAIL_LONG_FIELD, head: DETAIL_HEAD_FIELD, chunks: DETAIL_CHUNKS_FIELD } } as const;
const JSON_FIELDS: Readonly<Record<JsonField, JsonFieldDoc>> = {
  input: { text: 'input_json', leaves: 'input_leaves', complete: 'input_leaves_complete' },
  output: { text: 'output_json', leaves: 'output_leaves', complete: 'output_leaves_complete' },
};

export const INSTANCE_FIELDS: FilterFields<InstanceStringField, InstanceTimeField> = {
  string: { id: 'id', name: 'name', namespace: 'namespace', version: 'version', status: 'status', ...ERROR_STRING },
  time: { startDate: 'start_time_us', endDate: 'end_time_us', lastUpdate: 'last_update_us' },
  longString: LONG_STRING,
  int: { 'error.status': 'error.status' },
  json: JSON_FIELDS,
};

export const TASK_FIELDS: FilterFields<TaskStringField, TaskTimeField> = {
  string: { id: 'id', workflowInstanceId: 'instance_id', taskName: 'task_name', taskPosition: 'task_position', status: 'status', ...ERROR_STRING },
  time: { startDate: 'start_time_us', endDate: 'end_time_us' },
  longString: LONG_STRING,
  int: { 'error.status': 'error.status' },
  json: JSON_FIELDS,
};

const keywordKey = (field: string, nullable: boolean): SortFieldDoc => ({ field, source: field, nullable, time: false });
const timeKey = (field: string, source: string): SortFieldDoc => ({ field, source, nullable: true, time: true });

// Nullability as the PostgreSQL columns (postgresql-filter-sql.ts INSTANCE_SORT_SQL), so keyset positions agree.
export const INSTANCE_SORT: Readonly<Record<SimpleInstanceSortField, SortFieldDoc>> = {
  id: keywordKey('id', false),
  name: keywordKey('name', true),
  namespace: keywordKey('namespace', true),
  version: keywordKey('version', true),
  status: keywordKey('status', false),
  startDate: timeKey('start_time_us', 'start_time'),
  endDate: timeKey('end_time_us', 'end_time'),
  lastUpdate: timeKey('last_update_us', 'last_update'),
};

export const TASK_SORT: Readonly<Record<SimpleTaskSortField, SortFieldDoc>> = {
  id: keywordKey('id', false),
  taskName: keywordKey('task_name', false),
  taskPosition: keywordKey('task_position', false),
  status: keywordKey('status', false),
  startDate: timeKey('start_time_us', 'start_time'),
  endDate: timeKey('end_time_us', 'end_time'),
};

/** The chronological order of an instance's task executions (Reader.tasksOfInstances), behind its instance id. */
export const TASKS_OF_INSTANCE_ORDER: readonly { readonly key: SortFieldDoc; readonly direction: 'ASC' | 'DESC' }[] = [
  { key: keywordKey('instance_id', false), direction: 'ASC' },
  { key: TASK_SORT.startDate, direction: 'ASC' },
  { key: TASK_SORT.endDate, direction: 'ASC' },
  { key: TASK_SORT.id, direction: 'ASC' },
];
