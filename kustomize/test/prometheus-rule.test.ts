// kustomize/components/prometheus-rule: the rendered PrometheusRule's groups pass `promtool check rules`, and
// every alert is unit-tested with `promtool test rules` against series shaped like what the server and Fluent
// Bit export: each alert fires where it should, with its labels and annotations, and stays quiet where it should.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, createLogger, loadCoreConfig } from '@workflow-index/core';
import type { Reader } from '@workflow-index/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { RecordingReader } from '@workflow-index/testkit';
import { type K8sObject, kubectlAvailable, render } from './support/kustomize-render.js';
import { promtool, promtoolAvailable } from './support/promtool.js';

const available = kubectlAvailable() && promtoolAvailable();

interface Rule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
interface RuleGroup {
  readonly name: string;
  readonly rules: readonly Rule[];
}

interface ExpectedAlert {
  readonly exp_labels: Record<string, string>;
  readonly exp_annotations: Record<string, string>;
}
interface AlertTest {
  readonly eval_time: string;
  readonly alertname: string;
  readonly exp_alerts: readonly ExpectedAlert[];
}
interface UnitTest {
  readonly name: string;
  readonly interval: string;
  readonly input_series: readonly { series: string; values: string }[];
  readonly alert_rule_test: readonly AlertTest[];
}

const NS = 'workflow-index';
const server = (metric: string, labels: string, values: string, pod = 'server-a'): { series: string; values: string } => ({
  series: `${metric}{namespace="${NS}",pod="${pod}",backend="postgresql"${labels === '' ? '' : `,${labels}`}}`,
  values,
});

