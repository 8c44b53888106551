// node:http: POST /graphql (the hot path) goes to yoga's own node integration and is written in one call
// (graphql-over-node.ts); everything else goes through the fetch handler, as in-process callers do.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createNodeHandler } from '../node-adapter.js';
import { REQUEST_ID_HEADER, requestContext, requestIdOf } from '../request-context.js';
import type { AppFetch } from './fetch-handler.js';
import { handleGraphQLOverNode, isGraphQLTarget } from './graphql-over-node.js';
import type { GraphQLOverNodeDeps } from './graphql-over-node.js';

export function createNodeRequestHandler(deps: GraphQLOverNodeDeps & { readonly fetch: AppFetch }): (req: IncomingMessage, res: ServerResponse) => void {
  const viaFetch = createNodeHandler(deps.fetch, deps.logger);
  return (req, res) => {
    if (req.method !== 'POST' || !isGraphQLTarget(req.url, req.headers.host)) {
      viaFetch(req, res);
      return;
    }
    const header = req.headers[REQUEST_ID_HEADER];
    const requestId = requestIdOf(Array.isArray(header) ? null : header);
    requestContext.run({ requestId }, () => handleGraphQLOverNode(deps, req, res, requestId));
  };
}
