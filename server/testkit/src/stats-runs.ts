// Runs for the statistics tests, written as a compact spec and turned into (a) the producer events both backends
// ingest through their real paths and (b) the records the oracle (stats-oracle.ts) computes the expected answers from.
import { createHash } from 'node:crypto';
import { formatMicros, parseDateTimeToMicros } from '@workflow-index/core';
import type { TaskExecutionRecord, WorkflowInstanceRecord, WorkflowInstanceStatus } from '@workflow-index/core';

export interface StatsRunSpec {
  readonly id: string;
  readonly name: string;
  readonly namespace?: string;
  readonly version?: string;
  readonly status: WorkflowInstanceStatus;
  /** ISO-8601 UTC with six fractional digits. */
  readonly start: string;
  /** Duration in whole µs (finished statuses only: COMPLETED, FAULTED, CANCELLED). */
  readonly durationMicros?: number;
  readonly error?: { readonly type?: string; readonly title?: string; readonly status?: number };
  /** Task positions (do/<k>/<name>) and whether each failed; each runs 10 µs after the run starts. */
  readonly tasks?: readonly { readonly position: string; readonly faulted: boolean }[];
}

const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';
const FINISHED: ReadonlySet<WorkflowInstanceStatus> = new Set(['COMPLETED', 'FAULTED', 'CANCELLED']);

const plus = (iso: string, micros: number): string => formatMicros(parseDateTimeToMicros(iso) + BigInt(micros));
const endOf = (run: StatsRunSpec): string | null => (FINISHED.has(run.status) && run.durationMicros !== undefined ? plus(run.start, run.durationMicros) : null);

function executionId(instanceId: string, position: string, at: string): string {
  return createHash('md5').update(`${instanceId}:${position}:${at}`).digest('hex');
}

function errorOf(run: StatsRunSpec): Record<string, unknown> | undefined {
  if (run.error === undefined) return undefined;
  return Object.fromEntries(Object.entries(run.error).filter(([, v]) => v !== undefined));
}

/** The producer events of the runs (workflow.started, the terminal or status event, each task's start and end). */
export function statsRunEvents(runs: readonly StatsRunSpec[]): Record<string, unknown>[] {
  return runs.flatMap((run) => {
    const events: Record<string, unknown>[] = [
      {
        instanceId: run.id,
        eventType: `${WF}started.v1`,
        workflowName: run.name,
        ...(run.namespace === undefined ? {} : { workflowNamespace: run.namespace }),
        ...(run.version === undefined ? {} : { workflowVersion: run.version }),
        startTime: run.start,
        timestamp: run.start,
        status: 'RUNNING',
      },
    ];
    for (const [k, task] of (run.tasks ?? []).entries()) {
      const at = plus(run.start, 10 + k * 10);
      const done = plus(run.start, 15 + k * 10);
      const name = task.position.slice(task.position.lastIndexOf('/') + 1);
      events.push({ instanceId: run.id, taskExecutionId: executionId(run.id, task.position, at), taskPosition: task.position, taskName: name, eventType: `${TASK}started.v1`, startTime: at, timestamp: at, status: 'RUNNING' });
      events.push({
        instanceId: run.id, taskExecutionId: executionId(run.id, task.position, done), taskPosition: task.position, taskName: name,
        eventType: `${TASK}${task.faulted ? 'faulted' : 'completed'}.v1`, endTime: done, timestamp: done, status: task.faulted ? 'FAILED' : 'COMPLETED',
        ...(task.faulted ? { error: { type: 'task-error', title: 'failed' } } : {}),
      });
    }
    const end = endOf(run);
    const last = end ?? plus(run.start, 1);
    if (run.status === 'COMPLETED') events.push({ instanceId: run.id, eventType: `${WF}completed.v1`, endTime: end, timestamp: end, status: 'COMPLETED' });
    if (run.status === 'FAULTED') events.push({ instanceId: run.id, eventType: `${WF}faulted.v1`, endTime: end, timestamp: end, status: 'FAULTED', ...(errorOf(run) === undefined ? {} : { error: errorOf(run) }) });
    if (run.status === 'CANCELLED') events.push({ instanceId: run.id, eventType: `${WF}cancelled.v1`, endTime: end, timestamp: end, status: 'CANCELLED' });
    if (run.status === 'SUSPENDED') events.push({ instanceId: run.id, eventType: `${WF}suspended.v1`, timestamp: last, status: 'SUSPENDED' });
    return events;
  });
}

/** The runs as the backends serve them (what the oracle reads). */
export function statsRunRecords(runs: readonly StatsRunSpec[]): WorkflowInstanceRecord[] {
  return runs.map((run) => {
    const end = endOf(run);
    const error = errorOf(run);
    return {
      id: run.id, name: run.name, namespace: run.namespace ?? null, version: run.version ?? null, status: run.status,
      startDate: run.start, endDate: end, lastUpdate: end ?? (run.status === 'SUSPENDED' ? plus(run.start, 1) : run.start),
      error: error === undefined ? null : { type: run.error?.type ?? null, title: run.error?.title ?? null, detail: null, status: run.error?.status ?? null, instance: null },
    };
  });
}

/** The task executions of the runs, each with its run's name (what the oracle's topFailingTasks reads). */
export function statsTaskRecords(runs: readonly StatsRunSpec[]): (TaskExecutionRecord & { workflowName: string })[] {
  return runs.flatMap((run) =>
    (run.tasks ?? []).map((task, k) => ({
      id: `${run.id}:${task.position}`, workflowInstanceId: run.id, taskName: task.position.slice(task.position.lastIndexOf('/') + 1), taskPosition: task.position,
      status: task.faulted ? 'FAULTED' : 'COMPLETED', startDate: plus(run.start, 10 + k * 10), endDate: plus(run.start, 15 + k * 10), error: null, workflowName: run.name,
    })),
  );
}
