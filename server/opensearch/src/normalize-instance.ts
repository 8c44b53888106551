// The normalized documents of one instance as a pure function of its accepted events: the same rules, tie-breaks
// and ids as the PostgreSQL normalizer (080-apply-events.sql for the instance, 070-task-executions.sql and
// 045-event-identity.sql for the executions), recomputed from the whole event set, so any arrival order and any
// re-delivery give the same documents.
import { microsToIso } from '@workflow-index/events';
import { executionIdBase } from './execution-ids.js';
import { compareJsonb } from '@workflow-index/events';
import { jsonbText } from '@workflow-index/events';
import { jsonLeaves } from './json-leaves.js';
import { jsonPathEntries } from './json-paths.js';
import { longDetailFields } from './long-detail.js';
import { type JsonValue, toPlainJson } from '@workflow-index/events';
import type { EventError, ParsedEvent, TaskEvent, WorkflowEvent } from './raw-event-parse.js';
import type { TaskExecutionDocument } from './task-execution-document.js';
import type { ErrorFields, PayloadFields, WorkflowInstanceDocument } from './workflow-instance-document.js';
import { taskStates } from './task-states.js';

export interface NormalizedInstance {
  readonly instance: WorkflowInstanceDocument;
  readonly executions: readonly TaskExecutionDocument[];
}

/** Code-point order (PostgreSQL COLLATE "C", and the databases' C.UTF-8 default). */
function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function cmp(a: number | bigint | boolean, b: number | bigint | boolean): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The greatest element under `compare` (first of equals). */
function greatest<T>(items: readonly T[], compare: (a: T, b: T) => number): T | undefined {
  let best: T | undefined;
  for (const item of items) if (best === undefined || compare(item, best) > 0) best = item;
  return best;
}

function payload(v: JsonValue) {
  if (v === null) return { value: null, json: null, leaves: [], complete: true, paths: [], numbers: [], pathsComplete: true };
  const entries = jsonPathEntries(v);
  return { value: toPlainJson(v), json: jsonbText(v), ...jsonLeaves(v), paths: entries.paths, numbers: entries.numbers, pathsComplete: entries.complete };
}

/** The payload fields both document kinds carry: each payload as object, as jsonb text, and as leaves. */
function payloadFields(input: JsonValue, output: JsonValue): PayloadFields {
  const i = payload(input);
  const o = payload(output);
  return {
    input: i.value,
    input_json: i.json,
    output: o.value,
    output_json: o.json,
    input_leaves: i.leaves,
    input_leaves_complete: i.complete,
    output_leaves: o.leaves,
    output_leaves_complete: o.complete,
    input_paths: i.paths,
    input_numbers: i.numbers,
    input_paths_complete: i.pathsComplete,
    output_paths: o.paths,
    output_numbers: o.numbers,
    output_paths_complete: o.pathsComplete,
  };
}

/** end − start in whole microseconds (PostgreSQL's generated duration_us); null while either is missing. */
const duration = (start: number | null, end: number | null): number | null => (start === null || end === null ? null : end - start);

function errorFields(e: EventError | null): ErrorFields | null {
  return e === null ? null : { type: e.type, title: e.title, detail: e.detail, status: e.status, instance: e.instance, ...longDetailFields(e.detail) };
}

const iso = (us: number | null): string | null => (us === null ? null : microsToIso(us));

