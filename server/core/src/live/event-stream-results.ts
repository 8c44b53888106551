// The event stream of a request the SSE transport serves (GraphQL over SSE, "distinct connections" mode, as
// graphql-yoga writes it): a comment line at once and every GRAPHQL_SUBSCRIPTION_HEARTBEAT_MS, `event: next` per
// result, `event: complete` at the end. Yoga's own processor has a fixed 12 s heartbeat; this one is configurable.
// Never compressed or buffered: http/graphql-sse.ts writes each chunk as it comes.
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import type { Plugin } from 'graphql-yoga';
import type { ServerContext } from '../request-state.js';

export const EVENT_STREAM_TYPE = 'text/event-stream';
const encoder = new TextEncoder();

export function useEventStreamResults(heartbeatMs: number): Plugin<Record<string, unknown>, ServerContext> {
  return {
    onResultProcess({ serverContext, setResultProcessor }) {
      if (serverContext.live === undefined) return;
      setResultProcessor((result) => eventStreamResponse(result as ExecutionResult | AsyncIterable<ExecutionResult>, heartbeatMs), EVENT_STREAM_TYPE);
    },
  };
}

function eventStreamResponse(result: ExecutionResult | AsyncIterable<ExecutionResult>, heartbeatMs: number): Response {
  const iterator: AsyncIterator<ExecutionResult> = isAsyncIterable(result) ? result[Symbol.asyncIterator]() : single(result);
  let heartbeat: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // At once: some clients do not see the headers before the first bytes.
      controller.enqueue(encoder.encode(':\n\n'));
      heartbeat = setInterval(() => {
        if (controller.desiredSize === null) clearInterval(heartbeat);
        else controller.enqueue(encoder.encode(':\n\n'));
      }, heartbeatMs);
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done !== true) controller.enqueue(encoder.encode(`event: next\ndata: ${stringify(next.value)}\n\n`));
        else {
          clearInterval(heartbeat);
          controller.enqueue(encoder.encode('event: complete\ndata:\n\n'));
          controller.close();
        }
      } catch (error) {
        clearInterval(heartbeat);
        controller.error(error);
      }
    },
    async cancel() {
      clearInterval(heartbeat);
      await iterator.return?.();
    },
  });
  const headers = { 'Content-Type': EVENT_STREAM_TYPE, 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' };
  return new Response(body, { status: isAsyncIterable(result) ? 200 : statusOf(result), headers });
}

function single(result: ExecutionResult): AsyncIterator<ExecutionResult> {
  let done = false;
  return {
    next: () => {
      if (done) return Promise.resolve({ done: true, value: undefined });
      done = true;
      return Promise.resolve({ done: false, value: result });
    },
  };
}

/** A refusal before execution may name its HTTP status (e.g. 413); anything else is 200, as GraphQL over SSE answers. */
function statusOf(result: ExecutionResult): number {
  for (const error of result.errors ?? []) {
    const status = (error.extensions['http'] as { status?: unknown } | undefined)?.status;
    if (typeof status === 'number') return status;
  }
  return 200;
}

/** The result as JSON, without what only the server uses (an error's `http` extension). */
function stringify(result: ExecutionResult): string {
  if (result.errors === undefined) return JSON.stringify(result);
  const errors = result.errors.map((error) => {
    const { http: _http, ...extensions } = error.extensions as Record<string, unknown>;
    return { ...error.toJSON(), extensions };
  });
  return JSON.stringify({ ...result, errors });
}
