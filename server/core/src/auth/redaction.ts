// Payload fields a subject may not read are null: inputData, outputData and error.detail, of runs and of their tasks,
// and the stored text (`data`) of a run's events.
import type { ErrorRecord, TaskExecutionRecord, WorkflowEventRecord, WorkflowInstanceRecord } from '../reader.js';

export function redactInstance(instance: WorkflowInstanceRecord): WorkflowInstanceRecord {
  return {
    ...instance,
    inputData: null,
    outputData: null,
    error: redactError(instance.error),
    ...(instance.tasks === undefined ? {} : { tasks: instance.tasks.map(redactTask) }),
  };
}

export function redactTask(task: TaskExecutionRecord): TaskExecutionRecord {
  return { ...task, inputData: null, outputData: null, error: redactError(task.error) };
}

function redactError(error: ErrorRecord | null): ErrorRecord | null {
  return error === null ? null : { ...error, detail: null };
}

export function redactEvent(event: WorkflowEventRecord): WorkflowEventRecord {
  return event.data === undefined ? event : { ...event, data: null };
}
