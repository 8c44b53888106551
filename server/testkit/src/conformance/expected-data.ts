// What every backend must serve for CONFORMANCE_EVENTS, written out by hand from the normalization rules
// (DESIGN.md "Normalization rules", CONTRACT.md "Rules both backends share"). Payloads and error objects are
// taken from the events they come from, because the rule is "deep-equal to the event's payload"; everything
// else is a literal.
import {
  FIXTURE_EVENTS,
  EXTRA_EVENTS,
  JSON_NUMBERS_INPUT,
  PAGING_BASE_SECONDS,
  PAGING_COUNT,
  pagingId,
  pagingStartOffset,
  type ConformanceEvent,
} from './conformance-events.js';
import { servedFromSeconds } from './timestamps.js';

export interface ExpectedError {
  readonly type: string | null;
  readonly title: string | null;
  readonly detail: string | null;
  readonly status: number | null;
  readonly instance: string | null;
}

export interface ExpectedInstance {
  readonly id: string;
  readonly name: string;
  readonly namespace: string | null;
  readonly version: string | null;
  readonly status: 'RUNNING' | 'COMPLETED' | 'FAULTED' | 'CANCELLED' | 'SUSPENDED';
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly lastUpdate: string | null;
  /** Parsed JSON (the served text goes through JSON.parse before comparing); null when absent. */
  readonly inputData: unknown;
  readonly outputData: unknown;
  readonly error: ExpectedError | null;
}

export interface ExpectedTask {
  readonly id: string;
  readonly workflowInstanceId: string;
  readonly taskName: string;
  readonly taskPosition: string;
  readonly status: 'RUNNING' | 'COMPLETED' | 'FAULTED' | 'CANCELLED';
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly inputData: unknown;
  readonly outputData: unknown;
  readonly error: ExpectedError | null;
  readonly errorMessage: string | null;
}

const ALL_EVENTS: readonly ConformanceEvent[] = [...FIXTURE_EVENTS, ...EXTRA_EVENTS];

/** The one event of that instance, type suffix (e.g. `task.completed`) and task position. */
function eventOf(instanceId: string, type: string, position?: string): ConformanceEvent {
  const matches = ALL_EVENTS.filter(
    (e) => e['instanceId'] === instanceId && e['eventType'] === `io.serverlessworkflow.${type}.v1` && (position === undefined || e['taskPosition'] === position),
  );
  if (matches.length !== 1) throw new Error(`expected one ${type} event of ${instanceId} ${position ?? ''}, found ${matches.length}`);
  return matches[0]!;
}

function payload(instanceId: string, type: string, field: 'input' | 'output', position?: string): unknown {
  const value = eventOf(instanceId, type, position)[field];
  if (value === undefined) throw new Error(`${type} of ${instanceId} has no ${field}`);
  return value;
}

function errorOf(instanceId: string, type: string, position?: string): ExpectedError {
  return eventOf(instanceId, type, position)['error'] as ExpectedError;
}

export const ID = {
  orderIntake: '01KRDQDZBR7492YQWM736PEENJ',
  paymentCapture: '01KRDQDZBS8TBDWA72Q1575QHY',
  orderCancelled: '01KRDQE6KHQGTG2RA2Q0X3ED0J',
  customerNotify: '01KRDQE6KKA9476X0RVHQ1S7AE',
  orderFulfilment: '01KRDQEAPWDTERF1SDDX5A5SQV',
  ledgerSync: '01KRDQEBYPFN9AZM0BE5K9B295',
  addressNormalizer: '01KRDQEES4VBNTZWX89D86KWZJ',
  manualReview: '01KRDQEHBQF7VKFR571KEFRHM5',
  waiting: 'conformance-waiting',
  lateRunning: 'conformance-late-running',
  suspended: 'conformance-suspended',
  jsonNumbers: 'conformance-json-numbers',
  jsonArrayRoot: 'conformance-json-array-root',
  noNamespace: 'conformance-no-namespace',
  timeForms: 'conformance-time-forms',
  faulted404: 'conformance-faulted-404',
  fullwidth: 'conformance-fullwidth',
} as const;

const instance = (fields: Omit<ExpectedInstance, 'inputData' | 'outputData' | 'error'> & Partial<ExpectedInstance>): ExpectedInstance => ({
  inputData: null,
  outputData: null,
  error: null,
  ...fields,
});

