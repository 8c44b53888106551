// For the live suites: events of a small run timed around now (ISO timestamps, as a workflow application prints
// them), and the page's /graphql requests split into queries and subscription streams (by their Accept header).
import type { Page, Request } from 'playwright-core';
import { expect } from 'vitest';

type Event = Readonly<Record<string, unknown>>;
const WF = 'io.serverlessworkflow.workflow.';
const TASK = 'io.serverlessworkflow.task.';

export const nowIso = (offsetMs = 0): string => new Date(Date.now() + offsetMs).toISOString();

export function started(id: string, at: string, name = 'live-console'): Event {
  return { instanceId: id, eventType: `${WF}started.v1`, workflowName: name, workflowNamespace: 'com.acme.live', workflowVersion: '1.0.0', startTime: at, timestamp: at, status: 'RUNNING', input: { n: 1 } };
}

export function task(id: string, action: 'started' | 'completed', position: string, at: string): Event {
  const taskName = position.split('/').at(-1) ?? position;
  const time = action === 'started' ? { startTime: at } : { endTime: at };
  return { instanceId: id, eventType: `${TASK}${action}.v1`, taskExecutionId: `${id}-${position}-${action}`, taskPosition: position, taskName, ...time, timestamp: at, status: action === 'started' ? 'RUNNING' : 'COMPLETED' };
}

export function completed(id: string, at: string): Event {
  return { instanceId: id, eventType: `${WF}completed.v1`, endTime: at, timestamp: at, status: 'COMPLETED', output: { ok: true } };
}

export interface GraphqlLog {
  /** Operation names of the queries sent (not the subscription streams). */
  readonly queries: string[];
  /** How many subscription streams were opened. */
  streams: number;
  /** Queries sent and not answered yet. */
  pending: number;
}

/** Records the page's /graphql requests from now on. */
export function logGraphql(page: Page): GraphqlLog {
  const log: GraphqlLog = { queries: [], streams: 0, pending: 0 };
  const isQuery = (request: Request): boolean => request.url().endsWith('/graphql') && !(request.headers()['accept'] ?? '').includes('text/event-stream');
  page.on('request', (request) => {
    if (!request.url().endsWith('/graphql')) return;
    if (!isQuery(request)) log.streams += 1;
    else {
      log.pending += 1;
      log.queries.push(/(?:query|mutation)\s+(\w+)/.exec(request.postData() ?? '')?.[1] ?? 'anonymous');
    }
  });
  const answered = (request: Request): void => {
    if (isQuery(request)) log.pending -= 1;
  };
  page.on('requestfinished', answered);
  page.on('requestfailed', answered);
  return log;
}

/**
 * Waits until none of the page's queries is in flight, then forgets those sent so far: what the log holds afterwards
 * was asked after this point (a query sent earlier can no longer answer with what happens next).
 */
export async function settleGraphqlLog(log: GraphqlLog): Promise<void> {
  await expect.poll(() => log.pending).toBe(0);
  log.queries.length = 0;
}
