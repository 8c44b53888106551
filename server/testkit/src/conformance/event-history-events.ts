// The events of the event-history suite (event-history-suite.ts) and the histories both backends must serve for
// them. Pure constants, listed in an arrival order that is not time order; every duplicate below is a second delivery
// of the same event (a re-read line), which the loaders send with another record time.
//   history-duplicate  a finished run; its workflow.started and one task.started delivered twice: each shown once
//   history-stuck      RUNNING because its workflow.completed carries timestamp 'yesterday' (rejected, delivered twice:
//                      shown once, last, time null, with the reason); a task event with a numeric taskPosition,
//                      rejected but with a readable time (placed by it); workflow.started and status-changed share
//                      an instant (type order)
//   history-loop       a loop of 12 iterations at one position and three starts at one instant: the paging property
//   history-outside    a run of another namespace, with a rejected event: invisible to the team's subject
export const HISTORY_NAMESPACE = 'org.acme.history';
export const OTHER_NAMESPACE = 'org.other.team';

const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';

type Event = Readonly<Record<string, unknown>>;

const status = (instanceId: string, value: string, timestamp: string | number): Event => ({ instanceId, eventType: `${WF}status-changed.v1`, timestamp, status: value, lastUpdateTime: timestamp });
const started = (instanceId: string, timestamp: string | number, namespace: string, input: unknown): Event => ({
  instanceId, eventType: `${WF}started.v1`, timestamp, workflowName: 'history', workflowNamespace: namespace, workflowVersion: '1.0', status: 'RUNNING', startTime: timestamp, input,
});
const completed = (instanceId: string, timestamp: string | number, output: unknown): Event => ({ instanceId, eventType: `${WF}completed.v1`, timestamp, status: 'COMPLETED', endTime: timestamp, output });
const task = (action: 'started' | 'completed', instanceId: string, taskPosition: unknown, timestamp: string | number, extra: Record<string, unknown> = {}): Event => ({
  instanceId, eventType: `${TASK}${action}.v1`, timestamp, taskPosition,
  ...(typeof taskPosition === 'string' ? { taskName: taskPosition.replace(/^.*\//, '') } : {}),
  status: action === 'started' ? 'RUNNING' : 'COMPLETED',
  ...(action === 'started' ? { startTime: timestamp } : { endTime: timestamp }),
  ...extra,
});

const DUP = 'history-duplicate';
const DUP_STARTED = started(DUP, '2026-06-01T10:00:00.0001Z', HISTORY_NAMESPACE, { order: 7 });
const DUP_TASK = task('started', DUP, 'do/0/reserve', '2026-06-01T10:00:01Z', { input: { order: 7 } });

const STUCK = 'history-stuck';
const STUCK_COMPLETED = completed(STUCK, 'yesterday', { charged: true });

const LOOP = 'history-loop';
const LOOP_BASE = Date.parse('2026-06-01T11:00:00Z');
const at = (ms: number): string => new Date(LOOP_BASE + ms).toISOString();
const LOOP_EVENTS: Event[] = [
  started(LOOP, at(0), HISTORY_NAMESPACE, { items: 12 }),
  ...Array.from({ length: 12 }, (_, i) => [
    task('completed', LOOP, 'do/0/each', at(1000 * i + 1500), { output: { i } }),
    task('started', LOOP, 'do/0/each', at(1000 * i + 1000), { input: { i } }),
  ]).flat(),
  ...['c', 'a', 'b'].map((name) => task('started', LOOP, `do/1/${name}`, at(20_000))),
  completed(LOOP, at(30_000), { done: 12 }),
];

const OUTSIDE = 'history-outside';

export const HISTORY_EVENTS: readonly Event[] = Object.freeze([
  task('completed', DUP, 'do/0/reserve', '2026-06-01T10:00:02Z', { output: { ok: true } }),
  DUP_TASK,
  DUP_STARTED,
  status(DUP, 'RUNNING', '2026-06-01T10:00:00Z'),
  completed(DUP, '2026-06-01T10:00:03Z', { done: true }),
  DUP_TASK,
  DUP_STARTED,
  STUCK_COMPLETED,
  status(STUCK, 'RUNNING', '2026-06-01T10:00:00Z'),
  started(STUCK, '2026-06-01T10:00:00Z', HISTORY_NAMESPACE, { amount: 12.5 }),
  task('started', STUCK, 'do/0/charge', 1780308001.25),
  task('completed', STUCK, 'do/0/charge', '2026-06-01T10:00:02+02:00'),
  task('started', STUCK, 42, '2026-06-01T08:00:02.5Z'),
  STUCK_COMPLETED,
  ...LOOP_EVENTS,
  started(OUTSIDE, '2026-06-01T09:00:00Z', OTHER_NAMESPACE, { secret: 1 }),
  completed(OUTSIDE, 'not a time', null),
]);

/** A served event without `data` and `cursor`. */
export interface ExpectedEvent {
  readonly type: string;
  readonly time: string | null;
  readonly taskPosition: string | null;
  readonly taskName: string | null;
  readonly accepted: boolean;
  readonly rejection: string | null;
}

const accepted = (type: string, time: string, taskPosition: string | null = null): ExpectedEvent => ({
  type, time, taskPosition, taskName: taskPosition === null ? null : taskPosition.replace(/^.*\//, ''), accepted: true, rejection: null,
});

export const EXPECTED_HISTORIES: Readonly<Record<string, readonly ExpectedEvent[]>> = {
  [DUP]: [
    accepted(`${WF}status-changed.v1`, '2026-06-01T10:00:00Z'),
    accepted(`${WF}started.v1`, '2026-06-01T10:00:00.0001Z'),
    accepted(`${TASK}started.v1`, '2026-06-01T10:00:01Z', 'do/0/reserve'),
    accepted(`${TASK}completed.v1`, '2026-06-01T10:00:02Z', 'do/0/reserve'),
    accepted(`${WF}completed.v1`, '2026-06-01T10:00:03Z'),
  ],
  [STUCK]: [
    // +02:00: 08:00:02 UTC, before the run's start in event time (the history shows event time, not arrival).
    accepted(`${TASK}completed.v1`, '2026-06-01T08:00:02Z', 'do/0/charge'),
    { type: `${TASK}started.v1`, time: '2026-06-01T08:00:02.5Z', taskPosition: null, taskName: null, accepted: false, rejection: 'taskPosition must be a string, got number' },
    // One instant: by type (`…workflow.started…` before `…workflow.status-changed…`).
    accepted(`${WF}started.v1`, '2026-06-01T10:00:00Z'),
    accepted(`${WF}status-changed.v1`, '2026-06-01T10:00:00Z'),
    accepted(`${TASK}started.v1`, '2026-06-01T10:00:01.25Z', 'do/0/charge'),
    // Its time cannot be read: last.
    { type: `${WF}completed.v1`, time: null, taskPosition: null, taskName: null, accepted: false, rejection: 'timestamp "yesterday" is not a valid time' },
  ],
};

export const HISTORY_RUNS = { duplicate: DUP, stuck: STUCK, loop: LOOP, outside: OUTSIDE } as const;
/** The loop run's history length: started, 12 × (started, completed), 3 starts at one instant, completed. */
export const LOOP_HISTORY_LENGTH = 1 + 24 + 3 + 1;
/** What a stored event's `data` is: the event as the producer printed it (the suite's events have no forwarder fields). */
export const DUPLICATE_STARTED_EVENT: Event = DUP_STARTED;
