// The GraphQL side of the end-to-end suites: read everything the server serves and compare it, field by field,
// with what the printed events imply. Both the kind suite and the local pipeline suite use these, so the two
// assert exactly the same things.
import { expect } from 'vitest';
import { graphqlData } from '@workflow-index/testkit';
import { EXPECTED_INSTANCES, EXPECTED_TASKS } from './expected-index.js';
import type { WorkflowEvent } from './workflow-app-output.js';

const ERROR_FIELDS = 'type title detail status instance';
const TASK_FIELDS = `id workflowInstanceId taskName taskPosition status startDate endDate inputData outputData error { ${ERROR_FIELDS} }`;

export const INDEX_QUERY = `query WholeIndex {
  getWorkflowInstances(limit: 1000, orderBy: {id: ASC}) {
    id name namespace version status startDate endDate lastUpdate inputData outputData error { ${ERROR_FIELDS} }
    taskExecutions { ${TASK_FIELDS} }
  }
  getTaskExecutions(limit: 1000, orderBy: {id: ASC}) { ${TASK_FIELDS} }
}`;

export interface ServedError {
  readonly type: string | null;
  readonly title: string | null;
  readonly detail: string | null;
  readonly status: number | null;
  readonly instance: string | null;
}

export interface ServedTask {
  readonly id: string;
  readonly workflowInstanceId: string;
  readonly taskName: string;
  readonly taskPosition: string;
  readonly status: string;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly inputData: string | null;
  readonly outputData: string | null;
  readonly error: ServedError | null;
}

export interface ServedInstance {
  readonly id: string;
  readonly name: string;
  readonly namespace: string | null;
  readonly version: string | null;
  readonly status: string;
  readonly startDate: string | null;
  readonly endDate: string | null;
  readonly lastUpdate: string | null;
  readonly inputData: string | null;
  readonly outputData: string | null;
  readonly error: ServedError | null;
  readonly taskExecutions: readonly ServedTask[];
}

export interface ServedIndex {
  readonly instances: readonly ServedInstance[];
  readonly tasks: readonly ServedTask[];
}

export async function readServedIndex(baseUrl: string): Promise<ServedIndex> {
  const data = await graphqlData<{ getWorkflowInstances: ServedInstance[]; getTaskExecutions: ServedTask[] }>(baseUrl, INDEX_QUERY, undefined, AbortSignal.timeout(10_000));
  return { instances: data.getWorkflowInstances, tasks: data.getTaskExecutions };
}

