import DataLoader from 'dataloader';
import type { Reader, TaskExecutionRecord, WorkflowInstanceRecord } from './reader.js';

/** Most instances one `workflowInstance` batch reads: GRAPHQL_MAX_LIMIT's default, a size every backend pages. */
const INSTANCE_BATCH = 1000;

/**
 * Per-request batching of the row links:
 *  - `taskExecutions`: every instance of a page asks for its tasks in the same tick, and one
 *    `reader.tasksOfInstances` call answers them all.
 *  - `TaskExecution.workflowInstance`: every task of a page asks for its run in the same tick, and one
 *    `reader.listInstances` call with `id in [...]` answers them all (a contract method: every backend has it).
 * One loader per payloads flag, because with and without payloads are different reads.
 */
export class TaskLoaders {
  private readonly loaders = new Map<boolean, DataLoader<string, TaskExecutionRecord[]>>();
  private readonly instanceLoaders = new Map<boolean, DataLoader<string, WorkflowInstanceRecord | null>>();

  constructor(private readonly reader: Reader) {}

  load(instanceId: string, payloads: boolean): Promise<TaskExecutionRecord[]> {
    let loader = this.loaders.get(payloads);
    if (loader === undefined) {
      loader = new DataLoader<string, TaskExecutionRecord[]>(async (ids) => {
        const byInstance = await this.reader.tasksOfInstances(ids, { payloads });
        return ids.map((id) => byInstance.get(id) ?? []);
      });
      this.loaders.set(payloads, loader);
    }
    return loader.load(instanceId);
  }

  /** The served instance with this id (null for a placeholder or an unknown id), batched with the others of the tick. */
  loadInstance(instanceId: string, payloads: boolean): Promise<WorkflowInstanceRecord | null> {
    let loader = this.instanceLoaders.get(payloads);
    if (loader === undefined) {
      loader = new DataLoader<string, WorkflowInstanceRecord | null>(async (ids) => {
        const rows = await this.reader.listInstances({
          filter: { kind: 'string', field: 'id', predicate: { op: 'in', values: [...ids] } },
          orderBy: [{ field: 'id', direction: 'ASC' }],
          limit: ids.length,
          offset: 0,
          payloads,
        });
        const byId = new Map(rows.map((row) => [row.id, row]));
        return ids.map((id) => byId.get(id) ?? null);
        // At most a page of the largest list per read (aliases of several lists in one tick make several reads).
      }, { maxBatchSize: INSTANCE_BATCH });
      this.instanceLoaders.set(payloads, loader);
    }
    return loader.load(instanceId);
  }
}