const TESTS: UnitTest[] = [
  {
    name: 'ingestion stalled while the workflow pods log; quiet while events advance',
    interval: '1m',
    input_series: [
      // Events advance one minute per minute until 20m, then stop.
      server('workflow_index_newest_event_timestamp_seconds', '', '0+60x20 1200x40'),
      server('workflow_index_newest_event_timestamp_seconds', '', '0+60x20 1200x40', 'server-b'),
      { series: 'fluentbit_input_records_total{namespace="logging",pod="fluent-bit-x",name="workflow_pods"}', values: '0+100x60' },
    ],
    alert_rule_test: [
      { eval_time: '30m', alertname: 'WorkflowIndexIngestionStalled', exp_alerts: [] },
      {
        eval_time: '45m',
        alertname: 'WorkflowIndexIngestionStalled',
        exp_alerts: [
          {
            exp_labels: { severity: 'critical', namespace: NS },
            exp_annotations: {
              summary: `Workflow Index ingestion stalled in ${NS}`,
              description:
                'The newest normalized workflow event is 25m 0s old while Fluent Bit still reads lines from the workflow pods. Check the Fluent Bit pods (retries, output errors), the forwarder login and the database (locks, disk); see "Troubleshooting" in docs/deployment.md.',
            },
          },
        ],
      },
    ],
  },
  {
    name: 'no stall alert while the workflow pods write nothing',
    interval: '1m',
    input_series: [
      server('workflow_index_newest_event_timestamp_seconds', '', '0+60x20 1200x40'),
      { series: 'fluentbit_input_records_total{namespace="logging",pod="fluent-bit-x",name="workflow_pods"}', values: '2000x60' },
    ],
    alert_rule_test: [{ eval_time: '45m', alertname: 'WorkflowIndexIngestionStalled', exp_alerts: [] }],
  },
  {
    name: 'ingest errors rising, one alert for all replicas; quiet once they stop',
    interval: '1m',
    input_series: [
      server('workflow_index_ingest_errors_total', '', '5x20 6+1x9 15x30'),
      server('workflow_index_ingest_errors_total', '', '5x20 6+1x9 15x30', 'server-b'),
    ],
    alert_rule_test: [
      { eval_time: '18m', alertname: 'WorkflowIndexIngestErrorsRising', exp_alerts: [] },
      {
        eval_time: '28m',
        alertname: 'WorkflowIndexIngestErrorsRising',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning', namespace: NS },
            exp_annotations: {
              summary: `Workflow Index rejects events in ${NS}`,
              description: '8 events in the last 15 minutes could not be applied by the normalizer. They are kept in the raw store; the reasons are in workflow_index.ingest_errors (newest first).',
            },
          },
        ],
      },
      { eval_time: '55m', alertname: 'WorkflowIndexIngestErrorsRising', exp_alerts: [] },
    ],
  },
  {
    name: 'ingestion statistics unavailable on every replica (not when one still reads them)',
    interval: '1m',
    input_series: [server('workflow_index_ingestion_stats_up', '', '1x5 0x20'), server('workflow_index_ingestion_stats_up', '', '1x5 0x5 1x15', 'server-b')],
    alert_rule_test: [
      { eval_time: '20m', alertname: 'WorkflowIndexIngestionStatsUnavailable', exp_alerts: [] },
    ],
  },
  {
    name: 'ingestion statistics unavailable',
    interval: '1m',
    input_series: [server('workflow_index_ingestion_stats_up', '', '1x5 0x20')],
    alert_rule_test: [
      { eval_time: '12m', alertname: 'WorkflowIndexIngestionStatsUnavailable', exp_alerts: [] },
      {
        eval_time: '20m',
        alertname: 'WorkflowIndexIngestionStatsUnavailable',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning', namespace: NS },
            exp_annotations: {
              summary: `Workflow Index cannot read its ingestion statistics in ${NS}`,
              description:
                'The ingestion gauges (newest event, ingest errors, counts) repeat their last values: the backend did not answer within METRICS_BACKEND_TIMEOUT_MS on any replica for 10 minutes.',
            },
          },
        ],
      },
    ],
  },
  {
    name: 'forwarder and server targets down',
    interval: '1m',
    input_series: [
      { series: 'up{job="workflow-index-fluent-bit",namespace="logging",pod="fluent-bit-x"}', values: '1x5 0x20' },
      { series: 'up{job="workflow-index-server",namespace="workflow-index",pod="server-a"}', values: '1x5 0x20' },
    ],
    alert_rule_test: [
      { eval_time: '5m', alertname: 'WorkflowIndexForwarderDown', exp_alerts: [] },
      { eval_time: '5m', alertname: 'WorkflowIndexDown', exp_alerts: [] },
      {
        eval_time: '20m',
        alertname: 'WorkflowIndexForwarderDown',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning' },
            exp_annotations: {
              summary: 'No Fluent Bit forwarder of Workflow Index is scraped',
              description: 'No workflow-index-fluent-bit target answered for 10 minutes: events are not forwarded, or their metrics are not scraped (service-monitor component missing).',
            },
          },
        ],
      },
      {
        eval_time: '20m',
        alertname: 'WorkflowIndexDown',
        exp_alerts: [
          {
            exp_labels: { severity: 'critical' },
            exp_annotations: {
              summary: 'No Workflow Index server answers its metrics scrape',
              description: 'No workflow-index-server target has been up for 5 minutes; queries are not being served.',
            },
          },
        ],
      },
    ],
  },
  {
    name: 'an output retrying for 15 minutes, and one that dropped records; the quiet outputs are quiet',
    interval: '1m',
    input_series: [
      { series: 'fluentbit_output_retries_total{job="workflow-index-fluent-bit",namespace="workflow-index",pod="fluent-bit-a",name="workflow_task_events"}', values: '0+1x40' },
      { series: 'fluentbit_output_retries_total{job="workflow-index-fluent-bit",namespace="workflow-index",pod="fluent-bit-b",name="workflow_task_events"}', values: '0x40' },
      { series: 'fluentbit_output_dropped_records_total{job="workflow-index-fluent-bit",namespace="workflow-index",pod="fluent-bit-a",name="workflow_task_events"}', values: '0x20 5x20' },
      { series: 'fluentbit_output_dropped_records_total{job="workflow-index-fluent-bit",namespace="workflow-index",pod="fluent-bit-b",name="workflow_task_events"}', values: '0x40' },
      { series: 'fluentbit_output_retries_failed_total{job="workflow-index-fluent-bit",namespace="workflow-index",pod="fluent-bit-b",name="workflow_task_events"}', values: '0x40' },
    ],
    alert_rule_test: [
      { eval_time: '10m', alertname: 'WorkflowIndexForwarderRetrying', exp_alerts: [] },
      {
        eval_time: '30m',
        alertname: 'WorkflowIndexForwarderRetrying',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning', namespace: 'workflow-index', pod: 'fluent-bit-a', name: 'workflow_task_events' },
            exp_annotations: {
              summary: 'Fluent Bit output workflow_task_events of fluent-bit-a keeps retrying',
              description: 'The output has retried chunks for 15 minutes: the backend is away, or refuses a write (its log says why; a line that fails the whole write waits for ever, with the events behind it).',
            },
          },
        ],
      },
      { eval_time: '15m', alertname: 'WorkflowIndexForwarderDroppedRecords', exp_alerts: [] },
      {
        eval_time: '25m',
        alertname: 'WorkflowIndexForwarderDroppedRecords',
        exp_alerts: [
          {
            exp_labels: { severity: 'critical', namespace: 'workflow-index', pod: 'fluent-bit-a', name: 'workflow_task_events' },
            exp_annotations: {
              summary: 'Fluent Bit output workflow_task_events of fluent-bit-a dropped records',
              description: 'Records were given up in the last 10 minutes (retries exhausted, or the filesystem buffer full): those workflow events are lost. Replay the pods\' logs with init-job ingest if they still exist.',
            },
          },
        ],
      },
    ],
  },
  {
    name: 'a pod not ready for 5 minutes; the ready one is quiet',
    interval: '1m',
    input_series: [server('workflow_index_ready', '', '1x5 0x10'), server('workflow_index_ready', '', '1x15', 'server-b')],
    alert_rule_test: [
      { eval_time: '9m', alertname: 'WorkflowIndexNotReady', exp_alerts: [] },
      {
        eval_time: '15m',
        alertname: 'WorkflowIndexNotReady',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning', namespace: NS, pod: 'server-a' },
            exp_annotations: {
              summary: 'Workflow Index pod server-a has not been ready for 5 minutes',
              description:
                'Its readiness probe (/q/health/ready) reports DOWN: the backend does not answer, the schema is not the one this release needs, or the disk is full. `curl /q/health/ready` on the pod names the check.',
            },
          },
        ],
      },
    ],
  },
  {
    name: 'p99 latency of /graphql above 2 s',
    interval: '1m',
    input_series: [
      // 90% of requests within 1 s, the rest within 2.5 s: p99 = 1 + 1.5 × 9/10 = 2.35 s.
      server('http_server_requests_seconds_bucket', 'method="POST",uri="/graphql",status="200",outcome="SUCCESS",le="1"', '0+90x30'),
      server('http_server_requests_seconds_bucket', 'method="POST",uri="/graphql",status="200",outcome="SUCCESS",le="2.5"', '0+100x30'),
      server('http_server_requests_seconds_bucket', 'method="POST",uri="/graphql",status="200",outcome="SUCCESS",le="+Inf"', '0+100x30'),
      // Slow probes do not count.
      server('http_server_requests_seconds_bucket', 'method="GET",uri="/q/health/ready",status="200",outcome="SUCCESS",le="1"', '0x30'),
      server('http_server_requests_seconds_bucket', 'method="GET",uri="/q/health/ready",status="200",outcome="SUCCESS",le="+Inf"', '0+1000x30'),
    ],
    alert_rule_test: [
      { eval_time: '8m', alertname: 'WorkflowIndexHighLatency', exp_alerts: [] },
      {
        eval_time: '20m',
        alertname: 'WorkflowIndexHighLatency',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning', namespace: NS },
            exp_annotations: {
              summary: `Workflow Index p99 GraphQL latency is 2.35s in ${NS}`,
              description:
                'The 99th percentile of POST /graphql has been above 2 s for 10 minutes. Look at the slowest operations (graphql_operation_duration_seconds by operation_name), the pool and the backend\'s load.',
            },
          },
        ],
      },
    ],
  },
  {
    name: 'p99 latency below 2 s',
    interval: '1m',
    input_series: [
      server('http_server_requests_seconds_bucket', 'method="POST",uri="/graphql",status="200",outcome="SUCCESS",le="1"', '0+99.5x30'),
      server('http_server_requests_seconds_bucket', 'method="POST",uri="/graphql",status="200",outcome="SUCCESS",le="+Inf"', '0+100x30'),
    ],
    alert_rule_test: [{ eval_time: '20m', alertname: 'WorkflowIndexHighLatency', exp_alerts: [] }],
  },
  {
    name: 'pool saturated: requests wait for a connection at every scrape for 5 minutes',
    interval: '1m',
    input_series: [
      server('workflow_index_pool_connections', 'state="waiting"', '0x5 3x10'),
      server('workflow_index_pool_connections', 'state="waiting"', '0x5 3x2 0 3x7', 'server-b'),
    ],
    alert_rule_test: [
      { eval_time: '9m', alertname: 'WorkflowIndexPoolSaturated', exp_alerts: [] },
      // server-b had a scrape without waiting requests at 9m: pending again from 10m, not firing yet.
      {
        eval_time: '14m',
        alertname: 'WorkflowIndexPoolSaturated',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning', namespace: NS, pod: 'server-a' },
            exp_annotations: {
              summary: 'Workflow Index pod server-a waits for database connections',
              description:
                '3 requests have been queued for a pool connection at every scrape for 5 minutes: every connection is busy. Lower GRAPHQL_MAX_COST or HTTP_MAX_REQUESTS_PER_CLIENT, add replicas, or raise the pool size if the database has room.',
            },
          },
        ],
      },
    ],
  },
  {
    name: 'server errors above 5% of requests',
    interval: '1m',
    input_series: [
      server('http_server_requests_seconds_count', 'method="POST",uri="/graphql",status="500",outcome="SERVER_ERROR"', '0+10x30'),
      server('http_server_requests_seconds_count', 'method="POST",uri="/graphql",status="200",outcome="SUCCESS"', '0+90x30'),
    ],
    alert_rule_test: [
      {
        eval_time: '20m',
        alertname: 'WorkflowIndexServerErrors',
        exp_alerts: [
          {
            exp_labels: { severity: 'warning', namespace: NS },
            exp_annotations: { summary: `More than 5% of Workflow Index requests fail with a 5xx in ${NS}`, description: '10% of requests answered 5xx over 5 minutes.' },
          },
        ],
      },
    ],
  },
  {
    name: 'server errors below 5%',
    interval: '1m',
    input_series: [
      server('http_server_requests_seconds_count', 'method="POST",uri="/graphql",status="500",outcome="SERVER_ERROR"', '0+2x30'),
      server('http_server_requests_seconds_count', 'method="POST",uri="/graphql",status="200",outcome="SUCCESS"', '0+98x30'),
    ],
    alert_rule_test: [{ eval_time: '20m', alertname: 'WorkflowIndexServerErrors', exp_alerts: [] }],
  },
];

