// The events every backend loads for the conformance suite: the reference Quarkus Flow stream
// (fixtures/quarkus-flow-events.jsonl, 80 lines, 8 instances) plus deterministic extra events for
// what the reference stream does not cover. Everything here is a pure constant: no clock, no
// randomness, so every backend and every run sees byte-identical input.
//
// Extra instances (ids, and why they exist):
//   conformance-waiting            last status-changed is WAITING (served RUNNING); a RUNNING task and a
//                                  completion-only task (no start: sorts last, nulls last)
//   conformance-late-running       a status-changed RUNNING after COMPLETED (stays COMPLETED, but lastUpdate
//                                  moves); JSON null outputs (served as null)
//   conformance-suspended          ends SUSPENDED
//   conformance-json-numbers       payloads for JSON filters: numbers, booleans, numeric-looking strings,
//                                  nested arrays, strings with % _ * ? and a backslash
//   conformance-json-array-root    payloads that are not objects (array input, string output); its newest
//                                  terminal event is a status-changed, so endDate is that event's timestamp
//   conformance-no-namespace       workflow.started without namespace/version; no status-changed at all
//   conformance-time-forms         every timestamp input form (ISO with offsets, epoch millis/micros numbers,
//                                  scientific-notation and nanosecond numeric strings with half-to-even
//                                  rounding); its events are listed newest first (arrival order must not matter)
//   conformance-faulted-404        a faulted instance and FAILED task with error.status 404 and detail null;
//                                  input only on workflow.faulted; an endTime whose offset moves it to another UTC day
//   conformance-fullwidth          CANCELLED, no input payload key at all, namespace differing only in case
//   conformance-placeholder-*      placeholders (task events, with and without a status-changed, never a
//                                  workflow.started): never served by any query
//   paging-000 … paging-104        105 RUNNING instances with one task each, for pagination, default limits
//                                  and the id tie-breaker (start times shared by groups of three, emitted in
//                                  an order that is neither id order nor time order)
//
// The events are JavaScript values, so a double such as 1.778577243512337E9 is written by JSON.stringify as
// 1778577243.512337 (what Fluent Bit forwards, too). Scientific notation and nanosecond values that exceed
// 2^53 are therefore given as numeric strings, which the contract reads by the same magnitude rule.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export type ConformanceEvent = Readonly<Record<string, unknown>>;

const FIXTURE_URL = new URL('../../../../fixtures/quarkus-flow-events.jsonl', import.meta.url);

/** The 80 reference events, in file order. */
export const FIXTURE_EVENTS: readonly ConformanceEvent[] = Object.freeze(
  readFileSync(FIXTURE_URL, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => Object.freeze(JSON.parse(line) as Record<string, unknown>)),
);

const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';
const COMMUNICATION = 'https://serverlessworkflow.io/spec/1.0.0/errors/communication';

type Time = number | string;