function mergeInstance(instanceId: string, events: readonly WorkflowEvent[]): WorkflowInstanceDocument {
  // identity and start: the earliest workflow.started (ties by its content)
  const started = events.filter((e) => e.action === 'started');
  const first = greatest(started, (a, b) =>
    -(cmp(a.ts, b.ts) || compareText(a.namespace ?? '', b.namespace ?? '') || compareText(a.name ?? '', b.name ?? '') ||
      compareText(a.version ?? '', b.version ?? '') || cmp(a.startTime ?? 0, b.startTime ?? 0)));
  // status: the newest terminal event if any, else the newest event
  const statusEvent = greatest(events, (a, b) =>
    cmp(a.terminal, b.terminal) || cmp(a.ts, b.ts) || cmp(a.rank, b.rank) ||
    cmp(a.terminal ? a.endTime : -Infinity, b.terminal ? b.endTime : -Infinity));
  const lastUpdate = events.length === 0 ? null : Math.max(...events.map((e) => e.ts));
  // input: workflow.started's, else workflow.faulted's (newest)
  const inputEvent = greatest(events.filter((e) => e.inputRank > 0), (a, b) => cmp(a.inputRank, b.inputRank) || cmp(a.ts, b.ts) || compareJsonb(a.input, b.input));
  const outputEvent = greatest(events.filter((e) => e.hasOutput), (a, b) => cmp(a.ts, b.ts) || compareJsonb(a.output, b.output));
  const errorEvent = greatest(events.filter((e) => e.error !== null), (a, b) => {
    const x = a.error!;
    const y = b.error!;
    return cmp(a.ts, b.ts) || compareText(x.type ?? '', y.type ?? '') || compareText(x.title ?? '', y.title ?? '') ||
      compareText(x.detail ?? '', y.detail ?? '') || cmp(x.status ?? -1, y.status ?? -1) || compareText(x.instance ?? '', y.instance ?? '');
  });
  const status = statusEvent?.status ?? 'RUNNING';
  const endTime = statusEvent?.terminal ? statusEvent.endTime : null;
  const startTime = first?.startTime ?? null;
  return {
    id: instanceId,
    name: first?.name ?? null,
    namespace: first?.namespace ?? null,
    version: first?.version ?? null,
    status,
    start_time_us: startTime,
    end_time_us: endTime,
    last_update_us: lastUpdate,
    duration_us: duration(startTime, endTime),
    start_time: iso(startTime),
    end_time: iso(endTime),
    last_update: iso(lastUpdate),
    ...payloadFields(inputEvent?.input ?? null, outputEvent?.output ?? null),
    error: errorFields(errorEvent?.error ?? null),
    placeholder: first === undefined,
  };
}

const OPENING = new Set(['started', 'retried']);
const CLOSING = new Set(['completed', 'faulted', 'cancelled']);
const delta = (e: TaskEvent): number => (OPENING.has(e.action) ? 1 : CLOSING.has(e.action) ? -1 : 0);

/** A task event's identity within its instance and position (time, kind, content hash; 045-event-identity.sql). */
export function taskEventKey(e: TaskEvent): string {
  return `${e.ts}\u0000${e.action}\u0000${e.contentHash}`;
}

/** One event per identity (time, kind, content hash), the first given: the event store holds one delivery per
 * identity already (its first, event-store.ts); this only folds events the rules of an earlier release told apart. */
export function distinctTaskEvents(events: readonly TaskEvent[]): TaskEvent[] {
  const byIdentity = new Map<string, TaskEvent>();
  for (const e of events) {
    const key = taskEventKey(e);
    if (!byIdentity.has(key)) byIdentity.set(key, e);
  }
  return [...byIdentity.values()];
}

function taskEndStatus(status: string | null, kind: string): string {
  const s = status?.toUpperCase();
  if (s === 'FAILED' || s === 'FAULTED') return 'FAULTED';
  if (s === 'CANCELLED' || s === 'CANCELED') return 'CANCELLED';
  if (s === 'COMPLETED') return 'COMPLETED';
  return kind === 'faulted' ? 'FAULTED' : kind === 'cancelled' ? 'CANCELLED' : 'COMPLETED';
}

interface Execution {
  firstSeq: number;
  taskName: string;
  start: number | null;
  end: number | null;
  open?: TaskEvent;
  close?: TaskEvent;
  lastPause?: TaskEvent;
}

const byKindThenHash = (a: TaskEvent, b: TaskEvent): number => compareText(a.action, b.action) || cmp(a.contentHash, b.contentHash);