export const FIXTURE_INSTANCES: readonly ExpectedInstance[] = [
  instance({
    id: ID.orderIntake, name: 'order-intake', namespace: 'com.acme.orders', version: '1.0.0', status: 'COMPLETED',
    startDate: '2026-05-12T09:14:03.512378Z', endDate: '2026-05-12T09:14:03.51595Z', lastUpdate: '2026-05-12T09:14:03.51595Z',
    inputData: payload(ID.orderIntake, 'workflow.started', 'input'),
    outputData: payload(ID.orderIntake, 'workflow.completed', 'output'),
  }),
  instance({
    id: ID.paymentCapture, name: 'payment-capture', namespace: 'com.acme.billing', version: '2.1.0', status: 'FAULTED',
    startDate: '2026-05-12T09:14:03.513248Z', endDate: '2026-05-12T09:14:08.519678Z', lastUpdate: '2026-05-12T09:14:08.519678Z',
    inputData: payload(ID.paymentCapture, 'workflow.started', 'input'),
    error: errorOf(ID.paymentCapture, 'workflow.faulted'),
  }),
  instance({
    id: ID.orderCancelled, name: 'order-intake', namespace: 'com.acme.orders', version: '1.0.0', status: 'CANCELLED',
    startDate: '2026-05-12T09:14:10.929777Z', endDate: '2026-05-12T09:14:11.021757Z', lastUpdate: '2026-05-12T09:14:11.021757Z',
    inputData: payload(ID.orderCancelled, 'workflow.started', 'input'),
  }),
  instance({
    id: ID.customerNotify, name: 'customer-notify', namespace: 'com.acme.orders', version: '1.0.0', status: 'COMPLETED',
    startDate: '2026-05-12T09:14:10.931969Z', endDate: '2026-05-12T09:14:11.228517Z', lastUpdate: '2026-05-12T09:14:11.228517Z',
    inputData: payload(ID.customerNotify, 'workflow.started', 'input'),
    outputData: payload(ID.customerNotify, 'workflow.completed', 'output'),
  }),
  instance({
    id: ID.orderFulfilment, name: 'order-fulfilment', namespace: 'com.acme.orders', version: '1.3.0', status: 'COMPLETED',
    startDate: '2026-05-12T09:14:15.132682Z', endDate: '2026-05-12T09:14:15.155854Z', lastUpdate: '2026-05-12T09:14:15.155854Z',
    inputData: payload(ID.orderFulfilment, 'workflow.started', 'input'),
    outputData: payload(ID.orderFulfilment, 'workflow.completed', 'output'),
  }),
  instance({
    id: ID.ledgerSync, name: 'ledger-sync', namespace: 'com.acme.billing', version: '3.0.0-rc.1', status: 'COMPLETED',
    startDate: '2026-05-12T09:14:16.40622Z', endDate: '2026-05-12T09:14:18.487834Z', lastUpdate: '2026-05-12T09:14:18.487834Z',
    inputData: payload(ID.ledgerSync, 'workflow.started', 'input'),
    outputData: payload(ID.ledgerSync, 'workflow.completed', 'output'),
  }),
  instance({
    id: ID.addressNormalizer, name: 'address-normalizer', namespace: 'com.acme.orders', version: '0.9.1', status: 'FAULTED',
    startDate: '2026-05-12T09:14:19.300321Z', endDate: '2026-05-12T09:14:19.302802Z', lastUpdate: '2026-05-12T09:14:19.302802Z',
    inputData: payload(ID.addressNormalizer, 'workflow.started', 'input'),
    error: errorOf(ID.addressNormalizer, 'workflow.faulted'),
  }),
  instance({
    id: ID.manualReview, name: 'manual-review', namespace: 'com.acme.orders', version: '1.2.0', status: 'COMPLETED',
    startDate: '2026-05-12T09:14:21.943757Z', endDate: '2026-05-12T09:15:09.454091Z', lastUpdate: '2026-05-12T09:15:09.454091Z',
    inputData: payload(ID.manualReview, 'workflow.started', 'input'),
    outputData: payload(ID.manualReview, 'workflow.completed', 'output'),
  }),
];

