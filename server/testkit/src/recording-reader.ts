// A Reader with fixed records that records every call: the transport and translation tests need
// to see exactly what the GraphQL layer asks for. Real data is the conformance suite's job.
import { INSTANCE_STATUSES } from '@workflow-index/core';
import type {
  Count,
  CountOptions,
  IngestionStats,
  InstanceFilter,
  InstanceSortField,
  ListQuery,
  PoolStats,
  Reader,
  TaskExecutionRecord,
  TaskFilter,
  TaskSortField,
  WorkflowEventRecord,
  WorkflowInstanceRecord,
  WorkflowInstanceStatus,
  WorkPrices,
  ErrorCountRecord,
  StatsBucketRecord,
  StatsQuery,
  TaskFailureCountRecord,
  TopErrorsQuery,
  TopFailingTasksQuery,
} from '@workflow-index/core';
import { oracleTopErrors, oracleTopFailingTasks, oracleWorkflowStats } from './stats-oracle.js';

export const INSTANCE_A: WorkflowInstanceRecord = {
  id: 'inst-a',
  name: 'order-intake',
  namespace: 'com.acme.orders',
  version: '1.0.0',
  status: 'COMPLETED',
  startDate: '2026-05-12T09:14:03.512378Z',
  endDate: '2026-05-12T09:14:03.515950Z',
  lastUpdate: '2026-05-12T09:14:03.515950Z',
  inputData: '{"orderId":"ORD-1"}',
  outputData: '{"ok":true}',
  error: null,
};

export const INSTANCE_B: WorkflowInstanceRecord = {
  id: 'inst-b',
  name: 'payment-capture',
  namespace: 'com.acme.billing',
  version: '2.1.0',
  status: 'FAULTED',
  startDate: '2026-04-27T18:55:29.500000Z',
  endDate: '2026-04-27T18:55:00.000000Z',
  lastUpdate: null,
  inputData: null,
  outputData: null,
  error: { type: 'https://serverlessworkflow.io/spec/1.0.0/errors/communication', title: 'Service Unavailable', detail: 'psp timeout', status: 503, instance: 'do/1/chargeCard' },
};

export const TASK_A0: TaskExecutionRecord = {
  id: 'inst-a:do/0/validateOrder',
  workflowInstanceId: 'inst-a',
  taskName: 'validateOrder',
  taskPosition: 'do/0/validateOrder',
  status: 'COMPLETED',
  startDate: '2026-05-12T09:14:03.512566Z',
  endDate: '2026-05-12T09:14:03.512663Z',
  inputData: '{"orderId":"ORD-1"}',
  outputData: '{"valid":true}',
  error: null,
};

export const TASK_B1: TaskExecutionRecord = {
  id: 'inst-b:do/1/chargeCard',
  workflowInstanceId: 'inst-b',
  taskName: 'chargeCard',
  taskPosition: 'do/1/chargeCard',
  status: 'FAULTED',
  startDate: '2026-05-12T09:14:03.516046Z',
  endDate: '2026-05-12T09:14:08.519458Z',
  inputData: null,
  outputData: null,
  error: { type: null, title: null, detail: 'card declined', status: 402, instance: 'do/1/chargeCard' },
};

export type ReaderCall =
  | { readonly method: 'getInstance'; readonly id: string; readonly payloads: boolean }
  | { readonly method: 'getTask'; readonly id: string; readonly payloads: boolean }
  | { readonly method: 'listInstances'; readonly query: ListQuery<InstanceFilter, InstanceSortField> }
  | { readonly method: 'listTasks'; readonly query: ListQuery<TaskFilter, TaskSortField> }
  | { readonly method: 'tasksOfInstances'; readonly ids: readonly string[]; readonly payloads: boolean }
  | { readonly method: 'eventsOfInstances'; readonly ids: readonly string[]; readonly payloads: boolean }
  | { readonly method: 'countInstances' | 'countInstancesByStatus'; readonly filter: InstanceFilter | null; readonly options: CountOptions }
  | { readonly method: 'countTasks'; readonly filter: TaskFilter | null; readonly options: CountOptions }
  | { readonly method: 'workflowStats'; readonly query: StatsQuery }
  | { readonly method: 'topErrors'; readonly query: TopErrorsQuery }
  | { readonly method: 'topFailingTasks'; readonly query: TopFailingTasksQuery }
  | { readonly method: 'ping' }
  | { readonly method: 'ingestionStats' }
  | { readonly method: 'poolStats' }
  | { readonly method: 'close' };

