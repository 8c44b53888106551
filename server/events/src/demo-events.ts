// The demo event set development mode loads on both backends: the reference stream (fixtures/quarkus-flow-events.jsonl)
// moved to just before the server's start, plus a run that is still running, with the loop's iterations carrying
// payloads the way Quarkus Flow prints them (include-task-payloads: input on task.started, output on task.completed;
// the first iteration gets the loop's input, each next one the previous iteration's output).
//
// The shape is fixed relative to a base time (the start, to the whole second): every start gives the same offsets,
// so a test can compute every expected time from the base it was given (or from the newest event).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The reference event stream (resolved from this file: src/ or dist/). */
export const DEMO_REFERENCE_EVENTS = fileURLToPath(new URL('../../../fixtures/quarkus-flow-events.jsonl', import.meta.url));

const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';
const TIME_FIELDS = ['timestamp', 'startTime', 'endTime', 'lastUpdateTime'] as const;

/**
 * Where each reference run starts, in seconds before the base: spread over the last hours, newest last, so the
 * console's "last day" and "last hour" filters both find runs and the order of the list stays the reference order.
 */
export const DEMO_RUN_OFFSETS_S: Readonly<Record<string, number>> = {
  '01KRDQDZBR7492YQWM736PEENJ': 6 * 3600, // order-intake, completed
  '01KRDQDZBS8TBDWA72Q1575QHY': 5 * 3600 + 1800, // payment-capture, faulted (HTTP 503)
  '01KRDQE6KHQGTG2RA2Q0X3ED0J': 4 * 3600, // order-intake, cancelled
  '01KRDQE6KKA9476X0RVHQ1S7AE': 3 * 3600, // customer-notify, fork
  '01KRDQEAPWDTERF1SDDX5A5SQV': 2 * 3600, // order-fulfilment, the loop
  '01KRDQEBYPFN9AZM0BE5K9B295': 3600, // ledger-sync, retry
  '01KRDQEES4VBNTZWX89D86KWZJ': 40 * 60, // address-normalizer, faulted (Java)
  '01KRDQEHBQF7VKFR571KEFRHM5': 20 * 60, // manual-review, suspended and resumed
};

/** The loop of the reference stream whose iterations get payloads in the demo. */
export const DEMO_LOOP_INSTANCE = '01KRDQEAPWDTERF1SDDX5A5SQV';
export const DEMO_LOOP_ITERATION_POSITION = 'do/0/pickItems/do/0/pickItem';

/** The run that is still running: started 40 s before the base, its third task started 20 s before it. */
export const DEMO_RUNNING_INSTANCE = '01KRDQF7Q2M4ZC8V3N6H1TRKXA';
export const DEMO_RUNNING_OFFSET_S = 40;
/** The newest demo event, in seconds before the base (the running run's last task.started). */
export const DEMO_NEWEST_EVENT_OFFSET_S = 20;

/** The base of the demo's times: the given time rounded down to the whole second. */
export function demoBaseMs(nowMs: number = Date.now()): number {
  return Math.floor(nowMs / 1000) * 1000;
}

type EventObject = Record<string, unknown>;

function epochMicros(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.round(value * 1e6);
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? undefined : ms * 1000;
  }
  return undefined;
}

/** Epoch seconds with the microseconds the producer prints (a number, as Quarkus Flow's epoch-seconds format). */
function epochSeconds(micros: number): number {
  return micros / 1e6;
}

function shifted(event: EventObject, deltaMicros: number): EventObject {
  const out: EventObject = { ...event };
  for (const field of TIME_FIELDS) {
    const micros = epochMicros(out[field]);
    if (micros !== undefined) out[field] = epochSeconds(micros + deltaMicros);
  }
  return out;
}

/** Input and output of the loop's iterations, in the order they run (pick one line item each). */
function withLoopPayloads(events: EventObject[]): EventObject[] {
  const started = events.find((e) => e['eventType'] === `${WF}started.v1`);
  const loopInput = (started?.['input'] ?? {}) as { orderId?: unknown; lineItems?: { sku?: unknown; bin?: unknown }[] };
  const items = Array.isArray(loopInput.lineItems) ? loopInput.lineItems : [];
  const picked: unknown[] = [];
  let previous: unknown = loopInput;
  let iteration = 0;
  return events.map((e) => {
    const position = e['taskPosition'];
    if (position === 'do/0/pickItems/do' && e['eventType'] === `${TASK}started.v1`) return { input: loopInput, ...e };
    if (position !== DEMO_LOOP_ITERATION_POSITION) {
      if (position === 'do/0/pickItems/do' && e['eventType'] === `${TASK}completed.v1`) return { output: previous, ...e };
      return e;
    }
    if (e['eventType'] === `${TASK}started.v1`) return { input: previous, ...e };
    if (e['eventType'] === `${TASK}completed.v1`) {
      const item = items[iteration] ?? {};
      iteration += 1;
      picked.push(item.sku ?? null);
      previous = { orderId: loopInput.orderId ?? null, lastPicked: { sku: item.sku ?? null, bin: item.bin ?? null }, picked: [...picked] };
      return { output: previous, ...e };
    }
    return e;
  });
}