export const EXTRA_INSTANCES: readonly ExpectedInstance[] = [
  instance({
    // last status-changed WAITING: served RUNNING; not terminal, so no endDate
    id: ID.waiting, name: 'Zeta', namespace: 'com.acme.conformance', version: '1.0.0', status: 'RUNNING',
    startDate: '2026-05-13T08:00:00.0002Z', endDate: null, lastUpdate: '2026-05-13T08:00:00.0004Z',
    inputData: { gate: 'manager', requestedBy: 'ops' },
  }),
  instance({
    // the late RUNNING ('2026-05-13T11:00:05.7+02:00') keeps COMPLETED but is the newest workflow event, so it is
    // lastUpdate; JSON null output
    id: ID.lateRunning, name: 'alpha', namespace: 'com.acme.conformance', version: '1.10.0', status: 'COMPLETED',
    startDate: '2026-05-13T09:00:00.2Z', endDate: '2026-05-13T09:00:00.6Z', lastUpdate: '2026-05-13T09:00:05.7Z',
    inputData: { n: 1 }, outputData: null,
  }),
  instance({
    id: ID.suspended, name: 'Ärger', namespace: 'com.acme.conformance', version: '1.2.0', status: 'SUSPENDED',
    startDate: '2026-05-13T11:00:00.02Z', endDate: null, lastUpdate: '2026-05-13T11:00:00.060001Z',
    inputData: { reason: 'Ärger über Öl & Gebühren' },
  }),
  instance({
    id: ID.jsonNumbers, name: 'rate_100%', namespace: 'com.acme.conformance', version: '1.0.0', status: 'COMPLETED',
    startDate: '2026-05-13T12:00:00.2Z', endDate: '2026-05-13T12:00:00.6Z', lastUpdate: '2026-05-13T12:00:00.6Z',
    inputData: JSON_NUMBERS_INPUT,
    outputData: { status: 'ok', charged: 1012.5, receipt: { id: 'R-100%', tags: ['paid', '50%_off*?\\ok'] } },
  }),
  instance({
    // workflow.completed (endTime …00.3) is older than the status-changed COMPLETED (…00.4): endDate is the latter
    id: ID.jsonArrayRoot, name: 'rateX100Y', namespace: 'com.acme.conformance', version: '1.0.0-SNAPSHOT', status: 'COMPLETED',
    startDate: '2026-05-13T13:00:00.2Z', endDate: '2026-05-13T13:00:00.4Z', lastUpdate: '2026-05-13T13:00:00.4Z',
    inputData: [1, 'two', { three: 3 }], outputData: 'plain text ünïcode ✓ "quoted"',
  }),
  instance({
    id: ID.noNamespace, name: 'zeta', namespace: null, version: null, status: 'COMPLETED',
    startDate: '2026-05-13T14:00:00.1Z', endDate: '2026-05-13T14:00:00.2Z', lastUpdate: '2026-05-13T14:00:00.2Z',
    inputData: { amount: '1000' }, outputData: { done: true },
  }),
  instance({
    // startTime '1.778666400000001E9'; endTime '2026-05-13T10:00:01.999999Z'; newest timestamp 1778666402000 (epoch ms)
    id: ID.timeForms, name: '🚀launch', namespace: 'com.acme.conformance', version: '10.0.0', status: 'COMPLETED',
    startDate: '2026-05-13T10:00:00.000001Z', endDate: '2026-05-13T10:00:01.999999Z', lastUpdate: '2026-05-13T10:00:02Z',
    inputData: { launch: '🚀', count: 3 }, outputData: { ok: true },
  }),
  instance({
    // endTime '2026-05-14T00:00:00.6+09:00'; inputData from workflow.faulted (workflow.started has none)
    id: ID.faulted404, name: 'back\\slash', namespace: 'com.acme.conformance', version: '2.0*beta?', status: 'FAULTED',
    startDate: '2026-05-13T15:00:00.2Z', endDate: '2026-05-13T15:00:00.6Z', lastUpdate: '2026-05-13T15:00:00.6Z',
    inputData: { path: 'C:\\temp\\50%_off', retry: false },
    error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', status: 404, instance: 'do/0/lookup', title: 'Not Found', detail: null },
  }),
  instance({
    id: ID.fullwidth, name: 'ｆｕｌｌｗｉｄｔｈ', namespace: 'com.acme.Conformance', version: '9.0.0', status: 'CANCELLED',
    startDate: '2026-05-13T16:00:00.2Z', endDate: '2026-05-13T16:00:00.5Z', lastUpdate: '2026-05-13T16:00:00.5Z',
  }),
];

