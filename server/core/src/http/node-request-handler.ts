// node:http: POST /graphql (the hot path) goes to yoga's own node integration and is written in one call
// (graphql-over-node.ts); everything else goes through the fetch handler, as in-process callers do.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createNodeHandler } from '../node-adapter.js';
import { REQUEST_ID_HEADER, requestContext, requestIdOf } from '../request-context.js';
import type { AppFetch } from './fetch-handler.js';
import { handleGraphQLOverNode, isGraphQLTarget } from './graphql-over-node.js';
import type { GraphQLOverNodeDeps } from './graphql-over-node.js';
import { acceptsEventStream, handleGraphQLSseOverNode } from './graphql-sse.js';
import type { GraphQLSseDeps } from './graphql-sse.js';

export function createNodeRequestHandler(deps: GraphQLOverNodeDeps & { readonly fetch: AppFetch; readonly sse: GraphQLSseDeps }): (req: IncomingMessage, res: ServerResponse) => void {
  const viaFetch = createNodeHandler(deps.fetch, deps.logger);
  return (req, res) => {
    if (req.method !== 'POST' || !isGraphQLTarget(req.url, req.headers.host)) {
      viaFetch(req, res);
      return;
    }
    const header = req.headers[REQUEST_ID_HEADER];
    const requestId = requestIdOf(Array.isArray(header) ? null : header);
    // An event stream (a subscription) is written as it comes, never buffered like the answers of the hot path.
    if (acceptsEventStream(req.headers.accept)) requestContext.run({ requestId }, () => handleGraphQLSseOverNode(deps.sse, req, res, requestId));
    else requestContext.run({ requestId }, () => handleGraphQLOverNode(deps, req, res, requestId));
  };
}
