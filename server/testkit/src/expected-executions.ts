// The test oracle: what the service must serve for a set of (valid) events, written independently of the SQL
// normalizer and as plainly as possible, straight from the rules in CONTRACT.md ("Rules both backends share"),
// DESIGN.md (Normalization rules) and the pairing/tie rule of the identity rework:
//
// - An event is identified by its own fields (kind, instanceId, taskPosition, timestamp in µs, taskName,
//   status, input, output, error); forwarder fields never count, so identical events are one event.
// - Task events at one (instance, position) are swept in time order. At one instant t with E closings, S
//   openings and b executions open before t: the first min(b, E) closings close already-open executions (latest
//   opened first), then the S openings open, then the remaining closings close those (latest first), or form a
//   completion-only execution when nothing is open. Same-role events at one instant are taken in a fixed
//   content order (their identity text), never in arrival order.
// - Execution ids: `<instance>:<position>` for the first, `…@<start µs>` (end µs without a start) for the others,
//   and `#<execution index>` on the later ones that share that instant.
//
// Results have the shape of support/load-events.ts `snapshot`, so a test compares the two with toEqual.
import type { Event, InstanceRow, TaskRow } from './event-rows.js';

export interface ExpectedIndex {
  instances: InstanceRow[];
  tasks: TaskRow[];
}

// ---------------------------------------------------------------------------------------------------------
// Time values → epoch microseconds (bigint), rounded half to even.
// ---------------------------------------------------------------------------------------------------------

interface Rational {
  readonly num: bigint;
  readonly den: bigint; // > 0
}

/** The exact value of a double. A forwarder may re-print a number (%.16g), so a number is taken at double precision. */
function rationalOfDouble(value: number): Rational {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponentBits === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (exponentBits === 0 ? 1 : exponentBits) - 1075; // value = mantissa * 2^exponent
  const signed = negative ? -mantissa : mantissa;
  return exponent >= 0 ? { num: signed << BigInt(exponent), den: 1n } : { num: signed, den: 1n << BigInt(-exponent) };
}

/** The exact value of a decimal literal such as `1795441523.0510702`, `1.7954415230510702E9` or `-3e-7`. */
function rationalOfDecimal(text: string): Rational {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new Error(`not a decimal number: ${text}`);
  const digits = BigInt(`${m[2] ?? ''}${m[3] ?? ''}` || '0');
  const scale = (m[3] ?? '').length - Number(m[4] ?? '0'); // value = digits * 10^-scale
  const signed = m[1] === '-' ? -digits : digits;
  return scale <= 0 ? { num: signed * 10n ** BigInt(-scale), den: 1n } : { num: signed, den: 10n ** BigInt(scale) };
}

function roundHalfEven(r: Rational): bigint {
  const floor = r.num >= 0n ? r.num / r.den : -((-r.num + r.den - 1n) / r.den);
  const twiceRemainder = 2n * (r.num - floor * r.den);
  if (twiceRemainder > r.den) return floor + 1n;
  if (twiceRemainder < r.den) return floor;
  return floor % 2n === 0n ? floor : floor + 1n;
}

/** CONTRACT: below 1e11 epoch seconds, below 1e14 milliseconds, below 1e17 microseconds, else nanoseconds. */
function epochMicros(r: Rational): bigint {
  const abs = r.num < 0n ? -r.num : r.num;
  const below = (limit: bigint): boolean => abs < limit * r.den;
  const factor: Rational = below(10n ** 11n) ? { num: 1_000_000n, den: 1n } : below(10n ** 14n) ? { num: 1000n, den: 1n } : below(10n ** 17n) ? { num: 1n, den: 1n } : { num: 1n, den: 1000n };
  return roundHalfEven({ num: r.num * factor.num, den: r.den * factor.den });
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?([Zz]|([+-])(\d{2}):?(\d{2}))$/;

/** Epoch microseconds of a time value as the service reads it, or undefined when it is not a time. */
export function timeMicros(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? epochMicros(rationalOfDouble(value)) : undefined;
  if (typeof value !== 'string') return undefined;
  if (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(value)) return epochMicros(rationalOfDecimal(value));
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s = '00', fraction = '', zone, sign, oh = '00', om = '00'] = m;
  const wholeSeconds = BigInt(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000);
  const offsetSeconds = zone === 'Z' || zone === 'z' ? 0n : (sign === '-' ? -1n : 1n) * BigInt(Number(oh) * 3600 + Number(om) * 60);
  const subMicros = fraction === '' ? 0n : roundHalfEven({ num: BigInt(fraction) * 1_000_000n, den: 10n ** BigInt(fraction.length) });
  return (wholeSeconds - offsetSeconds) * 1_000_000n + subMicros;
}

