// One raw event (its `_source`) to everything the normalization reads, or the reason it is rejected: the rules of
// PostgreSQL's parse_events (050-parse-events.sql), check for check and in the same order, so an event is accepted
// by one backend exactly when it is accepted by the other. Never throws on content.
import { formatFluentBitDouble } from '@workflow-index/events';
import { jsonTextProblem } from '@workflow-index/events';
import { ImpossibleDateError, eventTimeMicros } from '@workflow-index/events';
import { canonicalJson, taskEventContentHash } from '@workflow-index/events';
import { jsonbText, numericText } from '@workflow-index/events';
import { JsonNumber, type JsonObject, type JsonValue, jsonTypeOf } from '@workflow-index/events';
import { EVENT_TYPE, type EventKind, isKnownAction, type TaskAction, type WorkflowAction } from '@workflow-index/events';

export type { TaskAction, WorkflowAction } from '@workflow-index/events';

export interface EventError {
  readonly type: string | null;
  readonly title: string | null;
  readonly detail: string | null;
  readonly status: number | null;
  readonly instance: string | null;
}

export interface WorkflowEvent {
  readonly kind: 'workflow';
  readonly instanceId: string;
  readonly action: WorkflowAction;
  readonly ts: number;
  readonly namespace: string | null;
  readonly name: string | null;
  readonly version: string | null;
  readonly status: string;
  readonly terminal: boolean;
  readonly rank: number;
  /** started only: coalesce(startTime, timestamp). */
  readonly startTime: number | null;
  /** coalesce(endTime, timestamp). */
  readonly endTime: number;
  /** 2: workflow.started with an input key, 1: workflow.faulted with one, 0: none. */
  readonly inputRank: number;
  readonly input: JsonValue;
  readonly hasOutput: boolean;
  readonly output: JsonValue;
  readonly error: EventError | null;
}

export interface TaskEvent {
  readonly kind: 'task';
  readonly instanceId: string;
  readonly action: TaskAction;
  readonly ts: number;
  readonly taskPosition: string;
  readonly taskName: string;
  readonly status: string | null;
  readonly atTime: number;
  readonly input: JsonValue;
  readonly hasOutput: boolean;
  readonly output: JsonValue;
  readonly error: EventError | null;
  readonly contentHash: bigint;
}

export type ParsedEvent = WorkflowEvent | TaskEvent;

export type ParseResult =
  | { readonly ok: true; readonly event: ParsedEvent }
  | { readonly ok: false; readonly reason: string; readonly instanceId: string | null; readonly eventType: string | null };


// U+0000 and lone surrogates: PostgreSQL's text cannot hold them, and its json_array_elements repairs their escapes
// to U+FFFD before anything reads the record (the line-repair rule); OpenSearch keeps them, so they are repaired here.
// eslint-disable-next-line no-control-regex -- the NUL character is what this finds
const UNREPRESENTABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function repairText(s: string): string {
  UNREPRESENTABLE.lastIndex = 0;
  return UNREPRESENTABLE.test(s) ? s.replace(UNREPRESENTABLE, '\ufffd') : s;
}

/**
 * The event as PostgreSQL holds it after Fluent Bit: OpenSearch re-serializes `_source` (a double as Java's shortest
 * form, `1.0E21`), while PostgreSQL receives Fluent Bit's print of the same double (`%.1f` when integral, else
 * `%.16g`). Every number token with a fraction or exponent is a double Fluent Bit printed, so it is printed that way
 * again; integers stay digits.
 */
export function asForwarded(v: JsonValue): JsonValue {
  if (typeof v === 'string') return repairText(v);
  if (v instanceof JsonNumber) {
    return /[.eE]/.test(v.text) ? new JsonNumber(formatFluentBitDouble(v.toDouble())) : v;
  }
  if (Array.isArray(v)) return v.map(asForwarded);
  if (v instanceof Map) {
    const out: JsonObject = new Map();
    for (const [k, x] of v) out.set(repairText(k), asForwarded(x));
    return out;
  }
  return v;
}

function utf8Length(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** `#>> '{}'` / `->>`: a string's value, any other value's jsonb text, SQL NULL for JSON null or absence. */
function textOf(v: JsonValue | undefined): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  return jsonbText(v);
}

function left(s: string, n: number): string {
  return [...s].slice(0, n).join('');
}

function valueProblem(v: JsonValue | undefined, key: string, maxLen: number, required: boolean): string | undefined {
  if (v === undefined || v === null) return required ? `missing ${key}` : undefined;
  if (typeof v !== 'string') return `${key} must be a string, got ${jsonTypeOf(v)}`;
  if (required && v === '') return `${key} must not be empty`;
  if (utf8Length(v) > maxLen) return `${key} is longer than ${maxLen} bytes`;
  return undefined;
}

function timeValueProblem(v: JsonValue | undefined, t: number | undefined, key: string): string | undefined {
  return v !== undefined && v !== null && t === undefined ? `${key} ${left(jsonbText(v), 64)} is not a valid time` : undefined;
}

