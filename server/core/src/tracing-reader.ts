// A CLIENT span around every backend query the GraphQL layer makes (tracing on only, see tracing.ts): a child of
// the request's span, named after the Reader method (`postgresql listInstances`), failed when the query fails.
// A proxy rather than a class, so every present and future query method of the Reader is traced. Health checks and the metrics' reads (ping, ingestionStats, poolStats) are left out: they
// are not part of a request.
import type { Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Reader } from './reader.js';

const UNTRACED = new Set<PropertyKey>(['close', 'ping', 'ingestionStats', 'poolStats']);

export function tracedReader(reader: Reader, tracer: Tracer, backend: string): Reader {
  return traced(reader, tracer, backend);
}

function traced<T extends object>(target: T, tracer: Tracer, backend: string): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      // Bound to the reader itself: its methods use private fields, which a proxy as `this` does not have.
      if (typeof property !== 'string' || UNTRACED.has(property)) return method.bind(object);
      return (...args: unknown[]): Promise<unknown> =>
        tracer.startActiveSpan(
          `${backend} ${property}`,
          { kind: SpanKind.CLIENT, attributes: { 'db.system.name': backend, 'db.operation.name': property } },
          async (span) => {
            try {
              return await method.apply(object, args);
            } catch (error) {
              span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
              if (error instanceof Error) span.recordException(error);
              throw error;
            } finally {
              span.end();
            }
          },
        );
    },
  });
}
