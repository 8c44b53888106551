// Selections and the one conversion the suite applies to served rows before comparing them with the expected
// tables: payloads are JSON text, so they are parsed (key order is not significant, content is).
import type { Variables } from '../graphql-request.js';
import type { GraphQLClient } from './graphql-client.js';

export const ERROR_FIELDS = 'error { type title detail status instance }';
export const TASK_FIELDS = `id workflowInstanceId taskName taskPosition status startDate endDate inputData outputData ${ERROR_FIELDS} errorMessage`;
export const INSTANCE_FIELDS = `id name namespace version status startDate endDate lastUpdate inputData outputData ${ERROR_FIELDS}`;

type Row = Readonly<Record<string, unknown>>;

function parsePayload(value: unknown, field: string): unknown {
  if (value === null) return null;
  if (typeof value !== 'string') throw new Error(`${field} must be JSON text or null, got ${JSON.stringify(value)}`);
  return JSON.parse(value) as unknown;
}

/** A served row with `inputData`/`outputData` parsed; nested `taskExecutions` converted too. */
export function parsed(row: Row): Record<string, unknown> {
  const result: Record<string, unknown> = { ...row };
  for (const field of ['inputData', 'outputData'] as const) {
    if (field in row) result[field] = parsePayload(row[field], field);
  }
  if (Array.isArray(row['taskExecutions'])) result['taskExecutions'] = (row['taskExecutions'] as Row[]).map(parsed);
  return result;
}

export function rowsOf(data: Readonly<Record<string, unknown>>, field: string): Row[] {
  const value = data[field];
  if (!Array.isArray(value)) throw new Error(`${field} is not a list: ${JSON.stringify(value)}`);
  return value as Row[];
}

export function idsOf(rows: readonly Row[]): string[] {
  return rows.map((r) => String(r['id']));
}

/** Ids of the instances a filter (GraphQL literal text) matches, ordered by id. */
export async function instanceIdsForLiteral(client: GraphQLClient, filter: string): Promise<string[]> {
  const data = await client.data(`{ getWorkflowInstances(limit: 1000, orderBy: {id: ASC}, filter: ${filter}) { id } }`);
  return idsOf(rowsOf(data, 'getWorkflowInstances'));
}

/** Ids of the instances a filter given as a variable matches, ordered by id. */
export async function instanceIdsForVariable(client: GraphQLClient, filter: unknown): Promise<string[]> {
  const data = await client.data(
    'query ($filter: WorkflowInstanceFilterInput) { getWorkflowInstances(limit: 1000, orderBy: {id: ASC}, filter: $filter) { id } }',
    { filter } as Variables,
  );
  return idsOf(rowsOf(data, 'getWorkflowInstances'));
}

export async function taskIdsForLiteral(client: GraphQLClient, filter: string): Promise<string[]> {
  const data = await client.data(`{ getTaskExecutions(limit: 1000, orderBy: {id: ASC}, filter: ${filter}) { id } }`);
  return idsOf(rowsOf(data, 'getTaskExecutions'));
}

export async function taskIdsForVariable(client: GraphQLClient, filter: unknown): Promise<string[]> {
  const data = await client.data(
    'query ($filter: TaskExecutionFilterInput) { getTaskExecutions(limit: 1000, orderBy: {id: ASC}, filter: $filter) { id } }',
    { filter } as Variables,
  );
  return idsOf(rowsOf(data, 'getTaskExecutions'));
}