/** The executions at one position: the chronological sweep with the tie rule of 070-task-executions.sql. */
function positionExecutions(events: readonly TaskEvent[]): Execution[] {
  const sorted = [...events].sort((a, b) => a.ts - b.ts);
  // 1. Sequence: instant by instant; at an instant with b executions already open, min(b, closings) closings first
  //    (by kind, hash), then openings, then pauses, then the remaining closings.
  const seq: TaskEvent[] = [];
  let balance = 0; // running opens minus closes after each instant
  let minBalance = 0; // over the instants so far (the clamp)
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j]!.ts === sorted[i]!.ts) j++;
    const instant = sorted.slice(i, j);
    const openBefore = balance - Math.min(0, minBalance);
    const closings = instant.filter((e) => delta(e) === -1).sort(byKindThenHash);
    const early = closings.slice(0, Math.max(0, openBefore));
    const late = closings.slice(Math.max(0, openBefore));
    seq.push(...early, ...instant.filter((e) => delta(e) === 1).sort(byKindThenHash), ...instant.filter((e) => delta(e) === 0).sort(byKindThenHash), ...late);
    balance += instant.reduce((s, e) => s + delta(e), 0);
    minBalance = Math.min(minBalance, balance);
    i = j;
  }
  // 2. Bracket matching with the clamped running balance: a close (or pause) at level L belongs to the latest open
  //    that left the balance at L; with nothing open a close is an execution of its own.
  const groups = new Map<number, Execution>();
  const latestOpenAtLevel = new Map<number, number>();
  let s = 0;
  let minS = 0;
  let bBefore = 0;
  seq.forEach((e, index) => {
    const n = index + 1;
    const d = delta(e);
    s += d;
    minS = Math.min(minS, s);
    const bAfter = s - Math.min(0, minS);
    let openSeq: number | undefined;
    if (d === 1) {
      openSeq = n;
      latestOpenAtLevel.set(bAfter, n);
    } else if (bBefore > 0) {
      openSeq = latestOpenAtLevel.get(bBefore);
    }
    bBefore = bAfter;
    if (openSeq === undefined && d !== -1) return; // a pause with nothing open changes nothing
    const key = openSeq ?? -n;
    let g = groups.get(key);
    if (g === undefined) {
      g = { firstSeq: n, taskName: e.taskName, start: null, end: null };
      groups.set(key, g);
    }
    if (d === 1) {
      g.open = e;
      g.start = g.start === null ? e.atTime : Math.min(g.start, e.atTime);
    } else if (d === -1) {
      g.close = e;
      g.end = g.end === null ? e.atTime : Math.min(g.end, e.atTime);
    } else {
      g.lastPause = e;
    }
  });
  return [...groups.values()].sort((a, b) => a.firstSeq - b.firstSeq);
}

function executionDocuments(instance: WorkflowInstanceDocument, taskPosition: string, executions: readonly Execution[]): TaskExecutionDocument[] {
  const instanceId = instance.id;
  const base = executionIdBase(instanceId, taskPosition);
  const seenAt = new Map<number, number>();
  return executions.map((x, i) => {
    const executionIndex = i + 1;
    const at = x.start ?? x.end ?? 0;
    const dup = (seenAt.get(at) ?? 0) + 1;
    seenAt.set(at, dup);
    const id = executionIndex === 1 ? base : `${base}@${at}${dup > 1 ? `#${executionIndex}` : ''}`;
    const close = x.close;
    const status = close !== undefined ? taskEndStatus(close.status, close.action) : x.lastPause?.action === 'suspended' ? 'SUSPENDED' : 'RUNNING';
    return {
      id,
      instance_id: instanceId,
      // The run's definition, denormalized: task filters on it are plain term queries (the instance is recomputed
      // whole, executions included, whenever any of its events arrives, so these never go stale).
      workflow_name: instance.name,
      workflow_namespace: instance.namespace,
      workflow_version: instance.version,
      task_position: taskPosition,
      task_name: x.taskName,
      status,
      start_time_us: x.start,
      end_time_us: x.end,
      duration_us: duration(x.start, x.end),
      start_time: iso(x.start),
      end_time: iso(x.end),
      ...payloadFields(x.open?.input ?? close?.input ?? null, close?.hasOutput ? close.output : null),
      error: errorFields(close?.error ?? null),
      execution_index: executionIndex,
      placeholder: instance.placeholder,
    };
  });
}

/** The instance document and its execution documents from the instance's accepted events (any order, repeats). */
export function normalizeInstance(instanceId: string, events: readonly ParsedEvent[]): NormalizedInstance {
  const workflowEvents = events.filter((e): e is WorkflowEvent => e.kind === 'workflow');
  const instance = mergeInstance(instanceId, workflowEvents);
  const byPosition = new Map<string, TaskEvent[]>();
  for (const e of events) {
    if (e.kind !== 'task') continue;
    const list = byPosition.get(e.taskPosition);
    if (list) list.push(e);
    else byPosition.set(e.taskPosition, [e]);
  }
  const executions: TaskExecutionDocument[] = [];
  for (const position of [...byPosition.keys()].sort(compareText)) {
    executions.push(...executionDocuments(instance, position, positionExecutions(distinctTaskEvents(byPosition.get(position)!))));
  }
  return { instance: { ...instance, ...taskStates(executions) }, executions };
}