export const PAGING_INSTANCES: readonly ExpectedInstance[] = Array.from({ length: PAGING_COUNT }, (_, i) => {
  const start = servedFromSeconds(PAGING_BASE_SECONDS + pagingStartOffset(i));
  return instance({
    id: pagingId(i), name: 'paging', namespace: 'conformance.paging', version: '1.0.0', status: 'RUNNING',
    startDate: start, endDate: null, lastUpdate: start,
  });
});

/** Every served instance: fixtures, extras, paging (placeholders are never served). */
export const ALL_INSTANCES: readonly ExpectedInstance[] = [...FIXTURE_INSTANCES, ...EXTRA_INSTANCES, ...PAGING_INSTANCES];
export const PAGING_IDS: readonly string[] = PAGING_INSTANCES.map((i) => i.id);

const task = (
  fields: Omit<ExpectedTask, 'id' | 'inputData' | 'outputData' | 'error' | 'errorMessage' | 'taskName'> & Partial<ExpectedTask>,
): ExpectedTask => {
  const id = fields.id ?? `${fields.workflowInstanceId}:${fields.taskPosition.replaceAll('%', '%25').replaceAll('@', '%40')}`;  // the position escaped, as both backends do
  // A composite task's own position ends in its container segment (do/0/pickItems/do): those pass taskName.
  const taskName = fields.taskName ?? fields.taskPosition.slice(fields.taskPosition.lastIndexOf('/') + 1);
  return { inputData: null, outputData: null, error: null, errorMessage: fields.error?.title ?? null, ...fields, id, taskName };
};

