// The normalized document of one task execution in the `task-executions` index (`_id` = the execution id:
// `<instanceId>:<taskPosition>`, `…@<start µs>` for later executions at the position, `#<n>` when two start in the
// same microsecond; `%` and `@` of the position escaped, execution-ids.ts). Flat, one document per execution: plain queries, sorts and paging. `placeholder` repeats the
// instance's flag so a reader excludes executions of unserved instances without a join.
import type { ErrorFields, PayloadFields } from './workflow-instance-document.js';

export interface TaskExecutionDocument extends PayloadFields {
  readonly id: string;
  readonly instance_id: string;
  /** The run's name, namespace and version (its instance document's), for task filters on the run. */
  readonly workflow_name: string | null;
  readonly workflow_namespace: string | null;
  readonly workflow_version: string | null;
  readonly task_position: string;
  readonly task_name: string;
  /** RUNNING | COMPLETED | FAULTED | CANCELLED | SUSPENDED */
  readonly status: string;
  readonly start_time_us: number | null;
  readonly end_time_us: number | null;
  /** end − start in microseconds (PostgreSQL's duration_us); null while either is missing. */
  readonly duration_us: number | null;
  readonly start_time: string | null;
  readonly end_time: string | null;
  readonly error: ErrorFields | null;
  /** 1 for the chronologically first execution at its position, 2… for the others. */
  readonly execution_index: number;
  readonly placeholder: boolean;
}
