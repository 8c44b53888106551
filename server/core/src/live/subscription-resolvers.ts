// Subscription.workflowInstanceChanged: the filter is translated and checked as for getWorkflowInstances, the
// subscriber reads through the request's own Reader (scoped to its subject: auth/scoped-reader.ts), and each pushed
// run is resolved by the WorkflowInstance resolvers as any queried run.
import type { GraphQLResolveInfo } from 'graphql';
import type { CoreConfig } from '../config.js';
import { ErrorCode } from '../errors.js';
import { translateInstanceFilter } from '../filter-translation.js';
import type { InstanceFilterArg } from '../filter-translation.js';
import { graphql } from '../graphql-runtime.js';
import type { ServerContext } from '../request-state.js';
import type { ResolverContext } from '../resolvers.js';
import { liveSelectionOf } from './live-selection.js';
import type { LiveRun } from './live-selection.js';
import type { LiveSubscriber } from './live-subscriber.js';

export const SSE_ONLY_MESSAGE = 'Subscriptions are served over Server-Sent Events only: send the subscription with POST /graphql and the header Accept: text/event-stream.';
export const LIVE_UNAVAILABLE_MESSAGE = 'Live updates are not available on this server (its backend has no change feed); query the runs instead.';

export function subscriptionResolvers(config: CoreConfig) {
  const filterLimits = { maxDepth: config.graphql.maxFilterDepth, maxConditions: config.graphql.maxFilterConditions, maxInValues: config.graphql.maxFilterInValues } as const;
  return {
    workflowInstanceChanged: {
      async subscribe(_: unknown, args: { readonly filter?: InstanceFilterArg | null }, ctx: ResolverContext & Partial<ServerContext>, info: GraphQLResolveInfo): Promise<LiveSubscriber> {
        if (ctx.live === undefined) throw new graphql.GraphQLError(SSE_ONLY_MESSAGE, { extensions: { code: ErrorCode.BAD_USER_INPUT } });
        const hub = ctx.liveHub ?? null;
        if (hub === null) throw new graphql.GraphQLError(LIVE_UNAVAILABLE_MESSAGE, { extensions: { code: ErrorCode.SERVICE_UNAVAILABLE } });
        const filter = translateInstanceFilter(args.filter, filterLimits);
        return hub.subscribe({ reader: ctx.reader, filter, selection: liveSelectionOf(info), signal: ctx.live.signal });
      },
      resolve: (run: LiveRun): LiveRun => run,
    },
  };
}
