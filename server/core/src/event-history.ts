// `WorkflowInstance.events(limit, after)` and `WorkflowEvent` (CONTRACT §9): a run's event history, accepted and
// rejected, in event-time order (event-order.ts), paged by a cursor on the order key (event-cursor.ts).
// Batched: every run of a page that selects `events` in the same tick is answered by one
// `reader.eventsOfInstances` call (one loader per request and payloads flag, as task-loader.ts does for tasks); each
// run's history is ordered once per request and every `events` field of it pages that list. The query cost prices
// each `events` list at its limit per run of the list it is in (query-cost.ts, WorkflowEvent is a row type).
import DataLoader from 'dataloader';
import type { GraphQLResolveInfo, SelectionNode } from 'graphql';
import type { CoreConfig } from './config.js';
import { decodeEventCursor, eventCursor } from './event-cursor.js';
import { orderEvents, pageOfEvents } from './event-order.js';
import { resolvePage } from './pagination.js';
import type { Reader, WorkflowEventRecord, WorkflowInstanceRecord } from './reader.js';
import { formatTimestampForOutput } from './date-time.js';

type Loader = DataLoader<string, WorkflowEventRecord[]>;

/** Loaders per request: the context object a request's resolvers share. */
const loadersOf = new WeakMap<object, Map<boolean, Loader>>();

function eventsLoader(ctx: { readonly reader: Reader }, payloads: boolean): Loader {
  let loaders = loadersOf.get(ctx);
  if (loaders === undefined) loadersOf.set(ctx, (loaders = new Map()));
  let loader = loaders.get(payloads);
  if (loader === undefined) {
    loader = new DataLoader<string, WorkflowEventRecord[]>(async (ids) => {
      const byInstance = await ctx.reader.eventsOfInstances(ids, { payloads });
      return ids.map((id) => orderEvents(byInstance.get(id) ?? []));
    });
    loaders.set(payloads, loader);
  }
  return loader;
}

/** Whether the selection of `events` asks for `data` (through fragments too): the payload is read only then. */
function selectsData(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): boolean {
  const seen = new Set<string>();
  const walk = (selections: readonly SelectionNode[] | undefined): boolean =>
    (selections ?? []).some((s) => {
      if (s.kind === 'Field') return s.name.value === 'data';
      if (s.kind === 'InlineFragment') return walk(s.selectionSet.selections);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      return walk(info.fragments[s.name.value]?.selectionSet.selections);
    });
  return info.fieldNodes.some((node) => walk(node.selectionSet?.selections));
}

export interface EventsArgs {
  readonly limit?: number | null;
  readonly after?: string | null;
}

export function eventHistoryResolvers(config: Pick<CoreConfig, 'graphql'>) {
  return {
    instanceEvents: async (p: WorkflowInstanceRecord, args: EventsArgs, ctx: { readonly reader: Reader }, info: GraphQLResolveInfo): Promise<WorkflowEventRecord[]> => {
      const { limit } = resolvePage(args.limit, 0, config.graphql);
      const after = args.after === null || args.after === undefined ? null : decodeEventCursor(args.after);
      if (limit === 0) return [];
      return pageOfEvents(await eventsLoader(ctx, selectsData(info)).load(p.id), after, limit);
    },
    WorkflowEvent: {
      time: (e: WorkflowEventRecord) => (e.time === null ? null : formatTimestampForOutput(e.time)),
      data: (e: WorkflowEventRecord) => e.data ?? null,
      cursor: (e: WorkflowEventRecord) => eventCursor(e),
    },
  };
}
