// The normalized document of one workflow instance in the `workflow-instances` index (`_id` = instance id). Times
// are epoch microseconds (`long`: exact, sortable, range-filterable) with the served ISO text beside them; payloads
// are kept twice: as the object (for readers that want to look inside) and as PostgreSQL's jsonb text (what the
// GraphQL API serves, exact to the digit). `placeholder` marks an instance whose workflow.started has not arrived:
// stored, never served.

export interface ErrorFields {
  readonly type: string | null;
  readonly title: string | null;
  readonly detail: string | null;
  readonly status: number | null;
  readonly instance: string | null;
  /** Only when the detail is beyond the keyword limit (long-detail.ts): the mark, the indexed head and chunks. */
  readonly detail_long?: true;
  readonly detail_head?: string;
  readonly detail_chunks?: readonly string[];
}

/** The payload fields both document kinds carry (normalize-instance.ts payloadFields, normalized-indices.ts
 * payloadProperties): the stored object and its jsonb text, and what the reader matches JSON filters on. */
export interface PayloadFields {
  readonly input: unknown;
  /** jsonb text of the input; null when absent or JSON null. */
  readonly input_json: string | null;
  readonly output: unknown;
  readonly output_json: string | null;
  /** Payload leaves for JSON filters (json-leaves.ts); `*_leaves_complete` false when capped. */
  readonly input_leaves: readonly string[];
  readonly input_leaves_complete: boolean;
  readonly output_leaves: readonly string[];
  readonly output_leaves_complete: boolean;
  /** Paths present and sortable number entries for the JSON operators beyond eq (json-paths.ts); false when capped. */
  readonly input_paths: readonly string[];
  readonly input_numbers: readonly string[];
  readonly input_paths_complete: boolean;
  readonly output_paths: readonly string[];
  readonly output_numbers: readonly string[];
  readonly output_paths_complete: boolean;
}

export interface WorkflowInstanceDocument extends PayloadFields {
  readonly id: string;
  readonly name: string | null;
  readonly namespace: string | null;
  readonly version: string | null;
  /** RUNNING | COMPLETED | FAULTED | CANCELLED | SUSPENDED */
  readonly status: string;
  readonly start_time_us: number | null;
  readonly end_time_us: number | null;
  readonly last_update_us: number | null;
  /** end − start in microseconds (PostgreSQL's duration_us); null while either is missing. */
  readonly duration_us: number | null;
  /** `YYYY-MM-DDTHH:MM:SS.ffffffZ`, as served. */
  readonly start_time: string | null;
  readonly end_time: string | null;
  readonly last_update: string | null;
  /** null when the instance has no error. */
  readonly error: ErrorFields | null;
  readonly placeholder: boolean;
  /** The distinct `<status>/<task name>` of its task executions (task-states.ts), for the `taskExecutions` filters
   * on status and name in one search; `task_states_complete` false when capped. Absent on documents written before
   * they existed. */
  readonly task_states?: readonly string[];
  readonly task_states_complete?: boolean;
}