describe.skipIf(!available)('kustomize/components/prometheus-rule', () => {
  let dir: string;
  let rule: K8sObject;
  let groups: RuleGroup[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wi-promtool-'));
    const objects = render('kustomize/components/prometheus-rule');
    expect(objects.map((o) => `${o.apiVersion}/${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['monitoring.coreos.com/v1/PrometheusRule/workflow-index/workflow-index']);
    rule = objects[0]!;
    groups = (rule['spec'] as { groups: RuleGroup[] }).groups;
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('passes promtool check rules', () => {
    const result = promtool(['check', 'rules', 'rules.yaml'], dir);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });

  it('has the alerts an operator needs, each with a severity, a summary and a description', () => {
    const alerts = groups.flatMap((g) => g.rules);
    expect(alerts.map((r) => r.alert).sort()).toEqual([
      'WorkflowIndexDown',
      'WorkflowIndexForwarderDown',
      'WorkflowIndexForwarderDroppedRecords',
      'WorkflowIndexForwarderRetrying',
      'WorkflowIndexHighLatency',
      'WorkflowIndexIngestErrorsRising',
      'WorkflowIndexIngestionStalled',
      'WorkflowIndexIngestionStatsUnavailable',
      'WorkflowIndexNotReady',
      'WorkflowIndexPoolSaturated',
      'WorkflowIndexServerErrors',
    ]);
    for (const r of alerts) {
      expect(['warning', 'critical']).toContain(r.labels?.['severity']);
      expect(Object.keys(r.annotations ?? {}).sort()).toEqual(['description', 'summary']);
    }
    expect(rule.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'workflow-index', 'app.kubernetes.io/component': 'server' });
  });

  it('reads only metrics the server exports, so a renamed metric fails here (the normalizer\'s alerts: normalizer-monitor.test.ts)', async () => {
    const app = createApp({
      config: loadCoreConfig({ NODE_ENV: 'production', HEALTH_DISK_PATH: '/', HEALTH_DISK_MIN_FREE_BYTES: '1' }),
      reader: new RecordingReader() as Reader,
      logger: createLogger({ log: { level: 'silent', format: 'json' } }),
      backend: 'postgresql',
    });
    const text = await (await app.fetch(new Request('http://localhost/q/metrics'))).text();
    await app.dispose();
    const exported = new Set<string>();
    for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      exported.add(name!);
      if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) exported.add(`${name}${suffix}`);
    }
    const used = new Set(groups.flatMap((g) => g.rules.flatMap((r) => [...r.expr.matchAll(/\b(?:workflow_index|http_server|graphql)_[a-z0-9_]+/g)].map((m) => m[0]))));
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
    expect(used.size).toBe(7);
  });

  it('every alert is unit-tested firing and quiet', () => {
    const alerts = groups.flatMap((g) => g.rules.map((r) => r.alert));
    const cases = TESTS.flatMap((t) => t.alert_rule_test);
    for (const alert of alerts) {
      expect(cases.some((c) => c.alertname === alert && c.exp_alerts.length > 0), `${alert} fires in a test`).toBe(true);
      expect(cases.some((c) => c.alertname === alert && c.exp_alerts.length === 0), `${alert} stays quiet in a test`).toBe(true);
    }
  });

  it('passes promtool test rules', () => {
    writeFileSync(join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests: TESTS }));
    const result = promtool(['test', 'rules', 'tests.yaml'], dir);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });

  it('promtool test rules fails when an alert does not behave as tested (the harness can fail)', () => {
    const wrong: UnitTest[] = [{ ...TESTS[0]!, alert_rule_test: [{ eval_time: '30m', alertname: 'WorkflowIndexIngestionStalled', exp_alerts: [{ exp_labels: { severity: 'critical', namespace: NS }, exp_annotations: {} }] }] }];
    writeFileSync(join(dir, 'wrong.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests: wrong }));
    const result = promtool(['test', 'rules', 'wrong.yaml'], dir);
    expect(result.status).toBe(1);
    expect(result.output).toContain('FAILED');
  });
});
