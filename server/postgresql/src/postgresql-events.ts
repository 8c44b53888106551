// A run's event history on PostgreSQL (Reader.eventsOfInstances): the accepted events from the event store
// (workflow_index.events: workflow events; workflow_index.task_events: task events, column `document`), each stored
// once per event identity, and the rejected raw events recorded against the run in workflow_index.ingest_errors, with
// the raw row's text while retention keeps it, all through workflow_index.events_of_instances (migration 0016). Each
// list is found by the run id: the stores' primary keys start with it, ingest_errors has an index on it. Core derives
// the served fields and the order (workflowEventRecord, event-order.ts), so this and the OpenSearch reader cannot
// differ there. Accepted events come with the fields the order needs and the digest of their jsonb text, computed in
// SQL, and the text itself only when `data` is selected (PrintedEventInput): the server never parses them.
import { distinctEventRecords, type PrintedEventInput, type StoredEventInput, type WorkflowEventRecord } from '@workflow-index/core';
import { parseLosslessJson } from '@workflow-index/events';

/** One statement for any number of runs: migration 0016's function (the reader role has no SELECT on the stores). */
export const EVENTS_OF_INSTANCES_SQL =
  'SELECT instance_id, accepted, document, digest, event_type, event_timestamp, task_position, task_name, reason FROM workflow_index.events_of_instances($1::text[], $2::boolean)';

export interface EventRow {
  readonly instance_id: string;
  readonly accepted: boolean;
  readonly document: string | null;
  /** Accepted events: acceptedDigest of the document text (computed in SQL; the text comes only with payloads). */
  readonly digest: string | null;
  readonly event_type: string | null;
  readonly event_timestamp: string | null;
  readonly task_position: string | null;
  readonly task_name: string | null;
  readonly reason: string | null;
}

/** An accepted event is its stored document's jsonb text (printed already; sent with payloads only) and its digest; a rejected one its raw text, read whole. */
function inputOf(row: EventRow): StoredEventInput | PrintedEventInput {
  if (row.accepted) {
    const fields = { accepted: true as const, eventType: row.event_type, timestamp: row.event_timestamp, taskPosition: row.task_position, taskName: row.task_name };
    return { ...fields, ...(row.document === null ? {} : { text: row.document }), ...(row.digest === null ? {} : { digest: row.digest }) };
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
