// Where the filter kinds beyond field conditions and the duration order live in the normalized documents: durations as
// `duration_us` (end − start in whole µs, as PostgreSQL's generated column), the run's definition denormalized into
// each task document (`workflow_*`), and the JSON operators' keyword fields (json-paths.ts).
import type {
  InstanceSortField,
  TaskSortField,
  InstanceStringField,
  JsonField,
} from '@workflow-index/core';
import { INSTANCE_SORT, type SortFieldDoc, TASK_SORT } from '../fields.js';
import type { JsonOperatorFields } from './json-operators.js';

export const DURATION_FIELD = 'duration_us';

const durationKey: SortFieldDoc = { field: DURATION_FIELD, source: DURATION_FIELD, nullable: true, time: false };

export const LOOKUP_INSTANCE_SORT: Readonly<Record<InstanceSortField, SortFieldDoc>> = { ...INSTANCE_SORT, duration: durationKey };
export const LOOKUP_TASK_SORT: Readonly<Record<TaskSortField, SortFieldDoc>> = { ...TASK_SORT, duration: durationKey };

/**
 * The instance fields a task filter may test on its run (`instance` nodes: workflowName / workflowNamespace /
 * workflowVersion), as the task document's copies. Core builds `instance` nodes from these three only.
 */
export const RUN_FIELDS: Readonly<Partial<Record<InstanceStringField, string>>> = {
  name: 'workflow_name',
  namespace: 'workflow_namespace',
  version: 'workflow_version',
};

export const JSON_OPERATOR_FIELDS: Readonly<Record<JsonField, JsonOperatorFields>> = {
  input: { leaves: 'input_leaves', leavesComplete: 'input_leaves_complete', paths: 'input_paths', numbers: 'input_numbers', pathsComplete: 'input_paths_complete', text: 'input_json' },
  output: { leaves: 'output_leaves', leavesComplete: 'output_leaves_complete', paths: 'output_paths', numbers: 'output_numbers', pathsComplete: 'output_paths_complete', text: 'output_json' },
};