/** Tasks of each served instance, in the chronological order nested `taskExecutions` must use. */
export const FIXTURE_TASKS: readonly ExpectedTask[] = [
  task({ workflowInstanceId: ID.orderIntake, taskPosition: 'do/0/validateOrder', status: 'COMPLETED', startDate: '2026-05-12T09:14:03.512566Z', endDate: '2026-05-12T09:14:03.512663Z' }),
  task({ workflowInstanceId: ID.orderIntake, taskPosition: 'do/1/reserveStock', status: 'COMPLETED', startDate: '2026-05-12T09:14:03.512698Z', endDate: '2026-05-12T09:14:03.515233Z' }),
  task({
    workflowInstanceId: ID.paymentCapture, taskPosition: 'do/0/loadInvoice', status: 'COMPLETED', startDate: '2026-05-12T09:14:03.513399Z', endDate: '2026-05-12T09:14:03.5157Z',
    inputData: payload(ID.paymentCapture, 'task.started', 'input', 'do/0/loadInvoice'),
    outputData: payload(ID.paymentCapture, 'task.completed', 'output', 'do/0/loadInvoice'),
  }),
  task({
    workflowInstanceId: ID.paymentCapture, taskPosition: 'do/1/chargeCard', status: 'FAULTED', startDate: '2026-05-12T09:14:03.516046Z', endDate: '2026-05-12T09:14:08.519458Z',
    inputData: payload(ID.paymentCapture, 'task.started', 'input', 'do/1/chargeCard'),
    error: errorOf(ID.paymentCapture, 'task.faulted', 'do/1/chargeCard'),
  }),
  task({ workflowInstanceId: ID.orderCancelled, taskPosition: 'do/0/validateOrder', status: 'COMPLETED', startDate: '2026-05-12T09:14:10.92998Z', endDate: '2026-05-12T09:14:10.931141Z' }),
  task({ workflowInstanceId: ID.orderCancelled, taskPosition: 'do/1/reserveStock', status: 'CANCELLED', startDate: '2026-05-12T09:14:10.931199Z', endDate: '2026-05-12T09:14:11.022169Z' }),
  task({ workflowInstanceId: ID.customerNotify, taskPosition: 'do/0/notifyAll/branch', taskName: 'notifyAll', status: 'COMPLETED', startDate: '2026-05-12T09:14:10.932091Z', endDate: '2026-05-12T09:14:11.227936Z' }),
  task({ workflowInstanceId: ID.customerNotify, taskPosition: 'do/0/notifyAll/branch/1/smsCustomer', status: 'COMPLETED', startDate: '2026-05-12T09:14:10.933501Z', endDate: '2026-05-12T09:14:11.083699Z' }),
  task({ workflowInstanceId: ID.customerNotify, taskPosition: 'do/0/notifyAll/branch/0/emailCustomer', status: 'COMPLETED', startDate: '2026-05-12T09:14:10.933518Z', endDate: '2026-05-12T09:14:11.227679Z' }),
  task({ workflowInstanceId: ID.customerNotify, taskPosition: 'do/1/markNotified', status: 'COMPLETED', startDate: '2026-05-12T09:14:11.228Z', endDate: '2026-05-12T09:14:11.228402Z' }),
  task({ workflowInstanceId: ID.orderFulfilment, taskPosition: 'do/0/pickItems/do', taskName: 'pickItems', status: 'COMPLETED', startDate: '2026-05-12T09:14:15.132858Z', endDate: '2026-05-12T09:14:15.155749Z' }),
  task({ workflowInstanceId: ID.orderFulfilment, taskPosition: 'do/0/pickItems/do/0/pickItem', status: 'COMPLETED', startDate: '2026-05-12T09:14:15.132949Z', endDate: '2026-05-12T09:14:15.133182Z' }),
  task({
    id: `${ID.orderFulfilment}:do/0/pickItems/do/0/pickItem@1778577255133240`,
    workflowInstanceId: ID.orderFulfilment, taskPosition: 'do/0/pickItems/do/0/pickItem', status: 'COMPLETED', startDate: '2026-05-12T09:14:15.13324Z', endDate: '2026-05-12T09:14:15.14611Z',
  }),
  task({
    id: `${ID.orderFulfilment}:do/0/pickItems/do/0/pickItem@1778577255146168`,
    workflowInstanceId: ID.orderFulfilment, taskPosition: 'do/0/pickItems/do/0/pickItem', status: 'COMPLETED', startDate: '2026-05-12T09:14:15.146168Z', endDate: '2026-05-12T09:14:15.155609Z',
  }),
  task({
    workflowInstanceId: ID.ledgerSync, taskPosition: 'do/0/syncLedger/try', taskName: 'syncLedger', status: 'COMPLETED', startDate: '2026-05-12T09:14:16.40636Z', endDate: '2026-05-12T09:14:18.487737Z',
    inputData: payload(ID.ledgerSync, 'task.started', 'input', 'do/0/syncLedger/try'),
    outputData: payload(ID.ledgerSync, 'task.completed', 'output', 'do/0/syncLedger/try'),
  }),
  task({
    // first attempt: opened by task.started, closed by task.faulted (FAILED)
    workflowInstanceId: ID.ledgerSync, taskPosition: 'do/0/syncLedger/try/0/postEntries', status: 'FAULTED', startDate: '2026-05-12T09:14:16.406437Z', endDate: '2026-05-12T09:14:16.445052Z',
    inputData: payload(ID.ledgerSync, 'task.started', 'input', 'do/0/syncLedger/try/0/postEntries'),
    error: errorOf(ID.ledgerSync, 'task.faulted', 'do/0/syncLedger/try/0/postEntries'),
  }),
  task({
    // second attempt: opened by task.retried (no payload), closed by task.completed
    id: `${ID.ledgerSync}:do/0/syncLedger/try/0/postEntries@1778577258446396`,
    workflowInstanceId: ID.ledgerSync, taskPosition: 'do/0/syncLedger/try/0/postEntries', status: 'COMPLETED', startDate: '2026-05-12T09:14:18.446396Z', endDate: '2026-05-12T09:14:18.487604Z',
    outputData: payload(ID.ledgerSync, 'task.completed', 'output', 'do/0/syncLedger/try/0/postEntries'),
  }),
  task({
    // task.started carried no input; task.faulted did
    workflowInstanceId: ID.addressNormalizer, taskPosition: 'do/0/normalizeAddress', status: 'FAULTED', startDate: '2026-05-12T09:14:19.300484Z', endDate: '2026-05-12T09:14:19.302601Z',
    inputData: payload(ID.addressNormalizer, 'task.faulted', 'input', 'do/0/normalizeAddress'),
    error: errorOf(ID.addressNormalizer, 'task.faulted', 'do/0/normalizeAddress'),
  }),
  task({ workflowInstanceId: ID.manualReview, taskPosition: 'do/0/scoreRisk', status: 'COMPLETED', startDate: '2026-05-12T09:14:21.943915Z', endDate: '2026-05-12T09:14:21.95137Z' }),
  task({ workflowInstanceId: ID.manualReview, taskPosition: 'do/1/notifyReviewer', status: 'COMPLETED', startDate: '2026-05-12T09:14:21.951431Z', endDate: '2026-05-12T09:14:22.066875Z' }),
  task({ workflowInstanceId: ID.manualReview, taskPosition: 'do/2/recordDecision', status: 'COMPLETED', startDate: '2026-05-12T09:15:09.384881Z', endDate: '2026-05-12T09:15:09.449973Z' }),
  task({ workflowInstanceId: ID.manualReview, taskPosition: 'do/3/publishResult', status: 'COMPLETED', startDate: '2026-05-12T09:15:09.450101Z', endDate: '2026-05-12T09:15:09.453978Z' }),
];

