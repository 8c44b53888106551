// The shapes tests compare events and normalized rows in: an event as a producer prints it, and a run's and a task
// execution's row as a PostgreSQL snapshot (the backends' test support) and the oracle (expected-executions.ts) give them.

export type Event = Record<string, unknown>;

export interface InstanceRow {
  id: string; namespace: string | null; name: string | null; version: string | null; status: string;
  start_time: string | null; end_time: string | null; last_update: string | null;
  input: unknown; output: unknown;
  error_type: string | null; error_title: string | null; error_detail: string | null; error_status: number | null; error_instance: string | null;
  placeholder: boolean;
}
export interface TaskRow {
  id: string; instance_id: string; task_position: string; task_name: string; status: string;
  start_time: string | null; end_time: string | null; input: unknown; output: unknown;
  error_type: string | null; error_title: string | null; error_detail: string | null; error_status: number | null; error_instance: string | null;
  execution_index: number;
  /** The run's fields the task row carries (migrations/0011_task_run_fields.sql); absent from an older schema's snapshot. */
  workflow_namespace?: string | null; workflow_name?: string | null; workflow_version?: string | null;
}
