import { Kind } from 'graphql';
import type { GraphQLResolveInfo, ValueNode } from 'graphql';
import { checkClientText, truncate } from './client-text.js';
import type { CoreConfig } from './config.js';
import { DateTimeParseError, formatTimestampForOutput, parseDateTime } from './date-time.js';
import { ErrorCode } from './errors.js';
import { graphql } from './graphql-runtime.js';
import { translateInstanceFilter, translateTaskFilter } from './filter-translation.js';
import type { InstanceFilterArg, TaskFilterArg } from './filter-translation.js';
import { cursorOf, decodeCursor, rememberOrder } from './cursor.js';
import { INSTANCE_SORT_FIELDS, TASK_SORT_FIELDS, toSortKeys, writtenKeyOrder } from './order-by.js';
import { resolvePage } from './pagination.js';
import { selectsPayloads } from './payload-selection.js';
import { selectedFields } from './selected-fields.js';
import { countExactLimitOf } from './count-limit.js';
import { durationMs } from './duration.js';
import { eventHistoryResolvers } from './event-history.js';
import { indexStatusOf } from './index-status.js';
import type { IndexStatus } from './index-status.js';
import { DEFAULT_LIST_ORDER, effectiveSortKeys, INSTANCE_STATUSES } from './reader.js';
import type { Count, Direction, Reader, TaskExecutionRecord, Timestamp, WorkflowInstanceRecord, WorkflowInstanceStatus } from './reader.js';
import type { TaskLoaders } from './task-loader.js';
import { statsResolvers } from './stats-resolvers.js';
import type { LiveHub } from './live/live-hub.js';
import { subscriptionResolvers } from './live/subscription-resolvers.js';

/** What resolvers need from the per-request context (yoga adds `params`). */
export interface ResolverContext {
  /** The request's own view of the Reader (bounded concurrency). */
  readonly reader: Reader;
  readonly loaders: TaskLoaders;
  /** The app's subscriptions (live/live-hub.ts); null when the backend has no change feed. */
  readonly liveHub?: LiveHub | null;
  readonly params?: { readonly variables?: unknown };
}

interface ListArgs<F> {
  readonly limit?: number | null;
  readonly offset?: number | null;
  readonly after?: string | null;
  readonly filter?: F | null;
  readonly orderBy?: Readonly<Record<string, Direction | null>> | null;
}

function dateTimeInput(value: unknown, node?: ValueNode): Timestamp {
  if (typeof value !== 'string') {
    throw new graphql.GraphQLError(`DateTime must be a string such as "2026-05-12T09:14:03Z", got ${truncate(node === undefined ? String(JSON.stringify(value)) : graphql.print(node), 64)}`, {
      nodes: node,
      extensions: { code: ErrorCode.BAD_USER_INPUT },
    });
  }
  try {
    return parseDateTime(value);
  } catch (error) {
    if (error instanceof DateTimeParseError) throw new graphql.GraphQLError(error.message, { nodes: node, extensions: { code: ErrorCode.BAD_USER_INPUT } });
    throw error;
  }
}

export const DateTimeScalar = new graphql.GraphQLScalarType({
  name: 'DateTime',
  description: 'ISO-8601 instant with a time zone offset.',
  parseValue: dateTimeInput,
  parseLiteral(ast) {
    return dateTimeInput(ast.kind === Kind.STRING ? ast.value : undefined, ast);
  },
  serialize(value) {
    if (typeof value !== 'string') throw new graphql.GraphQLError('DateTime cannot represent a non-string value');
    return formatTimestampForOutput(value);
  },
});

/** Instances read with their tasks by getWorkflowInstance, and whether those tasks carry payloads. */
const prefetchedTaskPayloads = new WeakMap<WorkflowInstanceRecord, boolean>();

const time = (value: Timestamp | null): string | null => (value === null ? null : formatTimestampForOutput(value));