/** The snapshot's text form of a time: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function microsToIso(us: bigint): string {
  const seconds = us / 1_000_000n - (us % 1_000_000n < 0n ? 1n : 0n);
  const fraction = us - seconds * 1_000_000n;
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction.toString().padStart(6, '0')}Z`;
}

// ---------------------------------------------------------------------------------------------------------
// Payloads and identity.
// ---------------------------------------------------------------------------------------------------------

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The line repair (R2, R3) as it shows in a parsed value: NUL and lone surrogates become U+FFFD, in keys too. */
export function repaired(value: unknown): unknown {
  if (typeof value === 'string') return value.replaceAll('\u0000', '\uFFFD').replace(LONE_SURROGATE, '\uFFFD');
  if (Array.isArray(value)) return value.map(repaired);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [repaired(k) as string, repaired(v)]));
  }
  return value;
}

/** JSON text with object keys sorted: key order is not significant (JSONB), numbers at double precision. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------------------------------------------------
// Parsed events.
// ---------------------------------------------------------------------------------------------------------

interface ParsedEvent {
  readonly kind: 'workflow' | 'task';
  readonly action: string;
  readonly instanceId: string;
  readonly ts: bigint;
  readonly event: Event; // repaired
  readonly identity: string;
}

function parseEvent(raw: Event): ParsedEvent {
  const event = repaired(raw) as Event;
  const m = /(?:^|\.)(workflow|task)\.([a-z-]+)\.v[0-9]+$/.exec(String(event['eventType']));
  if (!m) throw new Error(`oracle: not a lifecycle event: ${String(event['eventType'])}`);
  const ts = timeMicros(event['timestamp']);
  if (ts === undefined) throw new Error(`oracle: bad timestamp ${String(event['timestamp'])}`);
  const kind = m[1] as 'workflow' | 'task';
  const action = m[2]!;
  const instanceId = String(event['instanceId']);
  const identity = canonicalJson({
    kind: `${kind}.${action}`,
    instanceId,
    taskPosition: event['taskPosition'] ?? null,
    ts: ts.toString(),
    taskName: event['taskName'] ?? null,
    status: event['status'] ?? null,
    input: event['input'] ?? null,
    output: event['output'] ?? null,
    error: event['error'] ?? null,
    // What else the normalizer reads of a workflow event (two such events differing here are two events).
    ...(kind === 'workflow' ? { wf: [event['workflowName'], event['workflowNamespace'], event['workflowVersion'], event['startTime'], event['endTime']].map((v) => v ?? null) } : {}),
  });
  return { kind, action, instanceId, ts, event, identity };
}

const has = (e: Event, key: string): boolean => Object.prototype.hasOwnProperty.call(e, key);
const nullIfJsonNull = (v: unknown): unknown => (v === null || v === undefined ? null : v);
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));
const integerOrNull = (v: unknown): number | null =>
  (typeof v === 'number' || typeof v === 'string') && /^-?[0-9]{1,9}$/.test(String(v)) ? Number(v) : null;

interface ErrorFields {
  error_type: string | null; error_title: string | null; error_detail: string | null; error_status: number | null; error_instance: string | null;
}
const NO_ERROR: ErrorFields = { error_type: null, error_title: null, error_detail: null, error_status: null, error_instance: null };
function errorFields(error: unknown): ErrorFields {
  if (error === null || typeof error !== 'object' || Array.isArray(error)) return NO_ERROR;
  const e = error as Record<string, unknown>;
  return { error_type: textOrNull(e['type']), error_title: textOrNull(e['title']), error_detail: textOrNull(e['detail']), error_status: integerOrNull(e['status']), error_instance: textOrNull(e['instance']) };
}

// ---------------------------------------------------------------------------------------------------------
// Workflow instances.
// ---------------------------------------------------------------------------------------------------------

function workflowStatus(e: ParsedEvent): string {
  const s = typeof e.event['status'] === 'string' ? e.event['status'].toUpperCase() : ({ completed: 'COMPLETED', faulted: 'FAULTED', cancelled: 'CANCELLED', suspended: 'SUSPENDED' } as Record<string, string>)[e.action] ?? 'RUNNING';
  if (s === 'FAILED') return 'FAULTED';
  if (s === 'CANCELED') return 'CANCELLED';
  return ['COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'].includes(s) ? s : 'RUNNING';
}
const TERMINAL = new Set(['COMPLETED', 'FAULTED', 'CANCELLED']);
// Between different statuses at the same timestamp: a fixed order (the more final one wins).
const STATUS_RANK: Record<string, number> = { FAULTED: 5, CANCELLED: 4, COMPLETED: 3, SUSPENDED: 2, RUNNING: 1 };

/** `a` beats `b` when greater in (key1, key2, …). */
function newest<T>(items: readonly T[], key: (item: T) => ReadonlyArray<bigint | number>): T | undefined {
  let best: T | undefined;
  for (const item of items) {
    if (best === undefined) {
      best = item;
      continue;
    }
    const a = key(item);
    const b = key(best);
    for (let i = 0; i < a.length; i++) {
      if (a[i]! > b[i]!) {
        best = item;
        break;
      }
      if (a[i]! < b[i]!) break;
    }
  }
  return best;
}

