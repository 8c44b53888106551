// A run's event as served (WorkflowEventRecord) from what a backend stores: both backends hand the stored event here,
// so the served fields, the time and the order key are derived by one function and cannot differ between them.
//  - the document is the event without what a forwarder adds (the list PostgreSQL's stored_event_document removes),
//    printed as PostgreSQL's jsonb text: the very text the PostgreSQL event store serves, and what OpenSearch's
//    stored spelling prints as once it is read the way its normalizer reads it (asForwarded);
//  - time: the event's own `timestamp`, read by the normalizer's rule (eventTimeMicros); null when that rule cannot
//    read it (a rejected 'yesterday', an impossible date);
//  - digest: the last part of the order key (event-order.ts): of an accepted event the first 32 hex digits of the
//    sha256 of its text (UTF-8), which PostgreSQL computes itself where it does not send the text (PrintedEventInput);
//    of a rejected one, of the JSON array [text, reason].
import { createHash } from 'node:crypto';
import { eventTimeMicros, jsonbText, type JsonObject, type JsonValue, parseLosslessJson } from '@workflow-index/events';
import { formatMicros } from './date-time.js';
import type { WorkflowEventRecord } from './reader.js';

/** Fields a forwarder adds to a record (write-path.md, "Event identity"): never part of the event. */
export const FORWARDER_FIELDS: readonly string[] = Object.freeze(['wi_record_time', 'kubernetes', 'stream', '_p', 'logtag', 'time', '@timestamp']);

/**
 * An accepted event a backend already holds as the text this module would print (PostgreSQL's jsonb text of a stored
 * document, which holds no forwarder field), with the fields the order needs read from it: the record is then made
 * without parsing the document. The cross-backend tests hold it to the same answers as the parsed path.
 */
export interface PrintedEventInput {
  readonly accepted: true;
  /** The text; may be left out (undefined) when payloads were not asked for, if `digest` is given. */
  readonly text?: string;
  /** acceptedDigest(text), computed by the backend (PostgreSQL: in SQL) when it does not send the text. */
  readonly digest?: string;
  readonly eventType: string | null;
  /** JSON text of the `timestamp` member; null when absent. */
  readonly timestamp: string | null;
  readonly taskPosition: string | null;
  readonly taskName: string | null;
}

export interface StoredEventInput {
  readonly accepted: boolean;
  /** The stored event (accepted: the event store's document; rejected: the raw record), null when it is gone. */
  readonly document: JsonValue | null;
  /** Rejected events: the reason and the event type the normalizer recorded. */
  readonly rejection: string | null;
  readonly eventType: string | null;
}

const stringOr = (value: JsonValue | undefined): string | null => (typeof value === 'string' ? value : null);

function withoutForwarderFields(document: JsonValue): JsonValue {
  if (!(document instanceof Map)) return document;
  const kept: JsonObject = new Map();
  for (const [key, value] of document) if (!FORWARDER_FIELDS.includes(key)) kept.set(key, value);
  return kept;
}

function timeOf(document: JsonObject | null): string | null {
  try {
    const micros = document === null ? undefined : eventTimeMicros(document.get('timestamp'));
    return micros === undefined ? null : formatMicros(BigInt(micros));
  } catch {
    // An impossible date of the right shape: the normalizer rejects the event for it; its time cannot be read.
    return null;
  }
}

/** The task name as the normalizer takes it: `taskName`, else the position's last segment. */
function taskNameOf(document: JsonObject | null, taskPosition: string | null): string | null {
  const name = stringOr(document?.get('taskName'));
  if (name !== null || taskPosition === null) return name;
  return taskPosition.replace(/^.*\//s, '');
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);

/** The digest of an accepted event's text (PostgreSQL: left(encode(sha256(convert_to(text, 'UTF8')), 'hex'), 32)). */
export const acceptedDigest = (text: string): string => sha256(text);

const digestOf = (text: string | null, rejection: string | null): string => (rejection === null && text !== null ? acceptedDigest(text) : sha256(JSON.stringify([text, rejection])));

function printedEventRecord(input: PrintedEventInput, options: { payloads: boolean }): WorkflowEventRecord {
  const timestamp = input.timestamp === null ? null : (new Map([['timestamp', parseLosslessJson(input.timestamp)]]) as JsonObject);
  return {
    type: input.eventType ?? '',
    time: timeOf(timestamp),
    taskPosition: input.taskPosition,
    taskName: input.taskPosition === null ? input.taskName : (input.taskName ?? input.taskPosition.replace(/^.*\//s, '')),
    accepted: true,
    rejection: null,
    ...(options.payloads ? { data: input.text ?? null } : {}),
    digest: input.digest ?? acceptedDigest(input.text ?? ''),
  };
}

export function workflowEventRecord(input: StoredEventInput | PrintedEventInput, options: { payloads: boolean }): WorkflowEventRecord {
  if ('timestamp' in input) return printedEventRecord(input, options);
  const document = input.document === null ? null : withoutForwarderFields(input.document);
  const text = document === null ? null : jsonbText(document);
  const object = document instanceof Map ? document : null;
  const taskPosition = stringOr(object?.get('taskPosition'));
  const type = input.accepted ? (stringOr(object?.get('eventType')) ?? '') : (input.eventType ?? stringOr(object?.get('eventType')) ?? '');
  return {
    type,
    time: timeOf(object),
    taskPosition,
    taskName: taskPosition === null ? stringOr(object?.get('taskName')) : taskNameOf(object, taskPosition),
    accepted: input.accepted,
    rejection: input.accepted ? null : input.rejection,
    ...(options.payloads ? { data: text } : {}),
    digest: digestOf(text, input.accepted ? null : input.rejection),
  };
}

/** The records of many stored events, rejected ones with the same content and reason once (a bad line re-delivered). */
export function distinctEventRecords(inputs: readonly (StoredEventInput | PrintedEventInput)[], options: { payloads: boolean }): WorkflowEventRecord[] {
  const byKey = new Map<string, WorkflowEventRecord>();
  for (const input of inputs) {
    const record = workflowEventRecord(input, options);
    const key = `${record.accepted ? 'a' : 'r'}${record.digest}`;
    if (!byKey.has(key)) byKey.set(key, record);
  }
  return [...byKey.values()];
}