function integerOrNull(v: JsonValue | undefined): number | null {
  if (!(v instanceof JsonNumber) && typeof v !== 'string') return null;
  const text = typeof v === 'string' ? v : numericText(v.text);
  return /^-?[0-9]{1,9}$/.test(text) ? Number(text) : null;
}

function errorObjectProblem(e: JsonValue | undefined): string | undefined {
  if (e === undefined || e === null) return undefined;
  if (!(e instanceof Map)) return `error must be an object, got ${jsonTypeOf(e)}`;
  for (const key of ['type', 'title', 'instance']) {
    const p = valueProblem(e.get(key), key, 8192, false);
    if (p !== undefined) return `error.${p}`;
  }
  const detail = e.get('detail');
  if (detail !== undefined && detail !== null && typeof detail !== 'string') return `error.detail must be a string, got ${jsonTypeOf(detail)}`;
  const status = e.get('status');
  if (status !== undefined && status !== null && integerOrNull(status) === null) return `error.status must be an integer, got ${left(jsonbText(status), 64)}`;
  return undefined;
}

export function normalizeWorkflowStatus(s: string): string {
  switch (s.toUpperCase()) {
    case 'COMPLETED': return 'COMPLETED';
    case 'FAULTED': case 'FAILED': return 'FAULTED';
    case 'CANCELLED': case 'CANCELED': return 'CANCELLED';
    case 'SUSPENDED': return 'SUSPENDED';
    default: return 'RUNNING';
  }
}

export function statusRank(s: string): number {
  switch (s) {
    case 'FAULTED': return 5;
    case 'CANCELLED': return 4;
    case 'COMPLETED': return 3;
    case 'SUSPENDED': return 2;
    default: return 1;
  }
}

function readError(e: JsonValue | undefined): EventError {
  const o = e as JsonObject;
  return {
    type: textOf(o.get('type')),
    title: textOf(o.get('title')),
    detail: textOf(o.get('detail')),
    status: integerOrNull(o.get('status')),
    instance: textOf(o.get('instance')),
  };
}

function nullIfNull(v: JsonValue | undefined): JsonValue {
  return v === undefined ? null : v;
}

/**
 * The reason for a record without an eventType (unparsed_record_problem, 042-json-text-fault.sql): Fluent Bit's
 * record of a line its parser refused keeps the line under `log`, and is recorded with that text's fault; anything
 * else is `missing eventType`. (PostgreSQL's other such record, the marker its statement reader hands over for an
 * element it cannot parse, never reaches OpenSearch: a document always holds the time key and `wi` besides.)
 */
function unparsedRecordProblem(d: JsonObject): string {
  const truncated = d.get('wi_join_truncated');
  if (typeof truncated === 'string') return `line of ${truncated} bytes is longer than the forwarder's 8388608-byte limit: its text up to the limit is kept, the event is not read`;
  const orphan = d.get('wi_join_orphan');
  if (typeof orphan === 'string') return `the last ${orphan} bytes of a line whose beginning was lost (held by the forwarder when it stopped)`;
  const log = d.get('log');
  return (typeof log === 'string' ? jsonTextProblem(log) : undefined) ?? 'missing eventType';
}

/** unparsed_instance_id: the plain `"instanceId":"…"` a record's `log` text names (null when none). */
function unparsedInstanceId(d: JsonObject): string | null {
  const log = d.get('log');
  return typeof log === 'string' ? (/"instanceId"[ \t\n\r]*:[ \t\n\r]*"([^"\\]{1,255})"/.exec(log)?.[1] ?? null) : null;
}

