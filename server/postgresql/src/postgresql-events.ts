// A run's event history on PostgreSQL (Reader.eventsOfInstances): the accepted events from the event store
// (workflow_index.events: workflow events; workflow_index.task_events: task events, column `document`), each stored
// once per event identity, and the rejected raw events recorded against the run in workflow_index.ingest_errors, with
// the raw row's text while retention keeps it, all through workflow_index.events_of_instances (migration 0016). Each
// list is found by the run id: the stores' primary keys start with it, ingest_errors has an index on it. Core derives
// the served fields and the order (workflowEventRecord, event-order.ts), so this and the OpenSearch reader cannot
// differ there. Accepted events come as jsonb text with the fields the order needs beside it, so the server does not parse
// them (PrintedEventInput); the text is read whatever `payloads` says: the order key's digest is made from it.
import { distinctEventRecords, type PrintedEventInput, type StoredEventInput, type WorkflowEventRecord } from '@workflow-index/core';
import { parseLosslessJson } from '@workflow-index/events';

/** One statement for any number of runs: migration 0016's function (the reader role has no SELECT on the stores). */
export const EVENTS_OF_INSTANCES_SQL =
  'SELECT instance_id, accepted, document, event_type, event_timestamp, task_position, task_name, reason FROM workflow_index.events_of_instances($1::text[])';

export interface EventRow {
  readonly instance_id: string;
  readonly accepted: boolean;
  readonly document: string | null;
  readonly event_type: string | null;
  readonly event_timestamp: string | null;
  readonly task_position: string | null;
  readonly task_name: string | null;
  readonly reason: string | null;
}

/** An accepted event is its stored document's jsonb text (printed already); a rejected one its raw text, read whole. */
function inputOf(row: EventRow): StoredEventInput | PrintedEventInput {
  if (row.accepted && row.document !== null) {
    return { accepted: true, text: row.document, eventType: row.event_type, timestamp: row.event_timestamp, taskPosition: row.task_position, taskName: row.task_name };
  }
  let document = null;
  if (row.document !== null) {
    try {
      document = parseLosslessJson(row.document);
    } catch {
      // A raw row is json PostgreSQL accepted: every JSON parser reads it. Were it not, the text is served as a string.
      document = row.document;
    }
  }
  return { accepted: row.accepted, document, rejection: row.reason, eventType: row.event_type };
}

/** The rows of EVENTS_OF_INSTANCES_SQL as each requested run's events (every id a key). */
export function eventsByInstance(instanceIds: readonly string[], rows: readonly EventRow[], payloads: boolean): Map<string, WorkflowEventRecord[]> {
  const inputs = new Map<string, (StoredEventInput | PrintedEventInput)[]>(instanceIds.map((id) => [id, []]));
  for (const row of rows) inputs.get(row.instance_id)?.push(inputOf(row));
  return new Map([...inputs].map(([id, list]) => [id, distinctEventRecords(list, { payloads })]));
}
