// Events of small synthetic runs for the live-update tests and the push benchmark: what a workflow application prints
// for a run that starts, runs a task and ends, with timestamps in epoch seconds as Quarkus Flow prints them.
import type { Event } from './event-rows.js';
import type { TestIssuerOptions } from './oidc/types.js';
import type { TestAccessRule } from './oidc/sign-in-settings.js';

export interface LiveRunNames {
  readonly name?: string;
  readonly namespace?: string;
}

const WORKFLOW = 'io.serverlessworkflow.workflow';
const TASK = 'io.serverlessworkflow.task';

/** Epoch seconds with microseconds, `ms` milliseconds after a fixed base (so runs order by the step given). */
export function liveTime(ms: number): number {
  return 1_778_577_243 + ms / 1000;
}

export function runStarted(id: string, atMs: number, names: LiveRunNames = {}): Event {
  return {
    instanceId: id, eventType: `${WORKFLOW}.started.v1`, workflowName: names.name ?? 'live-flow', workflowNamespace: names.namespace ?? 'com.acme.live',
    workflowVersion: '1.0.0', startTime: liveTime(atMs), timestamp: liveTime(atMs), status: 'RUNNING', input: { n: 1 },
  };
}

export function taskStarted(id: string, position: string, atMs: number): Event {
  const taskName = position.split('/').at(-1) ?? position;
  return { instanceId: id, eventType: `${TASK}.started.v1`, taskExecutionId: `${id}-${position}-s`, taskPosition: position, taskName, startTime: liveTime(atMs), timestamp: liveTime(atMs), status: 'RUNNING' };
}

export function taskCompleted(id: string, position: string, atMs: number): Event {
  const taskName = position.split('/').at(-1) ?? position;
  return { instanceId: id, eventType: `${TASK}.completed.v1`, taskExecutionId: `${id}-${position}-c`, taskPosition: position, taskName, endTime: liveTime(atMs), timestamp: liveTime(atMs), status: 'COMPLETED' };
}

export function runCompleted(id: string, atMs: number): Event {
  return { instanceId: id, eventType: `${WORKFLOW}.completed.v1`, endTime: liveTime(atMs), timestamp: liveTime(atMs), status: 'COMPLETED', output: { ok: true } };
}

export function runFaulted(id: string, atMs: number): Event {
  return { instanceId: id, eventType: `${WORKFLOW}.faulted.v1`, endTime: liveTime(atMs), timestamp: liveTime(atMs), status: 'FAULTED', error: { type: 'test', title: 'failed', status: 500 } };
}

/** The selection the live tests subscribe with. */
export const LIVE_RUN_FIELDS = 'id name namespace status lastUpdate taskExecutions { taskPosition status }';

export interface LiveRun {
  readonly id: string;
  readonly name: string;
  readonly namespace: string | null;
  readonly status: string;
  readonly lastUpdate: string | null;
  readonly taskExecutions: readonly { readonly taskPosition: string; readonly status: string }[];
}

export function liveSubscription(fields = LIVE_RUN_FIELDS): string {
  return `subscription Live($filter: WorkflowInstanceFilterInput) { workflowInstanceChanged(filter: $filter) { ${fields} } }`;
}

/** The sign-in of the live-update tests: `acme` sees the runs of com.acme.live (where runStarted puts them), `other` those of com.other. */
export const LIVE_SIGN_IN: TestIssuerOptions & { readonly rules: readonly TestAccessRule[] } = {
  audience: 'https://workflow-index.test/graphql',
  clients: [
    { id: 'acme', secret: 'acme-secret', groups: ['acme'] },
    { id: 'other', secret: 'other-secret', groups: ['other'] },
  ],
  rules: [
    { group: 'acme', namespaces: ['com.acme.live'], payloads: false },
    { group: 'other', namespaces: ['com.other'], payloads: false },
  ],
};
