// The normalized documents of a test namespace in a shape both backends can be read into (the cross-backend tests read
// PostgreSQL's rows into it too), so they compare field by field.
import type { Client } from '@opensearch-project/opensearch';
import type { NormalizedIndexNames } from '../../src/normalized-indices.js';
import type { TaskExecutionDocument } from '../../src/task-execution-document.js';
import type { WorkflowInstanceDocument } from '../../src/workflow-instance-document.js';

export interface ComparableInstance {
  id: string; name: string | null; namespace: string | null; version: string | null; status: string;
  start_time: string | null; end_time: string | null; last_update: string | null;
  input_json: string | null; output_json: string | null;
  error: { type: string | null; title: string | null; detail: string | null; status: number | null; instance: string | null } | null;
  placeholder: boolean;
}
export interface ComparableExecution {
  id: string; instance_id: string; task_position: string; task_name: string; status: string;
  start_time: string | null; end_time: string | null; input_json: string | null; output_json: string | null;
  error: ComparableInstance['error']; execution_index: number; placeholder: boolean;
}
export interface ComparableState {
  instances: ComparableInstance[];
  executions: ComparableExecution[];
  ingestErrors: number;
  /** The reasons, sorted by code point. */
  ingestErrorReasons: string[];
}

async function all<T>(client: Client, index: string): Promise<T[]> {
  await client.transport.request({ method: 'POST', path: `/${index}/_refresh` });
  // Superseded execution markers (normalizer-recompute.ts) are no documents of the normalization's result.
  const query = { bool: { must_not: [{ term: { superseded: true } }] } };
  const response = await client.transport.request({ method: 'POST', path: `/${index}/_search`, body: { size: 10000, query, sort: [{ id: 'asc' }] } });
  return (response.body as { hits: { hits: { _source: T }[] } }).hits.hits.map((h) => h._source);
}

const byCodePoint = (a: { id: string }, b: { id: string }): number => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));

export async function openSearchState(client: Client, names: NormalizedIndexNames): Promise<ComparableState> {
  const instances = await all<WorkflowInstanceDocument>(client, names.workflowInstances);
  const executions = await all<TaskExecutionDocument>(client, names.taskExecutions);
  await client.transport.request({ method: 'POST', path: `/${names.ingestErrors}/_refresh` });
  const errors = await client.transport.request({ method: 'POST', path: `/${names.ingestErrors}/_search`, body: { size: 10000, _source: ['reason'] } });
  const reasons = (errors.body as { hits: { hits: { _source: { reason: string } }[] } }).hits.hits.map((h) => h._source.reason);
  return {
    instances: instances
      .map((d): ComparableInstance => ({
        id: d.id, name: d.name, namespace: d.namespace, version: d.version, status: d.status,
        start_time: d.start_time, end_time: d.end_time, last_update: d.last_update,
        input_json: d.input_json, output_json: d.output_json, error: d.error, placeholder: d.placeholder,
      }))
      .sort(byCodePoint),
    executions: executions
      .map((d): ComparableExecution => ({
        id: d.id, instance_id: d.instance_id, task_position: d.task_position, task_name: d.task_name, status: d.status,
        start_time: d.start_time, end_time: d.end_time, input_json: d.input_json, output_json: d.output_json,
        error: d.error, execution_index: d.execution_index, placeholder: d.placeholder,
      }))
      .sort(byCodePoint),
    ingestErrors: reasons.length,
    ingestErrorReasons: reasons.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
  };
}