export interface RecordingReaderOptions {
  instances?: readonly WorkflowInstanceRecord[];
  tasks?: readonly TaskExecutionRecord[];
  /** Replaces every data method (not ping): e.g. throw BackendUnavailableError, or wait. */
  onRead?: (method: string) => Promise<void> | void;
  ping?: (timeoutMs: number) => Promise<void>;
  ingestionStats?: () => Promise<IngestionStats>;
  poolStats?: PoolStats | null;
  /** The backend's work prices; default ROWS_ONLY (the cost is the rows alone, as the row rules state it). */
  workPrices?: WorkPrices;
  /** Events of runs by run id (default none). */
  events?: ReadonlyMap<string, readonly WorkflowEventRecord[]>;
  /** What countInstances and countTasks answer (default 2, exact). */
  count?: Count;
}

/** Prices under which a request costs its rows alone. */
export const ROWS_ONLY: WorkPrices = Object.freeze({ statement: 0, condition: 0, inValue: 0, pattern: 0, jsonLookup: 0, jsonTest: 0, jsonInValue: 0, relation: 0 });

export const DEFAULT_STATS: IngestionStats = {
  rawEvents: { workflow: 40, task: 38 },
  ingestErrors: 2,
  newestEventTime: '2026-05-12T09:15:09.454091Z',
  placeholderInstances: 1,
  instances: 8,
  taskExecutions: 27,
};

export class RecordingReader implements Reader {
  readonly calls: ReaderCall[] = [];
  readonly backendName = 'recording';
  readonly workPrices: WorkPrices;
  private readonly instances: readonly WorkflowInstanceRecord[];
  private readonly tasks: readonly TaskExecutionRecord[];

  constructor(private readonly options: RecordingReaderOptions = {}) {
    this.instances = options.instances ?? [INSTANCE_A, INSTANCE_B];
    this.tasks = options.tasks ?? [TASK_A0, TASK_B1];
    this.workPrices = options.workPrices ?? ROWS_ONLY;
  }

  callsOf<M extends ReaderCall['method']>(method: M): Extract<ReaderCall, { method: M }>[] {
    return this.calls.filter((c): c is Extract<ReaderCall, { method: M }> => c.method === method);
  }

  private async read(method: string): Promise<void> {
    await this.options.onRead?.(method);
  }

  async getInstance(id: string, options: { payloads: boolean }): Promise<WorkflowInstanceRecord | null> {
    this.calls.push({ method: 'getInstance', id, payloads: options.payloads });
    await this.read('getInstance');
    return this.instances.find((i) => i.id === id) ?? null;
  }

  async listInstances(query: ListQuery<InstanceFilter, InstanceSortField>): Promise<WorkflowInstanceRecord[]> {
    this.calls.push({ method: 'listInstances', query });
    await this.read('listInstances');
    return this.instances.slice(query.offset, query.offset + query.limit);
  }

  async getTask(id: string, options: { payloads: boolean }): Promise<TaskExecutionRecord | null> {
    this.calls.push({ method: 'getTask', id, payloads: options.payloads });
    await this.read('getTask');
    return this.tasks.find((t) => t.id === id) ?? null;
  }

