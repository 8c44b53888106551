// The Reader as one subject may see it (CONTRACT §8): every read is narrowed to the runs of its namespaces before the
// backend runs it (lists, counts, per-status counts, tasks through their run), a read by id of a run outside them
// answers as an unknown id, and payloads it may not read are null. Both backends' query paths, the hot path
// included, read through it, so whatever reads the Reader inherits the rule.
import { ErrorCode } from '../errors.js';
import { graphql } from '../graphql-runtime.js';
import type { FilterNode, InstanceFilter, Reader, TaskExecutionRecord, TaskFilter, WorkflowEventRecord, WorkflowInstanceRecord } from '../reader.js';
import { isFullAccess, seesEveryPayload, seesNoPayload } from './access.js';
import type { Access } from './access.js';
import { inNamespaceSet, namespaceFilter } from './namespace-set.js';
import { payloadCondition } from './payload-conditions.js';
import { redactEvent, redactInstance, redactTask } from './redaction.js';

export function scopedReader(reader: Reader, access: Access): Reader {
  if (isFullAccess(access)) return reader;
  const scope = new Scope(reader, access);
  return {
    getInstance: (id, options) => scope.getInstance(id, options),
    listInstances: async (query) => scope.shownInstances(await reader.listInstances({ ...query, filter: scope.instances(query.filter), payloads: scope.payloads(query.payloads) })),
    getTask: (id, options) => scope.getTask(id, options),
    listTasks: async (query) => scope.shownTasks(await reader.listTasks({ ...query, filter: scope.tasks(query.filter), payloads: scope.payloads(query.payloads) })),
    countInstances: (filter, options) => reader.countInstances(scope.instances(filter), options),
    countTasks: (filter, options) => reader.countTasks(scope.tasks(filter), options),
    countInstancesByStatus: (filter, options) => reader.countInstancesByStatus(scope.instances(filter), options),
    tasksOfInstances: (ids, options) => scope.tasksOfInstances(ids, options),
    workflowStats: (query) => reader.workflowStats({ ...query, filter: scope.instances(query.filter) }),
    topErrors: (query) => reader.topErrors({ ...query, filter: scope.instances(query.filter) }),
    topFailingTasks: (query) => reader.topFailingTasks({ ...query, filter: scope.tasks(query.filter) }),
    eventsOfInstances: (ids, options) => scope.eventsOfInstances(ids, options),
    ping: (timeoutMs) => reader.ping(timeoutMs),
    ingestionStats: () => (access.runs.all ? reader.ingestionStats() : scope.ingestionStats()),
    poolStats: () => reader.poolStats(),
    close: () => reader.close(),
    backendName: reader.backendName,
    workPrices: reader.workPrices,
  };
}

export function forbidden(message: string): Error {
  return new graphql.GraphQLError(message, { extensions: { code: ErrorCode.FORBIDDEN } });
}

class Scope {
  private readonly runs: InstanceFilter | null;

  constructor(
    private readonly reader: Reader,
    private readonly access: Access,
  ) {
    this.runs = namespaceFilter(access.runs);
  }

  /** The client's instance filter, refused when it reads payloads the subject may not, narrowed to its runs. */
  instances(filter: InstanceFilter | null): InstanceFilter | null {
    this.refusePayloadConditions(filter);
    return both(this.runs, filter);
  }

  tasks(filter: TaskFilter | null): TaskFilter | null {
    this.refusePayloadConditions(filter);
    const runs: TaskFilter | null = this.runs === null ? null : { kind: 'instance', node: this.runs };
    return both(runs, filter);
  }

  /** Payloads are read only when the subject may see some. */
  payloads(asked: boolean): boolean {
    return asked && !seesNoPayload(this.access);
  }

  async getInstance(id: string, options: { payloads: boolean; tasks?: { payloads: boolean } }): Promise<WorkflowInstanceRecord | null> {
    const tasks = options.tasks === undefined ? {} : { tasks: { payloads: this.payloads(options.tasks.payloads) } };
    const instance = await this.reader.getInstance(id, { payloads: this.payloads(options.payloads), ...tasks });
    if (instance === null || !inNamespaceSet(this.access.runs, instance.namespace)) return null;
    return this.shownInstance(instance);
  }