/** Parses one raw event's `_source` (as OpenSearch returns it) by PostgreSQL's rules. */
export function parseRawEvent(source: JsonValue): ParseResult {
  const d = asForwarded(source);
  if (!(d instanceof Map)) return { ok: false, reason: `event is not a JSON object (got ${jsonTypeOf(d)})`, instanceId: null, eventType: null };
  const jEt = d.get('eventType');
  const jIid = d.get('instanceId');
  const et = typeof jEt === 'string' ? jEt : null;
  const iid = textOf(jIid) ?? (jEt === undefined || jEt === null ? unparsedInstanceId(d) : null);
  const reject = (reason: string): ParseResult => ({ ok: false, reason, instanceId: iid === null ? null : left(iid, 255), eventType: et === null ? null : left(et, 255) });
  const m = et === null ? null : EVENT_TYPE.exec(et);
  const kind = m?.[1] as EventKind | undefined;
  const action = m?.[2];
  let ts: number | undefined;
  let tStart: number | undefined;
  let tEnd: number | undefined;
  let tLast: number | undefined;
  const jTs = d.get('timestamp');
  const jStart = d.get('startTime');
  const jEnd = d.get('endTime');
  const jLast = d.get('lastUpdateTime');
  try {
    ts = eventTimeMicros(jTs);
    tStart = eventTimeMicros(jStart);
    tEnd = eventTimeMicros(jEnd);
    tLast = eventTimeMicros(jLast);
  } catch (error) {
    if (error instanceof ImpossibleDateError) return reject(`normalizer error 22008: ${error.message}`);
    throw error;
  }
  const problem =
    (jEt === undefined || jEt === null ? unparsedRecordProblem(d) : undefined) ??
    valueProblem(jEt, 'eventType', 512, true) ??
    (kind === undefined ? `unknown eventType ${left(et ?? '', 200)}` : undefined) ??
    valueProblem(jIid, 'instanceId', 255, true) ??
    (jTs === undefined || jTs === null ? 'missing timestamp' : undefined) ??
    (ts === undefined ? `timestamp ${left(jsonbText(jTs!), 64)} is not a valid time` : undefined) ??
    (kind !== undefined && !isKnownAction(kind, action!) ? `unknown eventType ${left(et ?? '', 200)}` : undefined) ??
    (kind === 'workflow'
      ? (action === 'started'
          ? valueProblem(d.get('workflowName'), 'workflowName', 512, true) ??
            valueProblem(d.get('workflowNamespace'), 'workflowNamespace', 512, false) ??
            valueProblem(d.get('workflowVersion'), 'workflowVersion', 256, false) ??
            timeValueProblem(jStart, tStart, 'startTime')
          : undefined) ??
        timeValueProblem(jEnd, tEnd, 'endTime') ??
        timeValueProblem(jLast, tLast, 'lastUpdateTime') ??
        valueProblem(d.get('status'), 'status', 64, action === 'status-changed') ??
        (action === 'faulted' ? errorObjectProblem(d.get('error')) : undefined)
      : valueProblem(d.get('taskPosition'), 'taskPosition', 1024, true) ??
        valueProblem(d.get('taskName'), 'taskName', 512, false) ??
        (iid!.includes(':') ? "instanceId contains ':', which would make task execution ids (<instanceId>:<taskPosition>) ambiguous" : undefined) ??
        valueProblem(d.get('status'), 'status', 64, false) ??
        (action === 'started' ? timeValueProblem(jStart, tStart, 'startTime') : undefined) ??
        (action === 'completed' || action === 'faulted' || action === 'cancelled' ? timeValueProblem(jEnd, tEnd, 'endTime') : undefined) ??
        // A completed or cancelled task's error object is served too (hasError below): the same bounds as a fault's.
        (action === 'faulted' || ((action === 'completed' || action === 'cancelled') && d.get('error') instanceof Map) ? errorObjectProblem(d.get('error')) : undefined));
  if (problem !== undefined) return reject(problem);

  const instanceId = iid!;
  const eventTs = ts!;
  const jStatus = d.get('status');
  const jError = d.get('error');
  const hasError = (action === 'faulted' || action === 'completed' || action === 'cancelled') && jError instanceof Map && (kind === 'task' || action === 'faulted');
  const error = hasError ? readError(jError) : null;
  const hasOutput = action === 'completed' && d.has('output');
  // Payloads as delivered (served so); only the identity reads their numbers canonically (045-event-identity.sql).
  const jInput = d.get('input');
  const jOutput = d.get('output');
  const output = action === 'completed' ? nullIfNull(jOutput) : null;
  const input = action === 'started' || action === 'faulted' ? nullIfNull(jInput) : null;
  if (kind === 'workflow') {
    const defaultStatus = action === 'completed' ? 'COMPLETED' : action === 'faulted' ? 'FAULTED' : action === 'cancelled' ? 'CANCELLED' : action === 'suspended' ? 'SUSPENDED' : 'RUNNING';
    const status = normalizeWorkflowStatus(typeof jStatus === 'string' ? jStatus : defaultStatus);
    const started = action === 'started';
    return {
      ok: true,
      event: {
        kind,
        instanceId,
        action: action as WorkflowAction,
        ts: eventTs,
        namespace: started ? textOf(d.get('workflowNamespace')) : null,
        name: started ? textOf(d.get('workflowName')) : null,
        version: started ? textOf(d.get('workflowVersion')) : null,
        status,
        terminal: status === 'COMPLETED' || status === 'FAULTED' || status === 'CANCELLED',
        rank: statusRank(status),
        startTime: started ? tStart ?? eventTs : null,
        endTime: tEnd ?? eventTs,
        inputRank: d.has('input') && (action === 'started' || action === 'faulted') ? (started ? 2 : 1) : 0,
        input,
        hasOutput,
        output,
        error,
      },
    };
  }
  const taskPosition = d.get('taskPosition') as string;
  const taskName = textOf(d.get('taskName')) ?? taskPosition.replace(/^.*\//s, '');
  const status = textOf(jStatus);
  const atTime = (action === 'started' ? tStart : action === 'completed' || action === 'faulted' || action === 'cancelled' ? tEnd : undefined) ?? eventTs;
  return {
    ok: true,
    event: {
      kind: 'task',
      instanceId,
      action: action as TaskAction,
      ts: eventTs,
      taskPosition,
      taskName,
      status,
      atTime,
      input,
      hasOutput,
      output,
      error,
      contentHash: taskEventContentHash({
        taskName,
        status: status ?? undefined,
        inputText: jInput === undefined ? undefined : jsonbText(canonicalJson(jInput)),
        outputText: jOutput === undefined ? undefined : jsonbText(canonicalJson(jOutput)),
        errorText: jError === undefined ? undefined : jsonbText(jError),
      }),
    },
  };
}