function expectedInstance(id: string, events: readonly ParsedEvent[]): InstanceRow {
  const wf = events.filter((e) => e.kind === 'workflow');
  const startedEvents = wf.filter((e) => e.action === 'started');
  // The earliest workflow.started gives identity and start.
  const started = newest(startedEvents, (e) => [-e.ts]);
  const statusEvent = newest(wf, (e) => [TERMINAL.has(workflowStatus(e)) ? 1 : 0, e.ts, STATUS_RANK[workflowStatus(e)]!]);
  const status = statusEvent ? workflowStatus(statusEvent) : 'RUNNING';
  const endTime = statusEvent && TERMINAL.has(status) ? timeMicros(statusEvent.event['endTime']) ?? statusEvent.ts : undefined;
  const inputEvent = newest(
    wf.filter((e) => (e.action === 'started' || e.action === 'faulted') && has(e.event, 'input')),
    (e) => [e.action === 'started' ? 2 : 1, e.ts],
  );
  const outputEvent = newest(wf.filter((e) => e.action === 'completed' && has(e.event, 'output')), (e) => [e.ts]);
  const errorEvent = newest(wf.filter((e) => e.action === 'faulted' && isObject(e.event['error'])), (e) => [e.ts]);
  const lastUpdate = newest(wf, (e) => [e.ts]);
  return {
    id,
    namespace: started ? textOrNull(started.event['workflowNamespace']) : null,
    name: started ? textOrNull(started.event['workflowName']) : null,
    version: started ? textOrNull(started.event['workflowVersion']) : null,
    status,
    start_time: started ? microsToIso(timeMicros(started.event['startTime']) ?? started.ts) : null,
    end_time: endTime === undefined ? null : microsToIso(endTime),
    last_update: lastUpdate ? microsToIso(lastUpdate.ts) : null,
    input: inputEvent ? nullIfJsonNull(inputEvent.event['input']) : null,
    output: outputEvent ? nullIfJsonNull(outputEvent.event['output']) : null,
    ...(errorEvent ? errorFields(errorEvent.event['error']) : NO_ERROR),
    placeholder: started === undefined,
  };
}