  async getTask(id: string, options: { payloads: boolean }): Promise<TaskExecutionRecord | null> {
    const task = await this.reader.getTask(id, { payloads: this.payloads(options.payloads) });
    if (task === null) return null;
    const namespaces = await this.namespacesOf([task.workflowInstanceId]);
    if (!namespaces.has(task.workflowInstanceId)) return null;
    return this.shownTask(task, namespaces.get(task.workflowInstanceId) ?? null);
  }

  async tasksOfInstances(ids: readonly string[], options: { payloads: boolean }): Promise<Map<string, TaskExecutionRecord[]>> {
    const namespaces = await this.namespacesOf(ids);
    const visible = ids.filter((id) => namespaces.has(id));
    const found = visible.length === 0 ? new Map<string, TaskExecutionRecord[]>() : await this.reader.tasksOfInstances(visible, { payloads: this.payloads(options.payloads) });
    return new Map(ids.map((id) => [id, (found.get(id) ?? []).map((task) => this.shownTask(task, namespaces.get(id) ?? null))]));
  }

  /** A run it does not see has no events; event payloads (`data`) only where it sees the run's payloads. */
  async eventsOfInstances(ids: readonly string[], options: { payloads: boolean }): Promise<Map<string, WorkflowEventRecord[]>> {
    const namespaces = await this.namespacesOf(ids);
    const visible = ids.filter((id) => namespaces.has(id));
    const found = visible.length === 0 ? new Map<string, WorkflowEventRecord[]>() : await this.reader.eventsOfInstances(visible, { payloads: this.payloads(options.payloads) });
    return new Map(ids.map((id) => {
      const events = found.get(id) ?? [];
      return [id, inNamespaceSet(this.access.payloads, namespaces.get(id) ?? null) ? events : events.map(redactEvent)];
    }));
  }

  async shownTasks(tasks: TaskExecutionRecord[]): Promise<TaskExecutionRecord[]> {
    if (seesEveryPayload(this.access)) return tasks;
    if (seesNoPayload(this.access)) return tasks.map(redactTask);
    const namespaces = await this.namespacesOf([...new Set(tasks.map((task) => task.workflowInstanceId))]);
    return tasks.map((task) => this.shownTask(task, namespaces.get(task.workflowInstanceId) ?? null));
  }

  shownInstances(instances: WorkflowInstanceRecord[]): WorkflowInstanceRecord[] {
    return seesEveryPayload(this.access) ? instances : instances.map((instance) => this.shownInstance(instance));
  }

  ingestionStats(): never {
    throw forbidden('indexStatus describes every namespace: it needs a rule for every namespace ("*").');
  }

  private shownInstance(instance: WorkflowInstanceRecord): WorkflowInstanceRecord {
    return inNamespaceSet(this.access.payloads, instance.namespace) ? instance : redactInstance(instance);
  }

  private shownTask(task: TaskExecutionRecord, namespace: string | null): TaskExecutionRecord {
    return inNamespaceSet(this.access.payloads, namespace) ? task : redactTask(task);
  }

  /** The namespace of each of the runs the subject sees among `ids` (a run it does not see is absent). */
  private async namespacesOf(ids: readonly string[]): Promise<Map<string, string | null>> {
    if (ids.length === 0) return new Map();
    const filter = both(this.runs, { kind: 'string', field: 'id', predicate: { op: 'in', values: [...new Set(ids)] } });
    const rows = await this.reader.listInstances({ filter, orderBy: [], limit: ids.length, offset: 0, payloads: false });
    return new Map(rows.map((row) => [row.id, row.namespace]));
  }

  private refusePayloadConditions(filter: InstanceFilter | TaskFilter | null): void {
    if (seesEveryPayload(this.access)) return;
    const field = payloadCondition(filter);
    if (field !== null) {
      throw forbidden(`Filters on payloads (input, output, inputArgs, outputArgs, error.detail) need a rule with payloads for every namespace you read; this filter has one on ${field}.`);
    }
  }
}

function both(scope: InstanceFilter | null, filter: InstanceFilter | null): InstanceFilter | null;
function both(scope: TaskFilter | null, filter: TaskFilter | null): TaskFilter | null;
function both(scope: FilterNode<string, string> | null, filter: FilterNode<string, string> | null): FilterNode<string, string> | null {
  if (scope === null) return filter;
  if (filter === null) return scope;
  return { kind: 'and', nodes: [scope, filter] };
}