  async listTasks(query: ListQuery<TaskFilter, TaskSortField>): Promise<TaskExecutionRecord[]> {
    this.calls.push({ method: 'listTasks', query });
    await this.read('listTasks');
    return this.tasks.slice(query.offset, query.offset + query.limit);
  }

  async tasksOfInstances(instanceIds: readonly string[], options: { payloads: boolean }): Promise<Map<string, TaskExecutionRecord[]>> {
    this.calls.push({ method: 'tasksOfInstances', ids: [...instanceIds], payloads: options.payloads });
    await this.read('tasksOfInstances');
    return new Map(instanceIds.map((id) => [id, this.tasks.filter((t) => t.workflowInstanceId === id)]));
  }

  async eventsOfInstances(instanceIds: readonly string[], options: { payloads: boolean }): Promise<Map<string, WorkflowEventRecord[]>> {
    this.calls.push({ method: 'eventsOfInstances', ids: [...instanceIds], payloads: options.payloads });
    await this.read('eventsOfInstances');
    return new Map(instanceIds.map((id) => [id, (this.options.events?.get(id) ?? []).map((e) => (options.payloads ? e : { ...e, data: undefined }))]));
  }

  async countInstances(filter: InstanceFilter | null, options: CountOptions): Promise<Count> {
    this.calls.push({ method: 'countInstances', filter, options });
    await this.read('countInstances');
    return this.options.count ?? { value: 2, exact: true };
  }

  async countTasks(filter: TaskFilter | null, options: CountOptions): Promise<Count> {
    this.calls.push({ method: 'countTasks', filter, options });
    await this.read('countTasks');
    return this.options.count ?? { value: 2, exact: true };
  }

  /** The statuses counted 0, 1, 2, …, in their declaration order; exact but for the last. */
  async countInstancesByStatus(filter: InstanceFilter | null, options: CountOptions): Promise<Record<WorkflowInstanceStatus, Count>> {
    this.calls.push({ method: 'countInstancesByStatus', filter, options });
    await this.read('countInstancesByStatus');
    return Object.fromEntries(INSTANCE_STATUSES.map((s, i) => [s, { value: i, exact: i < 4 }])) as Record<WorkflowInstanceStatus, Count>;
  }

  /** The oracle's buckets of the reader's instances (the filter is recorded, not applied), cut at maxBuckets + 1. */
  async workflowStats(query: StatsQuery): Promise<StatsBucketRecord[]> {
    this.calls.push({ method: 'workflowStats', query });
    await this.read('workflowStats');
    return oracleWorkflowStats(this.instances, query).slice(0, query.maxBuckets + 1);
  }

  async topErrors(query: TopErrorsQuery): Promise<ErrorCountRecord[]> {
    this.calls.push({ method: 'topErrors', query });
    await this.read('topErrors');
    return oracleTopErrors(this.instances, query.limit);
  }

  async topFailingTasks(query: TopFailingTasksQuery): Promise<TaskFailureCountRecord[]> {
    this.calls.push({ method: 'topFailingTasks', query });
    await this.read('topFailingTasks');
    const names = new Map(this.instances.map((i) => [i.id, i.name]));
    return oracleTopFailingTasks(this.tasks.map((t) => ({ ...t, workflowName: names.get(t.workflowInstanceId) ?? null })), query.limit);
  }

  async ping(timeoutMs: number): Promise<void> {
    this.calls.push({ method: 'ping' });
    await this.options.ping?.(timeoutMs);
  }

  async ingestionStats(): Promise<IngestionStats> {
    this.calls.push({ method: 'ingestionStats' });
    return this.options.ingestionStats?.() ?? DEFAULT_STATS;
  }

  poolStats(): PoolStats | null {
    this.calls.push({ method: 'poolStats' });
    return this.options.poolStats === undefined ? { total: 5, idle: 4, waiting: 0 } : this.options.poolStats;
  }

  async close(): Promise<void> {
    this.calls.push({ method: 'close' });
  }
}
