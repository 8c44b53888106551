// What the dev-mode suites of both backends check of the demo data, relative to the base the server logged (the
// start, to the whole second): the newest event shortly before it, a run still running, runs of the last day, and a
// loop whose iterations carry input and output. Exact values relative to the base; the lag only bounded (a loaded
// machine may take long to start).
import {
  DEMO_LOOP_INSTANCE, DEMO_LOOP_ITERATION_POSITION, DEMO_NEWEST_EVENT_OFFSET_S, DEMO_RUNNING_INSTANCE, DEMO_RUNNING_OFFSET_S,
} from '@workflow-index/events';
import { graphqlData } from './graphql-request.js';

/** The reference runs, newest first (the list's order). */
export const DEMO_REFERENCE_INSTANCES = [
  '01KRDQEHBQF7VKFR571KEFRHM5', '01KRDQEES4VBNTZWX89D86KWZJ', '01KRDQEBYPFN9AZM0BE5K9B295', '01KRDQEAPWDTERF1SDDX5A5SQV',
  '01KRDQE6KKA9476X0RVHQ1S7AE', '01KRDQE6KHQGTG2RA2Q0X3ED0J', '01KRDQDZBS8TBDWA72Q1575QHY', '01KRDQDZBR7492YQWM736PEENJ',
] as const;

/** Every demo run, newest first: the running run, then the reference runs. */
export const DEMO_INSTANCES: readonly string[] = [DEMO_RUNNING_INSTANCE, ...DEMO_REFERENCE_INSTANCES];

/** The base a dev-mode server logged: `"base":"<ISO>"` (PostgreSQL's JSON log) or `placed before <ISO>` (OpenSearch). */
export function loggedDemoBaseMs(output: string): number {
  const match = /"base":"([^"]+)"|placed before (\S+?Z)\b/.exec(output);
  if (match === null) throw new Error(`no demo base in the output:\n${output}`);
  return Date.parse(match[1] ?? match[2] ?? '');
}

export interface DemoFreshness {
  /** The newest event is the running run's: its last task event or (where only workflow events count) its start. */
  readonly newestEventOfRunningRun: boolean;
  readonly lagAtLeastNewestOffset: boolean;
  readonly lagUnderAnHour: boolean;
  readonly running: readonly string[];
  readonly startedInLastDay: readonly string[];
  readonly loopIterations: readonly { readonly status: string; readonly input: unknown; readonly output: unknown }[];
}

interface Instance { id: string; status: string; taskExecutions?: { taskPosition: string; status: string; inputData: string | null; outputData: string | null }[] }

export async function demoFreshness(baseUrl: string, baseMs: number): Promise<DemoFreshness> {
  const dayAgo = new Date(baseMs - 24 * 3600_000).toISOString();
  const data = await graphqlData(baseUrl, `{
    indexStatus { newestEventTime lagSeconds }
    all: getWorkflowInstances { id status }
    lastDay: getWorkflowInstances(filter: {startDate: {gte: "${dayAgo}"}}) { id }
    loop: getWorkflowInstance(id: "${DEMO_LOOP_INSTANCE}") { id status taskExecutions { taskPosition status inputData outputData } }
  }`) as { indexStatus: { newestEventTime: string; lagSeconds: number }; all: Instance[]; lastDay: { id: string }[]; loop: Instance };
  const lag = data.indexStatus.lagSeconds;
  return {
    newestEventOfRunningRun: [DEMO_NEWEST_EVENT_OFFSET_S, DEMO_RUNNING_OFFSET_S].includes(Math.round((baseMs - Date.parse(data.indexStatus.newestEventTime)) / 1000)),
    lagAtLeastNewestOffset: lag >= DEMO_NEWEST_EVENT_OFFSET_S,
    lagUnderAnHour: lag < 3600,
    running: data.all.filter((i) => i.status === 'RUNNING').map((i) => i.id),
    startedInLastDay: data.lastDay.map((i) => i.id),
    loopIterations: (data.loop.taskExecutions ?? []).filter((t) => t.taskPosition === DEMO_LOOP_ITERATION_POSITION).map((t) => ({
      status: t.status,
      input: t.inputData === null ? null : (JSON.parse(t.inputData) as unknown),
      output: t.outputData === null ? null : (JSON.parse(t.outputData) as unknown),
    })),
  };
}

/** What demoFreshness gives on a freshly loaded demo. */
export function expectedDemoFreshness(): DemoFreshness {
  const input = { orderId: 'ORD-7F3A-0040', lineItems: [{ sku: 'BK-101', bin: 'A-01-3' }, { sku: 'MG-007', bin: 'C-12-1' }, { sku: 'TB-3', bin: 'F-02-9' }] };
  const after = (n: number): unknown => ({ orderId: 'ORD-7F3A-0040', lastPicked: input.lineItems[n - 1], picked: input.lineItems.slice(0, n).map((i) => i.sku) });
  return {
    newestEventOfRunningRun: true,
    lagAtLeastNewestOffset: true,
    lagUnderAnHour: true,
    running: [DEMO_RUNNING_INSTANCE],
    startedInLastDay: DEMO_INSTANCES,
    loopIterations: [
      { status: 'COMPLETED', input, output: after(1) },
      { status: 'COMPLETED', input: after(1), output: after(2) },
      { status: 'COMPLETED', input: after(2), output: after(3) },
    ],
  };
}
