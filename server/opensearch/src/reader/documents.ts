// Normalized documents (workflow-instance-document.ts, task-execution-document.ts) as Reader records. Times are served
// from the stored ISO text (six fractional digits, as PostgreSQL's to_char), payloads from the stored jsonb text,
// so both backends serve the same characters.
import type { ErrorRecord, TaskExecutionRecord, WorkflowInstanceRecord, WorkflowInstanceStatus } from '@workflow-index/core';

const ERROR_SOURCE = ['error.type', 'error.title', 'error.detail', 'error.status', 'error.instance'];
const PAYLOAD_SOURCE = ['input_json', 'output_json'];

/** `_source` includes of an instance record; without payloads nothing of them is read. */
export function instanceSource(payloads: boolean): string[] {
  return ['id', 'name', 'namespace', 'version', 'status', 'start_time', 'end_time', 'last_update', ...ERROR_SOURCE, ...(payloads ? PAYLOAD_SOURCE : [])];
}

export function taskSource(payloads: boolean): string[] {
  return ['id', 'instance_id', 'task_name', 'task_position', 'status', 'start_time', 'end_time', ...ERROR_SOURCE, ...(payloads ? PAYLOAD_SOURCE : [])];
}

type Source = Readonly<Record<string, unknown>>;

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function errorOf(source: Source): ErrorRecord | null {
  const e = source['error'];
  if (e === null || typeof e !== 'object') return null;
  const x = e as Source;
  const record: ErrorRecord = {
    type: text(x['type']),
    title: text(x['title']),
    detail: text(x['detail']),
    status: typeof x['status'] === 'number' ? x['status'] : null,
    instance: text(x['instance']),
  };
  return Object.values(record).every((v) => v === null) ? null : record;
}

function payloadsOf(source: Source): { inputData: string | null; outputData: string | null } {
  return { inputData: text(source['input_json']), outputData: text(source['output_json']) };
}

export function toInstance(source: Source, payloads: boolean): WorkflowInstanceRecord {
  return {
    id: String(source['id']),
    name: text(source['name']) ?? '',
    namespace: text(source['namespace']),
    version: text(source['version']),
    status: String(source['status']) as WorkflowInstanceStatus,
    startDate: text(source['start_time']),
    endDate: text(source['end_time']),
    lastUpdate: text(source['last_update']),
    ...(payloads ? payloadsOf(source) : {}),
    error: errorOf(source),
  };
}

export function toTask(source: Source, payloads: boolean): TaskExecutionRecord {
  return {
    id: String(source['id']),
    workflowInstanceId: String(source['instance_id']),
    taskName: String(source['task_name']),
    taskPosition: String(source['task_position']),
    status: String(source['status']),
    startDate: text(source['start_time']),
    endDate: text(source['end_time']),
    ...(payloads ? payloadsOf(source) : {}),
    error: errorOf(source),
  };
}
