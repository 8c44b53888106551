// Support of the cross-backend edge tests: the same event lines into a fresh PostgreSQL database and a fresh OpenSearch prefix, each behind the
// real app (as cross-backend.test.ts loadPair), and a way to send one GraphQL request to both.
import { Client } from '@opensearch-project/opensearch';
import { pino } from 'pino';
import { createApp, type App } from '@workflow-index/core/app';
import { defaultCoreConfig } from '@workflow-index/core/config';
import type { Reader } from '@workflow-index/core/reader';
import { GraphQLClient, type GraphQLResult, type Variables } from '../../../core/test/conformance/graphql-client.js';
import { createPostgresqlReader } from '../../../postgresql/src/postgresql-reader.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from '../../../postgresql/test/support/test-database.js';
import { createOpenSearchReader } from '../../src/reader/opensearch-reader.js';
import { loadNormalized, RECORD_TIME_MS } from '../support/normalized-store.js';
import { writeToPostgreSQL } from '../support/postgresql-twin.js';
import { createTestNamespace, OPENSEARCH_URL, openSearchReachable, type TestNamespace } from '../support/test-node.js';

export const bothAvailable = async (): Promise<boolean> => (await openSearchReachable()) && (await postgresReachable());

interface Side {
  readonly reader: Reader;
  readonly app: App;
  readonly client: GraphQLClient;
}

export interface BackendPair {
  readonly postgresql: Side;
  readonly opensearch: Side;
  send(query: string, variables?: Variables): Promise<{ postgresql: GraphQLResult; opensearch: GraphQLResult }>;
  close(): Promise<void>;
}

function side(reader: Reader, backend: string): Side {
  const app = createApp({ config: defaultCoreConfig('production'), reader, logger: pino({ level: 'silent' }), backend });
  const client = new GraphQLClient(undefined, 2);
  client.attach(app);
  return { reader, app, client };
}

export async function loadBackendPair(name: string, lines: readonly string[]): Promise<BackendPair> {
  const ns: TestNamespace = createTestNamespace();
  const prefix = `${ns.prefix}${name}-`;
  let db: TestDatabase | undefined;
  try {
    db = await createTestDatabase({ prefix: 'wi_review' });
    await writeToPostgreSQL(db, lines.map((line, i) => ({ line, recordTimeMs: RECORD_TIME_MS + i })));
    await loadNormalized(ns.client, prefix, lines);
  } catch (error) {
    await db?.drop();
    await ns.drop();
    throw error;
  }
  const database = db;
  const postgresql = side(createPostgresqlReader({ pool: database.pool, ownsPool: false }), 'postgresql');
  const opensearch = side(createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix }), 'opensearch');
  return {
    postgresql,
    opensearch,
    async send(query, variables) {
      const [p, o] = await Promise.all([postgresql.client.send(query, variables), opensearch.client.send(query, variables)]);
      return { postgresql: p, opensearch: o };
    },
    async close() {
      for (const s of [postgresql, opensearch]) {
        await s.app.dispose();
        await s.reader.close();
      }
      await database.drop();
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
