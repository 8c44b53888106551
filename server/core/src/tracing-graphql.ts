// One span per GraphQL request (tracing on only, see tracing.ts): a SERVER span continuing the caller's trace
// when the request carries a W3C `traceparent`, named after the operation (`query Page`), with the request id the
// log lines carry; execution runs inside it, so the reader's spans (tracing-reader.ts) are its children.
import type { Span, Tracer } from '@opentelemetry/api';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { graphql } from './graphql-runtime.js';
import { requestContext } from './request-context.js';
import type { ServerContext } from './request-state.js';

type Context = YogaInitialContext & ServerContext;

const headerGetter = {
  keys: (carrier: Headers): string[] => [...carrier.keys()],
  get: (carrier: Headers, key: string): string | undefined => carrier.get(key) ?? undefined,
};

export function useTracing(tracer: Tracer): Plugin<Context, ServerContext> {
  const spans = new WeakMap<Request, Span>();
  return {
    onRequest({ request, url }) {
      const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
      const requestId = requestContext.getStore()?.requestId;
      const span = tracer.startSpan(
        'graphql',
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': request.method,
            'url.path': url.pathname,
            ...(requestId === undefined ? {} : { 'http.request.header.x-request-id': [requestId] }),
          },
        },
        parent,
      );
      spans.set(request, span);
    },
    onParse({ context: yogaContext }) {
      return ({ result }) => {
        const span = spans.get(yogaContext.request);
        if (span === undefined || result === null || result instanceof Error) return;
        const operation = graphql.getOperationAST(result, yogaContext.params.operationName ?? undefined);
        if (operation === null || operation === undefined) return;
        const name = operation.name?.value ?? null;
        span.updateName(name === null ? operation.operation : `${operation.operation} ${name}`);
        span.setAttribute('graphql.operation.type', operation.operation);
        if (name !== null) span.setAttribute('graphql.operation.name', name);
      };
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      const span = spans.get((args.contextValue as Context).request);
      if (span === undefined) return;
      const active = trace.setSpan(context.active(), span);
      setExecuteFn((executeArgs) => context.with(active, () => executeFn(executeArgs)));
    },
    onResponse({ request, response, serverContext }) {
      const span = spans.get(request);
      if (span === undefined) return;
      spans.delete(request);
      span.setAttribute('http.response.status_code', response.status);
      const codes = serverContext.requestState?.errorCodes ?? [];
      if (codes.length > 0) span.setAttribute('graphql.error.codes', codes);
      // A server span is an error for 5xx and for errors of ours (the client's mistakes are not the server's).
      if (response.status >= 500 || codes.some((c) => c === 'INTERNAL_SERVER_ERROR' || c === 'SERVICE_UNAVAILABLE' || c === 'QUERY_TIMEOUT')) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: codes.join(', ') || `HTTP ${response.status}` });
      }
      span.end();
    },
  };
}