/** taskExecutionId as the producer computes it: a v3 (MD5) UUID of `<instance>:<position>:<epoch ms>`. */
function taskExecutionId(instanceId: string, position: string, millis: number): string {
  const hash = createHash('md5').update(`${instanceId}:${position}:${millis}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x30;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function millisOf(time: Time): number {
  const n = typeof time === 'number' ? time : Number(time);
  if (Number.isNaN(n)) return Date.parse(String(time));
  const abs = Math.abs(n);
  return Math.floor(abs < 1e11 ? n * 1e3 : abs < 1e14 ? n : abs < 1e17 ? n / 1e3 : n / 1e6);
}

function statusChanged(instanceId: string, status: string, timestamp: Time): ConformanceEvent {
  return { instanceId, eventType: `${WF}status-changed.v1`, timestamp, status, lastUpdateTime: timestamp };
}

function started(
  instanceId: string,
  timestamp: Time,
  identity: { name: string; namespace?: string; version?: string },
  input?: unknown,
  startTime: Time = timestamp,
): ConformanceEvent {
  return {
    ...(input === undefined ? {} : { input }),
    instanceId,
    ...(identity.namespace === undefined ? {} : { workflowNamespace: identity.namespace }),
    workflowName: identity.name,
    startTime,
    eventType: `${WF}started.v1`,
    ...(identity.version === undefined ? {} : { workflowVersion: identity.version }),
    timestamp,
    status: 'RUNNING',
  };
}

function completed(instanceId: string, timestamp: Time, output?: unknown, endTime: Time = timestamp): ConformanceEvent {
  return { ...(output === undefined ? {} : { output }), instanceId, eventType: `${WF}completed.v1`, endTime, timestamp, status: 'COMPLETED' };
}

function taskEvent(
  action: 'started' | 'completed' | 'faulted' | 'cancelled',
  instanceId: string,
  position: string,
  time: Time,
  extra: Record<string, unknown> = {},
): ConformanceEvent {
  const timeKey = action === 'started' ? 'startTime' : 'endTime';
  const status = { started: 'RUNNING', completed: 'COMPLETED', faulted: 'FAILED', cancelled: 'CANCELLED' }[action];
  return {
    ...extra,
    instanceId,
    taskExecutionId: taskExecutionId(instanceId, position, millisOf(time)),
    taskPosition: position,
    taskName: position.slice(position.lastIndexOf('/') + 1),
    [timeKey]: time,
    eventType: `${TASK}${action}.v1`,
    timestamp: time,
    status,
  };
}

// 2026-05-13T08:00:00Z
const waitingEvents: ConformanceEvent[] = [
  statusChanged('conformance-waiting', 'RUNNING', 1778659200.0001),
  started('conformance-waiting', '2026-05-13T08:00:00.000200Z', { namespace: 'com.acme.conformance', name: 'Zeta', version: '1.0.0' }, { gate: 'manager', requestedBy: 'ops' }),
  taskEvent('started', 'conformance-waiting', 'do/0/waitForApproval', 1778659200.0003),
  statusChanged('conformance-waiting', 'WAITING', 1778659200.0004),
  // Its task.started was lost: a completion-only execution.
  taskEvent('completed', 'conformance-waiting', 'do/1/lateCompletion', '2026-05-13T08:00:00.000500Z'),
];

// 2026-05-13T09:00:00Z
const lateRunningEvents: ConformanceEvent[] = [
  statusChanged('conformance-late-running', 'RUNNING', 1778662800.1),
  started('conformance-late-running', 1778662800.2, { namespace: 'com.acme.conformance', name: 'alpha', version: '1.10.0' }, { n: 1 }),
  taskEvent('started', 'conformance-late-running', 'do/0/work', 1778662800.3, { input: { n: 1 } }),
  taskEvent('completed', 'conformance-late-running', 'do/0/work', 1778662800.4, { output: null }),
  statusChanged('conformance-late-running', 'COMPLETED', 1778662800.5),
  completed('conformance-late-running', 1778662800.6, null),
  statusChanged('conformance-late-running', 'RUNNING', '2026-05-13T11:00:05.7+02:00'),
];

// 2026-05-13T11:00:00Z
const suspendedEvents: ConformanceEvent[] = [
  statusChanged('conformance-suspended', 'RUNNING', 1778670000.01),
  started('conformance-suspended', 1778670000.02, { namespace: 'com.acme.conformance', name: 'Ärger', version: '1.2.0' }, { reason: 'Ärger über Öl & Gebühren' }),
  taskEvent('started', 'conformance-suspended', 'do/0/prepare', 1778670000.03),
  taskEvent('completed', 'conformance-suspended', 'do/0/prepare', 1778670000.04),
  statusChanged('conformance-suspended', 'SUSPENDED', 1778670000.05),
  { instanceId: 'conformance-suspended', eventType: `${WF}suspended.v1`, timestamp: '2026-05-13T11:00:00.060001Z', status: 'SUSPENDED' },
];

export const JSON_NUMBERS_INPUT = {
  amount: 1000,
  price: 12.5,
  negative: -0.5,
  code: '1000.0',
  zip: '01000',
  flags: { vip: true, blocked: false },
  label: 'true',
  items: [{ sku: 'A-1', qty: 2 }, { sku: 'B_2%', qty: 1 }],
  matrix: [[1, 2], [3, 4]],
  special: '50%_off*?\\ok',
  nothing: null,
};

// 2026-05-13T12:00:00Z
const jsonNumbersEvents: ConformanceEvent[] = [
  statusChanged('conformance-json-numbers', 'RUNNING', 1778673600.1),
  started('conformance-json-numbers', 1778673600.2, { namespace: 'com.acme.conformance', name: 'rate_100%', version: '1.0.0' }, JSON_NUMBERS_INPUT),
  taskEvent('started', 'conformance-json-numbers', 'do/0/price', 1778673600.3, { input: { amount: 1000, currency: 'EUR', express: false } }),
  taskEvent('completed', 'conformance-json-numbers', 'do/0/price', 1778673600.4, {
    output: { total: 1012.5, approved: true, lines: [{ sku: 'A-1', net: 1000 }, { sku: 'SHIP', net: 12.5 }] },
  }),
  statusChanged('conformance-json-numbers', 'COMPLETED', 1778673600.5),
  completed('conformance-json-numbers', 1778673600.6, { status: 'ok', charged: 1012.5, receipt: { id: 'R-100%', tags: ['paid', '50%_off*?\\ok'] } }),
];

// 2026-05-13T13:00:00Z
const jsonArrayRootEvents: ConformanceEvent[] = [
  statusChanged('conformance-json-array-root', 'RUNNING', 1778677200.1),
  started('conformance-json-array-root', 1778677200.2, { namespace: 'com.acme.conformance', name: 'rateX100Y', version: '1.0.0-SNAPSHOT' }, [1, 'two', { three: 3 }]),
  completed('conformance-json-array-root', 1778677200.3, 'plain text ünïcode ✓ "quoted"'),
  // The newest terminal event has no endTime: endDate is its timestamp.
  statusChanged('conformance-json-array-root', 'COMPLETED', 1778677200.4),
];

// 2026-05-13T14:00:00Z
const noNamespaceEvents: ConformanceEvent[] = [
  started('conformance-no-namespace', 1778680800.1, { name: 'zeta' }, { amount: '1000' }),
  completed('conformance-no-namespace', 1778680800.2, { done: true }),
];

// 2026-05-13T10:00:00Z. Listed newest first: the result must not depend on arrival order.
const timeFormsEvents: ConformanceEvent[] = [
  statusChanged('conformance-time-forms', 'RUNNING', '2026-05-13T12:00:00.000001+02:00'),
  started(
    'conformance-time-forms',
    '2026-05-13T10:00:00Z',
    { namespace: 'com.acme.conformance', name: '🚀launch', version: '10.0.0' },
    { launch: '🚀', count: 3 },
    '1.778666400000001E9', // scientific-notation epoch seconds, as a numeric string
  ),
  taskEvent('started', 'conformance-time-forms', 'do/0/stamp', '2026-05-13T05:00:00.5-05:00'),
  taskEvent('completed', 'conformance-time-forms', 'do/0/stamp', 1778666401100000), // epoch micros
  // epoch nanos as numeric strings; .5 µs rounds half to even (…200000 stays, …300001 goes up to …300002)
  taskEvent('started', 'conformance-time-forms', 'do/1/stampAgain', '1778666401200000500'),
  taskEvent('completed', 'conformance-time-forms', 'do/1/stampAgain', '1778666401300001500'),
  statusChanged('conformance-time-forms', 'COMPLETED', 1778666401.4),
  completed('conformance-time-forms', 1778666402000, { ok: true }, '2026-05-13T10:00:01.999999Z'), // timestamp in epoch millis
].reverse();

const NOT_FOUND = { type: COMMUNICATION, status: 404, instance: 'do/0/lookup', title: 'Not Found', detail: null };

// 2026-05-13T15:00:00Z
const faulted404Events: ConformanceEvent[] = [
  statusChanged('conformance-faulted-404', 'RUNNING', 1778684400.1),
  // No input on workflow.started (workflow payloads off); workflow.faulted carries it (error context on).
  started('conformance-faulted-404', 1778684400.2, { namespace: 'com.acme.conformance', name: 'back\\slash', version: '2.0*beta?' }),
  taskEvent('started', 'conformance-faulted-404', 'do/0/lookup', 1778684400.3, { input: { path: 'C:\\temp\\50%_off' } }),
  taskEvent('faulted', 'conformance-faulted-404', 'do/0/lookup', 1778684400.4, { input: { path: 'C:\\temp\\50%_off' }, error: NOT_FOUND }),
  statusChanged('conformance-faulted-404', 'FAULTED', 1778684400.5),
  {
    input: { path: 'C:\\temp\\50%_off', retry: false },
    instanceId: 'conformance-faulted-404',
    eventType: `${WF}faulted.v1`,
    endTime: '2026-05-14T00:00:00.6+09:00', // the previous UTC day: 2026-05-13T15:00:00.6Z
    error: NOT_FOUND,
    timestamp: 1778684400.6,
    status: 'FAULTED',
  },
];

// 2026-05-13T16:00:00Z
const fullwidthEvents: ConformanceEvent[] = [
  statusChanged('conformance-fullwidth', 'RUNNING', 1778688000.1),
  started('conformance-fullwidth', 1778688000.2, { namespace: 'com.acme.Conformance', name: 'ｆｕｌｌｗｉｄｔｈ', version: '9.0.0' }),
  taskEvent('started', 'conformance-fullwidth', 'do/0/prepare', 1778688000.3),
  statusChanged('conformance-fullwidth', 'CANCELLED', 1778688000.4),
  { instanceId: 'conformance-fullwidth', eventType: `${WF}cancelled.v1`, endTime: 1778688000.5, timestamp: 1778688000.5, status: 'CANCELLED' },
  taskEvent('cancelled', 'conformance-fullwidth', 'do/0/prepare', 1778688000.6),
];

/** Instances that have events but no workflow.started: no query may ever return them or their tasks. */
export const PLACEHOLDER_INSTANCE_IDS = ['conformance-placeholder-status', 'conformance-placeholder-orphan'] as const;
export const PLACEHOLDER_TASK_IDS = [
  'conformance-placeholder-status:do/0/orphanTask',
  'conformance-placeholder-orphan:do/0/orphanTask',
] as const;

// 2026-05-13T17:00:00Z. Their data is chosen to match filters that other instances match (status COMPLETED,
// amount 1000, error.status 418, FAULTED tasks), so a leak shows up in those assertions too.
const placeholderEvents: ConformanceEvent[] = [
  statusChanged('conformance-placeholder-status', 'COMPLETED', 1778691600.1),
  taskEvent('started', 'conformance-placeholder-status', 'do/0/orphanTask', 1778691600.2, { input: { amount: 1000 } }),
  taskEvent('completed', 'conformance-placeholder-status', 'do/0/orphanTask', 1778691600.3, { output: { amount: 1000 } }),
  taskEvent('started', 'conformance-placeholder-orphan', 'do/0/orphanTask', 1778691600.4, { input: { amount: 1000 } }),
  taskEvent('faulted', 'conformance-placeholder-orphan', 'do/0/orphanTask', 1778691600.5, {
    input: { amount: 1000 },
    error: { type: COMMUNICATION, status: 418, instance: 'do/0/orphanTask', title: "I'm a teapot", detail: null },
  }),
];

export const PAGING_COUNT = 105;
/** 2026-06-01T00:00:00Z */
export const PAGING_BASE_SECONDS = 1780272000;

export function pagingId(i: number): string {
  return `paging-${String(i).padStart(3, '0')}`;
}

/** Start second offset of paging instance i: a permutation of 0…104, grouped by three (shared start times). */
export function pagingStartOffset(i: number): number {
  return Math.floor(((i * 37) % PAGING_COUNT) / 3);
}

function pagingEvents(): ConformanceEvent[] {
  const events: ConformanceEvent[] = [];
  for (let k = 0; k < PAGING_COUNT; k++) {
    // Emission order is a second permutation, so storage order is neither id order nor start order.
    const i = (k * 53) % PAGING_COUNT;
    const id = pagingId(i);
    const start = PAGING_BASE_SECONDS + pagingStartOffset(i);
    events.push(
      started(id, start, { namespace: 'conformance.paging', name: 'paging', version: '1.0.0' }),
      taskEvent('started', id, 'do/0/step', start + 0.5),
      taskEvent('completed', id, 'do/0/step', start + 0.75),
    );
  }
  return events;
}

/** The extra events, in load order. */
export const EXTRA_EVENTS: readonly ConformanceEvent[] = Object.freeze(
  [
    ...waitingEvents,
    ...lateRunningEvents,
    ...suspendedEvents,
    ...jsonNumbersEvents,
    ...jsonArrayRootEvents,
    ...noNamespaceEvents,
    ...timeFormsEvents,
    ...faulted404Events,
    ...fullwidthEvents,
    ...placeholderEvents,
    ...pagingEvents(),
  ].map((event) => Object.freeze(event)),
);

export const CONFORMANCE_EVENTS: readonly ConformanceEvent[] = Object.freeze([...FIXTURE_EVENTS, ...EXTRA_EVENTS]);