export const EXTRA_TASKS: readonly ExpectedTask[] = [
  task({ workflowInstanceId: ID.waiting, taskPosition: 'do/0/waitForApproval', status: 'RUNNING', startDate: '2026-05-13T08:00:00.0003Z', endDate: null }),
  // completion-only: no start, so it sorts after every started execution (nulls last)
  task({ workflowInstanceId: ID.waiting, taskPosition: 'do/1/lateCompletion', status: 'COMPLETED', startDate: null, endDate: '2026-05-13T08:00:00.0005Z' }),
  task({ workflowInstanceId: ID.lateRunning, taskPosition: 'do/0/work', status: 'COMPLETED', startDate: '2026-05-13T09:00:00.3Z', endDate: '2026-05-13T09:00:00.4Z', inputData: { n: 1 }, outputData: null }),
  task({ workflowInstanceId: ID.suspended, taskPosition: 'do/0/prepare', status: 'COMPLETED', startDate: '2026-05-13T11:00:00.03Z', endDate: '2026-05-13T11:00:00.04Z' }),
  task({
    workflowInstanceId: ID.jsonNumbers, taskPosition: 'do/0/price', status: 'COMPLETED', startDate: '2026-05-13T12:00:00.3Z', endDate: '2026-05-13T12:00:00.4Z',
    inputData: { amount: 1000, currency: 'EUR', express: false },
    outputData: { total: 1012.5, approved: true, lines: [{ sku: 'A-1', net: 1000 }, { sku: 'SHIP', net: 12.5 }] },
  }),
  // start '2026-05-13T05:00:00.5-05:00', end 1778666401100000 (epoch µs)
  task({ workflowInstanceId: ID.timeForms, taskPosition: 'do/0/stamp', status: 'COMPLETED', startDate: '2026-05-13T10:00:00.5Z', endDate: '2026-05-13T10:00:01.1Z' }),
  // start '1778666401200000500' ns → …200000 µs (half to even), end '1778666401300001500' ns → …300002 µs
  task({ workflowInstanceId: ID.timeForms, taskPosition: 'do/1/stampAgain', status: 'COMPLETED', startDate: '2026-05-13T10:00:01.2Z', endDate: '2026-05-13T10:00:01.300002Z' }),
  task({
    workflowInstanceId: ID.faulted404, taskPosition: 'do/0/lookup', status: 'FAULTED', startDate: '2026-05-13T15:00:00.3Z', endDate: '2026-05-13T15:00:00.4Z',
    inputData: { path: 'C:\\temp\\50%_off' },
    error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', status: 404, instance: 'do/0/lookup', title: 'Not Found', detail: null },
  }),
  task({ workflowInstanceId: ID.fullwidth, taskPosition: 'do/0/prepare', status: 'CANCELLED', startDate: '2026-05-13T16:00:00.3Z', endDate: '2026-05-13T16:00:00.6Z' }),
];

export const PAGING_TASKS: readonly ExpectedTask[] = Array.from({ length: PAGING_COUNT }, (_, i) => {
  const start = PAGING_BASE_SECONDS + pagingStartOffset(i);
  return task({
    workflowInstanceId: pagingId(i), taskPosition: 'do/0/step', status: 'COMPLETED',
    startDate: servedFromSeconds(start + 0.5), endDate: servedFromSeconds(start + 0.75),
  });
});

export const ALL_TASKS: readonly ExpectedTask[] = [...FIXTURE_TASKS, ...EXTRA_TASKS, ...PAGING_TASKS];

export function instanceById(id: string): ExpectedInstance {
  const found = ALL_INSTANCES.find((i) => i.id === id);
  if (!found) throw new Error(`no expected instance ${id}`);
  return found;
}

export function taskById(id: string): ExpectedTask {
  const found = ALL_TASKS.find((t) => t.id === id);
  if (!found) throw new Error(`no expected task ${id}`);
  return found;
}

/** The tasks of one instance in the nested (chronological) order. */
export function tasksOf(instanceId: string): ExpectedTask[] {
  return ALL_TASKS.filter((t) => t.workflowInstanceId === instanceId);
}
