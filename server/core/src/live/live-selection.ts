// What one subscription reads for each run it pushes, decided once from its selection: payloads only when it selects
// them, and the run's task executions (with or without payloads) only when it selects taskExecutions.
import type { GraphQLResolveInfo } from 'graphql';
import { selectsPayloads } from '../payload-selection.js';
import type { InstanceFilter, Reader, TaskExecutionRecord, WorkflowInstanceRecord } from '../reader.js';
import { selectedFields } from '../selected-fields.js';

export interface LiveSelection {
  readonly payloads: boolean;
  /** null: taskExecutions is not selected. */
  readonly tasks: { readonly payloads: boolean } | null;
}

export function liveSelectionOf(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): LiveSelection {
  const taskFields = selectedFields(info, 'taskExecutions');
  return {
    payloads: selectsPayloads(info),
    tasks: taskFields.length > 0 ? { payloads: selectsPayloads({ fieldNodes: taskFields, fragments: info.fragments }) } : null,
  };
}

/** A pushed run carries its tasks as read with it (never a loader's answer cached from an earlier push). */
export type LiveRun = WorkflowInstanceRecord & { readonly liveTasks?: readonly TaskExecutionRecord[] };

/** The filter AND `id in ids`. */
export function withIds(filter: InstanceFilter | null, ids: readonly string[]): InstanceFilter {
  const byId: InstanceFilter = { kind: 'string', field: 'id', predicate: { op: 'in', values: ids } };
  return filter === null ? byId : { kind: 'and', nodes: [byId, filter] };
}

/** Runs that match `filter` (one list read), with their tasks when selected (one batch read), in the list's order. */
export async function readRuns(reader: Reader, filter: InstanceFilter | null, limit: number, selection: LiveSelection): Promise<LiveRun[]> {
  if (limit === 0) return [];
  const runs = await reader.listInstances({ filter, orderBy: [], limit, offset: 0, payloads: selection.payloads });
  if (selection.tasks === null || runs.length === 0) return runs;
  const tasks = await reader.tasksOfInstances(runs.map((r) => r.id), { payloads: selection.tasks.payloads });
  return runs.map((run) => ({ ...run, liveTasks: tasks.get(run.id) ?? [] }));
}
