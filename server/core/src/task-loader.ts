import DataLoader from 'dataloader';
import type { Reader, TaskExecutionRecord } from './reader.js';

/**
 * Per-request batching of `taskExecutions`: every instance of a page asks for its tasks in the
 * same tick, and one `reader.tasksOfInstances` call answers them all. One loader per payloads
 * flag, because with and without payloads are different reads.
 */
export class TaskLoaders {
  private readonly loaders = new Map<boolean, DataLoader<string, TaskExecutionRecord[]>>();

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
}
