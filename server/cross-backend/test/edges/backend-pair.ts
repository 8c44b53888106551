// Support of the cross-backend edge tests: the same event lines into a fresh PostgreSQL database and a fresh OpenSearch prefix, each behind the
// real app (support/backend-pair.ts), and a way to send one GraphQL request to both.
import type { GraphQLResult, Variables } from '@workflow-index/testkit';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { type Pair, type Side, loadPair } from '../support/backend-pair.js';
import { createTestNamespace, openSearchReachable } from '@workflow-index/opensearch/testing';

export const bothAvailable = async (): Promise<boolean> => (await openSearchReachable()) && (await postgresReachable());

export interface BackendPair {
  readonly postgresql: Side;
  readonly opensearch: Side;
  send(query: string, variables?: Variables): Promise<{ postgresql: GraphQLResult; opensearch: GraphQLResult }>;
  close(): Promise<void>;
}

/** A pair (support/backend-pair.ts) in a test namespace of its own, dropped with it. */
export async function loadBackendPair(name: string, lines: readonly string[]): Promise<BackendPair> {
  const ns = createTestNamespace();
  let pair: Pair;
  try {
    pair = await loadPair(ns, name, lines, 'wi_review');
  } catch (error) {
    await ns.drop();
    throw error;
  }
  const { postgresql, opensearch } = pair;
  return {
    postgresql,
    opensearch,
    async send(query, variables) {
      const [p, o] = await Promise.all([postgresql.client.send(query, variables), opensearch.client.send(query, variables)]);
      return { postgresql: p, opensearch: o };
    },
    async close() {
      await pair.close();
      await ns.drop();
    },
  };
}

/** Minimal event lines (ISO timestamps with offsets, as the contract accepts). */
export function workflowStarted(id: string, at: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    instanceId: id, eventType: 'io.serverlessworkflow.workflow.started.v1', timestamp: at, startTime: at, status: 'RUNNING',
    workflowName: 'review', workflowNamespace: 'org.review', workflowVersion: '1.0', ...fields,
  });
}
export function workflowCompleted(id: string, at: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({ instanceId: id, eventType: 'io.serverlessworkflow.workflow.completed.v1', timestamp: at, endTime: at, status: 'COMPLETED', ...fields });
}
export function taskStarted(id: string, position: string, at: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    instanceId: id, eventType: 'io.serverlessworkflow.task.started.v1', taskExecutionId: `${id}-${position}-s`, taskPosition: position,
    taskName: position.replace(/^.*\//, ''), timestamp: at, startTime: at, status: 'RUNNING', ...fields,
  });
}
export function taskCompleted(id: string, position: string, at: string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    instanceId: id, eventType: 'io.serverlessworkflow.task.completed.v1', taskExecutionId: `${id}-${position}-c`, taskPosition: position,
    taskName: position.replace(/^.*\//, ''), timestamp: at, endTime: at, status: 'COMPLETED', ...fields,
  });
}

/** The answer as comparable text: data and each error's code and message. */
export const summary = (r: GraphQLResult): string =>
  JSON.stringify({ data: r.data, errors: r.errors.map((e) => ({ code: (e as { extensions?: { code?: unknown } }).extensions?.code, message: e.message })) });

export const codes = (r: GraphQLResult): unknown[] => r.errors.map((e) => (e as { extensions?: { code?: unknown } }).extensions?.code);