/** The run still running: three tasks, the last one started and not ended; no workflow end event. */
function runningRun(baseMicros: number): EventObject[] {
  const id = DEMO_RUNNING_INSTANCE;
  const at = (secondsBeforeBase: number, micros = 0): number => epochSeconds(baseMicros - secondsBeforeBase * 1e6 + micros);
  const input = { shipmentId: 'SHP-2291', orderId: 'ORD-7F3A-0043', parcels: [{ id: 'P-1', weightKg: 1.2 }, { id: 'P-2', weightKg: 0.4 }], destination: { city: 'Kraków', country: 'PL' } };
  const carrier = { shipmentId: 'SHP-2291', carrier: 'DHL', service: 'express', eta: 'P2D' };
  const label = { shipmentId: 'SHP-2291', carrier: 'DHL', trackingNumber: 'JD014600006281234567', labels: 2 };
  const task = (type: 'started' | 'completed', execId: string, position: string, t: number, payload: EventObject): EventObject => ({
    ...payload,
    instanceId: id,
    taskExecutionId: execId,
    taskPosition: position,
    taskName: position.split('/').at(-1),
    ...(type === 'started' ? { startTime: t } : {}),
    eventType: `${TASK}${type}.v1`,
    ...(type === 'completed' ? { endTime: t } : {}),
    timestamp: t,
    status: type === 'started' ? 'RUNNING' : 'COMPLETED',
  });
  const s = DEMO_RUNNING_OFFSET_S;
  return [
    { instanceId: id, eventType: `${WF}status-changed.v1`, timestamp: at(s), status: 'RUNNING', lastUpdateTime: at(s) },
    { input, instanceId: id, workflowNamespace: 'com.acme.shipping', workflowName: 'shipment-dispatch', startTime: at(s, 41), eventType: `${WF}started.v1`, workflowVersion: '2.1.0', timestamp: at(s, 41), status: 'RUNNING' },
    task('started', '3f1c2a9e-5b7d-3e41-9a0c-2d6f8b1e4c70', 'do/0/chooseCarrier', at(s, 183), { input }),
    task('completed', '8a4e6b20-1c93-3d5f-b7e2-9f0a3c6d5e18', 'do/0/chooseCarrier', at(s - 1, 412_506), { output: carrier }),
    task('started', 'c7d9e1f3-2a4b-3c6d-8e0f-1a2b3c4d5e6f', 'do/1/printLabel', at(s - 1, 412_733), { input: carrier }),
    task('completed', '5e6f7a8b-9c0d-3e1f-a2b3-c4d5e6f7a8b9', 'do/1/printLabel', at(s - 19, 97_318), { output: label }),
    task('started', '0b1c2d3e-4f5a-3b6c-9d7e-8f9a0b1c2d3e', 'do/2/awaitPickup', at(DEMO_NEWEST_EVENT_OFFSET_S), { input: label }),
  ];
}

/**
 * The demo events for a base time (see demoBaseMs): the reference stream's lines, each run moved so that it starts
 * DEMO_RUN_OFFSETS_S[id] before the base (a run not in the table moves with the stream's last event, put
 * 10 minutes before the base), the loop's iterations with payloads, then the running run. Lines that do not parse are kept as they
 * are: the pipeline records them, as it would in production.
 */
export function demoEventLines(referenceLines: readonly string[], baseMs: number): string[] {
  const baseMicros = baseMs * 1000;
  const parsed = referenceLines.filter((l) => l.trim() !== '').map((line) => {
    try {
      const value = JSON.parse(line) as unknown;
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? { line, event: value as EventObject } : { line };
    } catch {
      return { line };
    }
  });
  const firstOf = new Map<string, number>();
  let last = Number.NEGATIVE_INFINITY;
  for (const { event } of parsed) {
    const micros = epochMicros(event?.['timestamp']);
    const id = event?.['instanceId'];
    if (micros === undefined) continue;
    last = Math.max(last, micros);
    if (typeof id === 'string' && !firstOf.has(id)) firstOf.set(id, micros);
  }
  const deltaOf = (id: unknown): number => {
    const first = typeof id === 'string' ? firstOf.get(id) : undefined;
    const offset = typeof id === 'string' ? DEMO_RUN_OFFSETS_S[id] : undefined;
    if (first !== undefined && offset !== undefined) return baseMicros - offset * 1e6 - first;
    return Number.isFinite(last) ? baseMicros - 600 * 1e6 - last : 0;
  };
  const loop = withLoopPayloads(parsed.flatMap((p) => (p.event?.['instanceId'] === DEMO_LOOP_INSTANCE ? [p.event] : [])));
  let loopIndex = 0;
  const lines = parsed.map(({ line, event }) => {
    if (event === undefined) return line;
    const source = event['instanceId'] === DEMO_LOOP_INSTANCE ? (loop[loopIndex++] ?? event) : event;
    return JSON.stringify(shifted(source, deltaOf(event['instanceId'])));
  });
  return [...lines, ...runningRun(baseMicros).map((e) => JSON.stringify(e))];
}

/** The demo events of a file: the built-in demo (re-timed, see demoEventLines) for the reference stream, else the file's lines as they are. */
export function demoEventLinesOf(file: string, baseMs: number): string[] {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  return resolve(file) === DEMO_REFERENCE_EVENTS ? demoEventLines(lines, baseMs) : lines;
}
