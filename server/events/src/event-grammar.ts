// The event types the normalizers accept: `[prefix.]<kind>.<action>.v<N>` (Quarkus Flow prints
// io.serverlessworkflow.workflow.started.v1), with the actions of each kind. PostgreSQL's parse_events
// (server/postgresql/normalizer/050-parse-events.sql) holds the same lists in SQL; the cross-backend test
// event-grammar.test.ts gives both normalizers every type of this table and types outside it.
export const WORKFLOW_ACTIONS = ['started', 'completed', 'faulted', 'cancelled', 'suspended', 'resumed', 'status-changed'] as const;
export const TASK_ACTIONS = ['started', 'retried', 'suspended', 'resumed', 'completed', 'faulted', 'cancelled'] as const;

export type WorkflowAction = (typeof WORKFLOW_ACTIONS)[number];
export type TaskAction = (typeof TASK_ACTIONS)[number];
export type EventKind = 'workflow' | 'task';

/** The kind and the action of an eventType, whatever its prefix and version; unknown actions included. */
export const EVENT_TYPE = /(?:^|\.)(workflow|task)\.([a-z-]+)\.v[0-9]+$/;

/** The eventType Quarkus Flow prints for a kind and action. */
export function eventTypeOf(kind: EventKind, action: WorkflowAction | TaskAction): string {
  return `io.serverlessworkflow.${kind}.${action}.v1`;
}

export function isKnownAction(kind: EventKind, action: string): boolean {
  return (kind === 'workflow' ? (WORKFLOW_ACTIONS as readonly string[]) : (TASK_ACTIONS as readonly string[])).includes(action);
}
