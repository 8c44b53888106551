// A RecordingReader that also implements the queries beyond the contract (Reader.extended), recording every call
// in `extendedCalls`: the GraphQL layer's translation and batching of the issue 9 additions are seen exactly.
import { INSTANCE_STATUSES } from '@workflow-index/core';
import type {
  Count,
  CountOptions,
  ExtendedInstanceFilter,
  ExtendedInstanceSortField,
  ExtendedReader,
  ExtendedTaskFilter,
  ExtendedTaskSortField,
  ListQuery,
  TaskExecutionRecord,
  WorkflowInstanceRecord,
  WorkflowInstanceStatus,
} from '@workflow-index/core';
import { RecordingReader, type RecordingReaderOptions } from './recording-reader.js';

export type ExtendedCall =
  | { readonly method: 'listInstances'; readonly query: ListQuery<ExtendedInstanceFilter, ExtendedInstanceSortField> }
  | { readonly method: 'listTasks'; readonly query: ListQuery<ExtendedTaskFilter, ExtendedTaskSortField> }
  | { readonly method: 'countInstances' | 'countInstancesByStatus'; readonly filter: ExtendedInstanceFilter | null; readonly options: CountOptions }
  | { readonly method: 'countTasks'; readonly filter: ExtendedTaskFilter | null; readonly options: CountOptions };

export class ExtendedRecordingReader extends RecordingReader {
  readonly extendedCalls: ExtendedCall[] = [];
  readonly backendName = 'recording';
  readonly extended: ExtendedReader;

  constructor(options: RecordingReaderOptions & { readonly count?: Count } = {}) {
    super(options);
    const count = options.count ?? { value: 2, exact: true };
    const calls = this.extendedCalls;
    const base = (): RecordingReader => this;
    this.extended = {
      async listInstances(query): Promise<WorkflowInstanceRecord[]> {
        calls.push({ method: 'listInstances', query });
        return base().listInstances({ ...query, filter: null, orderBy: [] });
      },
      async listTasks(query): Promise<TaskExecutionRecord[]> {
        calls.push({ method: 'listTasks', query });
        return base().listTasks({ ...query, filter: null, orderBy: [] });
      },
      async countInstances(filter, countOptions): Promise<Count> {
        calls.push({ method: 'countInstances', filter, options: countOptions });
        return count;
      },
      async countTasks(filter, countOptions): Promise<Count> {
        calls.push({ method: 'countTasks', filter, options: countOptions });
        return count;
      },
      async countInstancesByStatus(filter, countOptions): Promise<Record<WorkflowInstanceStatus, Count>> {
        calls.push({ method: 'countInstancesByStatus', filter, options: countOptions });
        return Object.fromEntries(INSTANCE_STATUSES.map((s, i) => [s, { value: i, exact: i < 4 }])) as Record<WorkflowInstanceStatus, Count>;
      },
    };
  }
}