/** Polls until the served index has the expected numbers of instances and tasks (or the time is up). */
export async function waitForServedIndex(baseUrl: string, timeoutMs: number, done: (index: ServedIndex) => boolean = isComplete): Promise<ServedIndex> {
  const deadline = Date.now() + timeoutMs;
  let last: ServedIndex | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await readServedIndex(baseUrl);
      if (done(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  if (last) return last;
  throw new Error(`no answer from ${baseUrl} within ${timeoutMs} ms: ${String(lastError)}`);
}

export function isComplete(index: ServedIndex): boolean {
  return index.instances.length >= EXPECTED_INSTANCES.length
    && index.tasks.length >= EXPECTED_TASKS.length
    && index.instances.every((i) => i.status !== 'RUNNING' && i.status !== 'SUSPENDED');
}

/**
 * A served timestamp with exactly six fraction digits, so values compare to the microsecond whatever number of
 * trailing zeros the server prints (`…03.51595Z` and `…03.515950Z` are the same instant); more than six digits or
 * anything but UTC `Z` is kept as is and fails the comparison.
 */
export function toMicros(text: string | null): string | null {
  if (text === null) return null;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/.exec(text);
  return m ? `${m[1]}.${(m[2] ?? '').padEnd(6, '0')}Z` : text;
}

function parsed(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

function find(events: readonly WorkflowEvent[], instanceId: string, type: string, position?: string): WorkflowEvent | undefined {
  const matches = events.filter((e) => e.instanceId === instanceId && e.eventType.endsWith(`.${type}.v1`) && (position === undefined || e['taskPosition'] === position));
  if (matches.length > 1) throw new Error(`${matches.length} ${type} events for ${instanceId} ${position ?? ''}`);
  return matches[0];
}

/**
 * Asserts the served index is exactly the reference stream's: the 8 instances and 22 task executions, no more
 * (nothing duplicated) and no less (nothing lost), with statuses, times, payloads and errors as printed.
 */
export function expectServedIndexMatches(index: ServedIndex, events: readonly WorkflowEvent[]): void {
  expect(index.instances.map((i) => i.id)).toEqual(EXPECTED_INSTANCES.map((i) => i.id));
  expect([...index.tasks].map((t) => t.id).sort()).toEqual(EXPECTED_TASKS.map((t) => t.id).sort());

  for (const expected of EXPECTED_INSTANCES) {
    const served = index.instances.find((i) => i.id === expected.id)!;
    const started = find(events, expected.id, 'workflow.started')!;
    const completed = find(events, expected.id, 'workflow.completed');
    const faulted = find(events, expected.id, 'workflow.faulted');
    const times = { startDate: toMicros(served.startDate), endDate: toMicros(served.endDate), lastUpdate: toMicros(served.lastUpdate) };
    expect({ ...served, ...times, taskExecutions: undefined, inputData: undefined, outputData: undefined }, expected.id).toEqual({
      id: expected.id,
      name: expected.name,
      namespace: expected.namespace,
      version: expected.version,
      status: expected.status,
      startDate: expected.startDate,
      endDate: expected.endDate,
      lastUpdate: expected.endDate,
      error: faulted ? (faulted['error'] as ServedError) : null,
      taskExecutions: undefined,
      inputData: undefined,
      outputData: undefined,
    });
    expect(parsed(served.inputData), `${expected.id} inputData`).toEqual(started['input'] ?? null);
    expect(parsed(served.outputData), `${expected.id} outputData`).toEqual(completed?.['output'] ?? null);

    const tasks = EXPECTED_TASKS.filter((t) => t.instanceId === expected.id);
    const chronological = [...tasks].sort((a, b) => (a.startDate < b.startDate ? -1 : a.startDate > b.startDate ? 1 : 0));
    expect(served.taskExecutions.map((t) => t.id), `${expected.id} taskExecutions`).toEqual(chronological.map((t) => t.id));
  }

  for (const expected of EXPECTED_TASKS) {
    const served = index.tasks.find((t) => t.id === expected.id)!;
    expect(
      [served.workflowInstanceId, served.taskName, served.taskPosition, served.status, toMicros(served.startDate), toMicros(served.endDate)],
      expected.id,
    ).toEqual([expected.instanceId, expected.taskName, expected.taskPosition, expected.status, expected.startDate, expected.endDate]);
    const nested = index.instances.find((i) => i.id === expected.instanceId)!.taskExecutions.find((t) => t.id === expected.id);
    expect(nested, `${expected.id} nested`).toEqual(served);
  }

  // Payloads and errors of task executions, as the events carried them.
  const byId = new Map(index.tasks.map((t) => [t.id, t]));
  const billing = '01KRDQDZBS8TBDWA72Q1575QHY';
  const loadInvoice = byId.get(`${billing}:do/0/loadInvoice`)!;
  expect(parsed(loadInvoice.inputData)).toEqual(find(events, billing, 'task.started', 'do/0/loadInvoice')!['input']);
  expect(parsed(loadInvoice.outputData)).toEqual(find(events, billing, 'task.completed', 'do/0/loadInvoice')!['output']);
  const chargeCard = byId.get(`${billing}:do/1/chargeCard`)!;
  expect(chargeCard.error).toEqual(find(events, billing, 'task.faulted', 'do/1/chargeCard')!['error']);
  expect(chargeCard.outputData).toBeNull();
  const retry = '01KRDQEBYPFN9AZM0BE5K9B295:do/0/syncLedger/try/0/postEntries';
  expect(byId.get(retry)!.error).toMatchObject({ status: 500, instance: 'do/0/syncLedger/try/0/postEntries' });
  expect(byId.get(`${retry}@1778577258446396`)!.error).toBeNull();
  expect(parsed(byId.get(`${retry}@1778577258446396`)!.outputData))
    .toEqual(find(events, '01KRDQEBYPFN9AZM0BE5K9B295', 'task.completed', 'do/0/syncLedger/try/0/postEntries')!['output']);
  const javaFault = byId.get('01KRDQEES4VBNTZWX89D86KWZJ:do/0/normalizeAddress')!;
  expect(javaFault.error).toMatchObject({ type: 'java.lang.IllegalArgumentException', status: 500, instance: 'do/0/normalizeAddress' });
  expect(parsed(byId.get('01KRDQDZBR7492YQWM736PEENJ:do/0/validateOrder')!.inputData)).toBeNull();
}