function isObject(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------------------------
// Task executions.
// ---------------------------------------------------------------------------------------------------------

const OPENING = new Set(['started', 'retried']);
const CLOSING = new Set(['completed', 'faulted', 'cancelled']);

interface Execution {
  open?: ParsedEvent;
  close?: ParsedEvent;
  lastPause?: string;
  /** Sweep order of the execution's first event: executions are numbered by it. */
  order: number;
}

function atTime(e: ParsedEvent): bigint {
  const key = e.action === 'started' ? 'startTime' : CLOSING.has(e.action) ? 'endTime' : undefined;
  return (key ? timeMicros(e.event[key]) : undefined) ?? e.ts;
}

/** The executions at one (instance, position), by the pairing and tie rule above. */
export function pairExecutions(events: readonly ParsedEvent[]): Execution[] {
  const byInstant = new Map<bigint, ParsedEvent[]>();
  for (const e of events) byInstant.set(e.ts, [...(byInstant.get(e.ts) ?? []), e]);
  const instants = [...byInstant.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const executions: Execution[] = [];
  const openStack: Execution[] = []; // open executions, latest opened last
  let order = 0;
  for (const t of instants) {
    const here = byInstant.get(t)!;
    const inContentOrder = (role: Set<string>) => here.filter((e) => role.has(e.action)).sort((a, b) => compareText(a.identity, b.identity));
    const closings = inContentOrder(CLOSING);
    const openings = inContentOrder(OPENING);
    const pauses = here.filter((e) => e.action === 'suspended' || e.action === 'resumed').sort((a, b) => compareText(a.identity, b.identity));
    const closeLatest = (c: ParsedEvent): void => {
      const execution = openStack.pop();
      if (execution) execution.close = c;
      else executions.push({ close: c, order: order++ });
    };
    const alreadyOpen = Math.min(openStack.length, closings.length);
    for (const c of closings.slice(0, alreadyOpen)) closeLatest(c);
    for (const o of openings) {
      const execution: Execution = { open: o, order: order++ };
      executions.push(execution);
      openStack.push(execution);
    }
    // Real producers never publish task.suspended/resumed (reference §2.1); they mark the latest open execution.
    for (const p of pauses) {
      const latest = openStack[openStack.length - 1];
      if (latest) latest.lastPause = p.action;
    }
    for (const c of closings.slice(alreadyOpen)) closeLatest(c);
  }
  return executions.sort((a, b) => a.order - b.order);
}

function taskEndStatus(e: ParsedEvent): string {
  const s = typeof e.event['status'] === 'string' ? e.event['status'].toUpperCase() : '';
  if (s === 'FAILED' || s === 'FAULTED') return 'FAULTED';
  if (s === 'CANCELLED' || s === 'CANCELED') return 'CANCELLED';
  if (s === 'COMPLETED') return 'COMPLETED';
  return e.action === 'faulted' ? 'FAULTED' : e.action === 'cancelled' ? 'CANCELLED' : 'COMPLETED';
}

function percentEncode(text: string, separator: string): string {
  return text.replace(new RegExp(`[%${separator}]`, 'g'), (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function expectedTasks(instanceId: string, position: string, events: readonly ParsedEvent[]): TaskRow[] {
  const executions = pairExecutions(events);
  // The position percent-encoded: `%` and `@` (072-execution-ids.sql).
  const base = `${instanceId}:${percentEncode(position, '@')}`;
  const seenInstants = new Map<string, number>();
  return executions.map((x, i): TaskRow => {
    const index = i + 1;
    const first = x.open ?? x.close!;
    const start = x.open ? atTime(x.open) : undefined;
    const end = x.close ? atTime(x.close) : undefined;
    const instant = (start ?? end)!.toString();
    const sharing = (seenInstants.get(instant) ?? 0) + 1;
    seenInstants.set(instant, sharing);
    const id = index === 1 ? base : `${base}@${instant}${sharing > 1 ? `#${index}` : ''}`;
    // Only task.started and task.faulted carry the task's input; only task.completed its output.
    const openInput = x.open && x.open.action === 'started' && has(x.open.event, 'input') ? nullIfJsonNull(x.open.event['input']) : null;
    const closeInput = x.close && x.close.action === 'faulted' && has(x.close.event, 'input') ? nullIfJsonNull(x.close.event['input']) : null;
    const closeError = x.close && isObject(x.close.event['error']) ? errorFields(x.close.event['error']) : NO_ERROR;
    return {
      id,
      instance_id: instanceId,
      task_position: position,
      task_name: textOrNull(first.event['taskName']) ?? position.replace(/^.*\//, ''),
      status: x.close ? taskEndStatus(x.close) : x.lastPause === 'suspended' ? 'SUSPENDED' : 'RUNNING',
      start_time: start === undefined ? null : microsToIso(start),
      end_time: end === undefined ? null : microsToIso(end),
      input: openInput ?? closeInput,
      output: x.close && x.close.action === 'completed' && has(x.close.event, 'output') ? nullIfJsonNull(x.close.event['output']) : null,
      ...closeError,
      execution_index: index,
    };
  });
}

// ---------------------------------------------------------------------------------------------------------
// The whole index.
// ---------------------------------------------------------------------------------------------------------

/** Distinct events by identity (a re-delivery of an event is the same event). */
export function distinctEvents(events: readonly Event[]): Event[] {
  const seen = new Set<string>();
  const out: Event[] = [];
  for (const raw of events) {
    const p = parseEvent(raw);
    if (seen.has(p.identity)) continue;
    seen.add(p.identity);
    out.push(raw);
  }
  return out;
}

/** What the service serves (in the snapshot's order: by id) for this set of valid lifecycle events. */
export function expectedIndex(events: readonly Event[]): ExpectedIndex {
  const byIdentity = new Map<string, ParsedEvent>();
  for (const raw of events) {
    const p = parseEvent(raw);
    if (!byIdentity.has(p.identity)) byIdentity.set(p.identity, p);
  }
  const byInstance = new Map<string, ParsedEvent[]>();
  for (const p of byIdentity.values()) byInstance.set(p.instanceId, [...(byInstance.get(p.instanceId) ?? []), p]);
  const instances: InstanceRow[] = [];
  const tasks: TaskRow[] = [];
  for (const [id, evs] of byInstance) {
    const instance = expectedInstance(id, evs);
    instances.push(instance);
    const byPosition = new Map<string, ParsedEvent[]>();
    for (const e of evs.filter((x) => x.kind === 'task')) {
      const position = String(e.event['taskPosition']);
      byPosition.set(position, [...(byPosition.get(position) ?? []), e]);
    }
    // Every task row carries its run's namespace, name and version (NULL while the run is a placeholder).
    const run = { workflow_namespace: instance.namespace, workflow_name: instance.name, workflow_version: instance.version };
    for (const [position, pevs] of byPosition) tasks.push(...expectedTasks(id, position, pevs).map((t) => ({ ...t, ...run })));
  }
  // The snapshot orders by id in the "C" collation (code point order: byte order of UTF-8 text).
  const byId = (a: { id: string }, b: { id: string }): number => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));
  return { instances: instances.sort(byId), tasks: tasks.sort(byId) };
}

/** Instants at which one position has more than one event: where the tie rule decides. */
export function tiedInstants(events: readonly Event[]): Array<{ instanceId: string; position: string; at: string; actions: string[] }> {
  const groups = new Map<string, ParsedEvent[]>();
  for (const raw of distinctEvents(events)) {
    const p = parseEvent(raw);
    if (p.kind !== 'task') continue;
    const key = `${p.instanceId}\u0000${String(p.event['taskPosition'])}\u0000${p.ts}`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  return [...groups.entries()].filter(([, g]) => g.length > 1).map(([key, g]) => {
    const [instanceId = '', position = ''] = key.split('\u0000');
    return { instanceId, position, at: microsToIso(g[0]!.ts), actions: g.map((e) => e.action) };
  });
}
