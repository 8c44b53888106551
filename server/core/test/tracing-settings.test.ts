// The opt-in rule of OpenTelemetry tracing (tracing.ts): off by default, on with the standard OTLP environment,
// and a clear configuration error for what this server cannot export.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config.js';
import { tracingSettings } from '../src/tracing.js';

describe('tracingSettings', () => {
  it('is off without any OTEL_* setting', () => {
    expect(tracingSettings({})).toEqual({ enabled: false });
  });

  it('is on with an OTLP endpoint (the traces one first) or OTEL_TRACES_EXPORTER=otlp', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ enabled: true, endpoint: 'http://collector:4318' });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/v1/traces' })).toEqual({ enabled: true, endpoint: 'http://b:4318/v1/traces' });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ enabled: true, endpoint: null });
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: ' OTLP ', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toEqual({ enabled: true, endpoint: null });
  });

  it('stays off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, whatever else is set', () => {
    expect(tracingSettings({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({ enabled: false });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toEqual({ enabled: false });
  });

  it('refuses other exporters and protocols, every problem at once, saying what to set', () => {
    let caught: unknown;
    try {
      tracingSettings({ OTEL_TRACES_EXPORTER: 'otlp,jaeger', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).problems).toEqual([
      'OTEL_TRACES_EXPORTER=jaeger is not supported: use otlp (OTLP over HTTP/JSON) or none',
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf is not supported: this server exports traces as OTLP over HTTP with JSON; set OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json (an OpenTelemetry Collector accepts it on its HTTP port, 4318)',
    ]);
  });
});