export function createResolvers(deps: { readonly config: CoreConfig }) {
  const { config } = deps;
  const events = eventHistoryResolvers(config);
  const filterLimits = {
    maxDepth: config.graphql.maxFilterDepth,
    maxConditions: config.graphql.maxFilterConditions,
    maxInValues: config.graphql.maxFilterInValues,
  } as const;
  return {
    DateTime: DateTimeScalar,
    Query: {
      ...statsResolvers(filterLimits),
      async getWorkflowInstances(_: unknown, args: ListArgs<InstanceFilterArg>, ctx: ResolverContext, info: GraphQLResolveInfo): Promise<WorkflowInstanceRecord[]> {
        const page = resolvePage(args.limit, args.offset, config.graphql);
        const filter = translateInstanceFilter(args.filter, filterLimits);
        const orderBy = toSortKeys(args.orderBy, writtenKeyOrder(info, 'orderBy', ctx.params?.variables), INSTANCE_SORT_FIELDS);
        const order = effectiveSortKeys<string>(orderBy, DEFAULT_LIST_ORDER);
        const after = args.after === null || args.after === undefined ? null : decodeCursor('instances', args.after, order);
        if (page.limit === 0) return [];
        const rows = await ctx.reader.listInstances({ filter, orderBy, after, limit: page.limit, offset: page.offset, payloads: selectsPayloads(info) });
        // Cursors are made from what the rows remember: only when the query asks for them.
        if (selectedFields(info, 'cursor').length > 0) rememberOrder(rows, 'instances', order);
        return rows;
      },
      async getWorkflowInstance(_: unknown, args: { readonly id: string }, ctx: ResolverContext, info: GraphQLResolveInfo): Promise<WorkflowInstanceRecord | null> {
        // One run with its tasks is the most common lookup: the backend may read both in one round trip.
        const taskFields = selectedFields(info, 'taskExecutions');
        const taskPayloads = taskFields.length > 0 && selectsPayloads({ fieldNodes: taskFields, fragments: info.fragments });
        const instance = await ctx.reader.getInstance(checkClientText(args.id, 'id'), {
          payloads: selectsPayloads(info),
          ...(taskFields.length > 0 ? { tasks: { payloads: taskPayloads } } : {}),
        });
        if (instance?.tasks !== undefined) prefetchedTaskPayloads.set(instance, taskPayloads);
        return instance;
      },
      async getTaskExecutions(_: unknown, args: ListArgs<TaskFilterArg>, ctx: ResolverContext, info: GraphQLResolveInfo): Promise<TaskExecutionRecord[]> {
        const page = resolvePage(args.limit, args.offset, config.graphql);
        const filter = translateTaskFilter(args.filter, filterLimits);
        const orderBy = toSortKeys(args.orderBy, writtenKeyOrder(info, 'orderBy', ctx.params?.variables), TASK_SORT_FIELDS);
        const order = effectiveSortKeys<string>(orderBy, DEFAULT_LIST_ORDER);
        const after = args.after === null || args.after === undefined ? null : decodeCursor('tasks', args.after, order);
        if (page.limit === 0) return [];
        const rows = await ctx.reader.listTasks({ filter, orderBy, after, limit: page.limit, offset: page.offset, payloads: selectsPayloads(info) });
        if (selectedFields(info, 'cursor').length > 0) rememberOrder(rows, 'tasks', order);
        return rows;
      },
      async getTaskExecution(_: unknown, args: { readonly id: string }, ctx: ResolverContext, info: GraphQLResolveInfo): Promise<TaskExecutionRecord | null> {
        return ctx.reader.getTask(checkClientText(args.id, 'id'), { payloads: selectsPayloads(info) });
      },
      async getTaskExecutionsByWorkflowInstance(_: unknown, args: { readonly workflowInstanceId: string }, ctx: ResolverContext, info: GraphQLResolveInfo): Promise<TaskExecutionRecord[]> {
        return ctx.loaders.load(checkClientText(args.workflowInstanceId, 'workflowInstanceId'), selectsPayloads(info));
      },
      async countWorkflowInstances(_: unknown, args: { readonly filter?: InstanceFilterArg | null }, ctx: ResolverContext): Promise<Count> {
        const filter = translateInstanceFilter(args.filter, filterLimits);
        return ctx.reader.countInstances(filter, { exactLimit: countExactLimitOf(config) });
      },
      async countTaskExecutions(_: unknown, args: { readonly filter?: TaskFilterArg | null }, ctx: ResolverContext): Promise<Count> {
        const filter = translateTaskFilter(args.filter, filterLimits);
        return ctx.reader.countTasks(filter, { exactLimit: countExactLimitOf(config) });
      },
      async workflowInstanceStatusCounts(
        _: unknown,
        args: { readonly filter?: InstanceFilterArg | null },
        ctx: ResolverContext,
      ): Promise<{ status: WorkflowInstanceStatus; count: Count }[]> {
        const filter = translateInstanceFilter(args.filter, filterLimits);
        const counts = await ctx.reader.countInstancesByStatus(filter, { exactLimit: countExactLimitOf(config) });
        return INSTANCE_STATUSES.map((status) => ({ status, count: counts[status] }));
      },
      async indexStatus(_: unknown, __: unknown, ctx: ResolverContext): Promise<IndexStatus> {
        return indexStatusOf(await ctx.reader.ingestionStats(), ctx.reader.backendName, Date.now());
      },
    },
    Subscription: subscriptionResolvers(config),
    WorkflowInstance: {
      startDate: (p: WorkflowInstanceRecord) => time(p.startDate),
      endDate: (p: WorkflowInstanceRecord) => time(p.endDate),
      lastUpdate: (p: WorkflowInstanceRecord) => time(p.lastUpdate),
      inputData: (p: WorkflowInstanceRecord) => p.inputData ?? null,
      outputData: (p: WorkflowInstanceRecord) => p.outputData ?? null,
      taskExecutions: (p: WorkflowInstanceRecord, _: unknown, ctx: ResolverContext, info: GraphQLResolveInfo) => {
        // A pushed run of a subscription carries the tasks read with it (live/live-selection.ts).
        const live = (p as { liveTasks?: readonly TaskExecutionRecord[] }).liveTasks;
        if (live !== undefined) return live;
        const payloads = selectsPayloads(info);
        const prefetched = prefetchedTaskPayloads.get(p);
        if (p.tasks !== undefined && prefetched !== undefined && (prefetched || !payloads)) return p.tasks;
        return ctx.loaders.load(p.id, payloads);
      },
      cursor: (p: WorkflowInstanceRecord) => cursorOf(p),
      durationMs: (p: WorkflowInstanceRecord) => durationMs(p),
      events: events.instanceEvents,
    },
    WorkflowEvent: events.WorkflowEvent,
    TaskExecution: {
      status: (p: TaskExecutionRecord) => (p.status === 'FAILED' ? 'FAULTED' : p.status),
      startDate: (p: TaskExecutionRecord) => time(p.startDate),
      endDate: (p: TaskExecutionRecord) => time(p.endDate),
      inputData: (p: TaskExecutionRecord) => p.inputData ?? null,
      outputData: (p: TaskExecutionRecord) => p.outputData ?? null,
      errorMessage: (p: TaskExecutionRecord) => p.error?.title ?? p.error?.detail ?? null,
      cursor: (p: TaskExecutionRecord) => cursorOf(p),
      durationMs: (p: TaskExecutionRecord) => durationMs(p),
      workflowInstance: (p: TaskExecutionRecord, _: unknown, ctx: ResolverContext, info: GraphQLResolveInfo) => ctx.loaders.loadInstance(p.workflowInstanceId, selectsPayloads(info)),
    },
  };
}
