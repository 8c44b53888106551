// OpenTelemetry tracing, opt-in: off unless the standard OTLP environment asks for it, so a server
// nobody configured for tracing pays nothing (no provider, no plugin, no wrapped reader). On, it exports over
// OTLP/HTTP (JSON) with the official SDK, registered globally: the W3C `traceparent` propagator and an
// AsyncLocalStorage context manager, which carries the request's span into the reader's spans.
//
// The rule, from the OpenTelemetry SDK environment specification, narrowed to what this server exports:
//  - OTEL_SDK_DISABLED=true: off.
//  - OTEL_TRACES_EXPORTER: `otlp` turns it on, `none` (or unset) leaves it to the endpoint; any other exporter
//    name is a configuration error (only OTLP is shipped).
//  - Unset exporter: on when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is set.
//  - OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: `http/json` (the default here); `grpc` and `http/protobuf` are refused
//    with the setting to use, rather than silently sending another protocol than the one asked for.
// Everything else (service name and resource attributes, sampler, batch delays, headers, timeouts) is read by the
// SDK from its usual variables.
import type { Tracer } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ConfigError } from './config.js';
import type { Logger } from './logger.js';

export const TRACER_NAME = '@workflow-index/core';
const DEFAULT_SERVICE_NAME = 'workflow-index';

export type TracingSettings =
  | { readonly enabled: false }
  | { readonly enabled: true; readonly endpoint: string | null };

type Env = Readonly<Record<string, string | undefined>>;

const set = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';

/** Whether the environment turns tracing on; throws ConfigError (every problem at once) for settings it cannot honour. */
export function tracingSettings(env: Env): TracingSettings {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return { enabled: false };
  const problems: string[] = [];
  const exporters = (env['OTEL_TRACES_EXPORTER'] ?? '').split(',').map((e) => e.trim().toLowerCase()).filter((e) => e !== '');
  const unsupported = exporters.filter((e) => e !== 'otlp' && e !== 'none');
  if (unsupported.length > 0) {
    problems.push(`OTEL_TRACES_EXPORTER=${unsupported.join(',')} is not supported: use otlp (OTLP over HTTP/JSON) or none`);
  }
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[name]?.trim().toLowerCase();
    if (set(protocol) && protocol !== 'http/json') {
      problems.push(`${name}=${protocol} is not supported: this server exports traces as OTLP over HTTP with JSON; set ${name}=http/json (an OpenTelemetry Collector accepts it on its HTTP port, 4318)`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const endpoint = set(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) ? env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] : set(env['OTEL_EXPORTER_OTLP_ENDPOINT']) ? env['OTEL_EXPORTER_OTLP_ENDPOINT'] : null;
  if (exporters.includes('none')) return { enabled: false };
  if (exporters.includes('otlp') || endpoint !== null) return { enabled: true, endpoint: endpoint ?? null };
  return { enabled: false };
}

export interface Tracing {
  /** Exports what is buffered and stops; resolves even when the collector is unreachable. */
  shutdown(): Promise<void>;
}

let activeTracer: Tracer | null = null;

/** The tracer of a started tracing, or null when tracing is off: callers add spans only when it is on. */
export function activeTracing(): Tracer | null {
  return activeTracer;
}

/** Starts tracing when the environment asks for it (see the rule above); null when it does not. */
export function startTracing(env: Env, logger: Logger, release?: string): Tracing | null {
  const settings = tracingSettings(env);
  if (!settings.enabled) return null;
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME, ...(release === undefined ? {} : { 'service.version': release }) }))
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults above.
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  provider.register();
  activeTracer = trace.getTracer(TRACER_NAME, release);
  logger.info({ endpoint: settings.endpoint ?? 'http://localhost:4318 (the OTLP default)' }, 'OpenTelemetry tracing on: exporting spans over OTLP/HTTP (JSON)');
  return {
    async shutdown() {
      activeTracer = null;
      await provider.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'OpenTelemetry: the last spans could not be exported'));
    },
  };
}
