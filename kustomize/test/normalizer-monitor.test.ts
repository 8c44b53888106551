// kustomize/components/normalizer-monitor (OpenSearch only): its ServiceMonitor scrapes exactly the normalizer's
// Service on the port the normalizer listens on (9464, admitted by its NetworkPolicy), its alerts read only series
// the normalizer exports (server/opensearch/src/normalizer-metrics.ts, so a renamed metric fails here), pass
// `promtool check rules`, and each fires and stays quiet where it should under `promtool test rules`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createNormalizerMetrics } from '@workflow-index/opensearch';
import { type K8sObject, kubectlAvailable, objectId, render, renderCombination } from './support/kustomize-render.js';
import { promtool, promtoolAvailable } from './support/promtool.js';

const available = kubectlAvailable() && promtoolAvailable();

interface Rule {
  readonly alert: string;
  readonly expr: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

const NS = 'workflow-index';
const JOB = 'workflow-index-normalizer';
const normalizer = (metric: string, values: string, pod = 'normalizer-a'): { series: string; values: string } => ({
  series: `${metric}{namespace="${NS}",pod="${pod}",job="${JOB}"}`,
  values,
});

const TESTS = [
  {
    name: 'lag over 5 minutes for 10 minutes',
    interval: '1m',
    input_series: [normalizer('workflow_index_normalizer_lag_seconds', '10x5 600x20')],
    alert_rule_test: [
      { eval_time: '5m', alertname: 'WorkflowIndexNormalizerLagging', exp_alerts: [] },
      {
        eval_time: '20m',
        alertname: 'WorkflowIndexNormalizerLagging',
        exp_alerts: [{
          exp_labels: { severity: 'warning', namespace: NS },
          exp_annotations: {
            summary: `Workflow Index normalizer is 10m 0s behind in ${NS}`,
            description: "Raw events wait more than 5 minutes before the OpenSearch normalizer applies them: queries serve stale instances. Check the normalizer's logs and the OpenSearch cluster's health and load.",
          },
        }],
      },
    ],
  },
  {
    name: 'cycles failing for 15 minutes (a passive replica reports none); quiet before and after',
    interval: '1m',
    input_series: [
      // Failures grow from minute 5 on, and recover at 40.
      normalizer('workflow_index_normalizer_consecutive_failures', '0x5 1+1x34 0x20'),
      normalizer('workflow_index_normalizer_active', '1x60'),
      // A second replica without the lease reports no failures of its own.
      normalizer('workflow_index_normalizer_consecutive_failures', '0x60', 'normalizer-b'),
      normalizer('workflow_index_normalizer_active', '0x60', 'normalizer-b'),
    ],
    alert_rule_test: [
      { eval_time: '15m', alertname: 'WorkflowIndexNormalizerFailing', exp_alerts: [] },
      {
        eval_time: '25m',
        alertname: 'WorkflowIndexNormalizerFailing',
        exp_alerts: [{
          exp_labels: { severity: 'warning', namespace: NS },
          exp_annotations: {
            summary: `Workflow Index normalizer cycles keep failing in ${NS}`,
            description: 'Every normalization cycle for 15 minutes failed (20 in a row); it retries with back-off. The reason is in its log (`normalizer cycle failed`) and /q/health/ready: OpenSearch unreachable, credentials or privileges of the normalizer user, or a full cluster.',
          },
        }],
      },
      { eval_time: '50m', alertname: 'WorkflowIndexNormalizerFailing', exp_alerts: [] },
    ],
  },
  {
    name: 'no replica holds the lease for 10 minutes; one holder is enough',
    interval: '1m',
    input_series: [
      normalizer('workflow_index_normalizer_active', '1x10 0x30 1x10'),
      normalizer('workflow_index_normalizer_active', '0x50', 'normalizer-b'),
    ],
    alert_rule_test: [
      { eval_time: '9m', alertname: 'WorkflowIndexNormalizerNotActive', exp_alerts: [] },
      {
        eval_time: '30m',
        alertname: 'WorkflowIndexNormalizerNotActive',
        exp_alerts: [{
          exp_labels: { severity: 'warning', namespace: NS },
          exp_annotations: {
            summary: `No Workflow Index normalizer holds the lease in ${NS}`,
            description: 'The normalizer runs but has not held its lease for 10 minutes, so nothing is normalized. The lease document is in workflow-index-normalizer; `init-job status --backend opensearch` shows its holder.',
          },
        }],
      },
      { eval_time: '45m', alertname: 'WorkflowIndexNormalizerNotActive', exp_alerts: [] },
    ],
  },
  {
    name: 'the normalizer target down for 10 minutes; up is quiet',
    interval: '1m',
    input_series: [normalizer('up', '1x10 0x20')],
    alert_rule_test: [
      { eval_time: '10m', alertname: 'WorkflowIndexNormalizerDown', exp_alerts: [] },
      {
        eval_time: '25m',
        alertname: 'WorkflowIndexNormalizerDown',
        exp_alerts: [{
          exp_labels: { severity: 'critical' },
          exp_annotations: {
            summary: 'No Workflow Index normalizer answers its metrics scrape',
            description: 'No workflow-index-normalizer target has been up for 10 minutes: raw events are not normalized and queries serve stale instances (or the normalizer-monitor component is applied without the OpenSearch backend).',
          },
        }],
      },
    ],
  },
];

describe.skipIf(!available)('kustomize/components/normalizer-monitor', () => {
  let objects: K8sObject[];
  let rules: Rule[];
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wi-promtool-normalizer-'));
    // The OpenSearch production overlay with every monitoring component, as an operator would combine them.
    objects = renderCombination(['kustomize/overlays/opensearch'], ['kustomize/components/service-monitor', 'kustomize/components/prometheus-rule', 'kustomize/components/normalizer-monitor']);
    const rule = objects.find((o) => o.kind === 'PrometheusRule' && o.metadata.name === 'workflow-index-normalizer')!;
    const groups = (rule['spec'] as { groups: { name: string; rules: Rule[] }[] }).groups;
    rules = groups.flatMap((g) => g.rules);
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('adds a ServiceMonitor and a PrometheusRule and nothing else', () => {
    const overlay = new Set(render('kustomize/overlays/opensearch').map(objectId));
    const component = render('kustomize/components/normalizer-monitor').map(objectId).sort();
    expect(component).toEqual(['PrometheusRule/workflow-index/workflow-index-normalizer', 'ServiceMonitor/workflow-index/workflow-index-normalizer']);
    expect(objects.map(objectId).filter((id) => !overlay.has(id)).sort()).toEqual([
      'PrometheusRule/workflow-index/workflow-index',
      ...component,
      'ServiceMonitor/logging/workflow-index-fluent-bit',
      'ServiceMonitor/workflow-index/workflow-index-server',
    ].sort());
  });

  it('scrapes exactly the normalizer Service on the port the normalizer listens on (9464), which its NetworkPolicy admits', () => {
    const monitor = objects.find((o) => o.kind === 'ServiceMonitor' && o.metadata.name === JOB)!;
    const spec = monitor['spec'] as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] };
    const selects = (selector: Record<string, string>, labels: Record<string, string> = {}): boolean => Object.entries(selector).every(([k, v]) => labels[k] === v);
    const services = objects.filter((o) => o.kind === 'Service' && o.metadata.namespace === monitor.metadata.namespace && selects(spec.selector.matchLabels, o.metadata.labels));
    // The Prometheus operator names the job after the Service: WorkflowIndexNormalizerDown reads job="workflow-index-normalizer".
    expect(services.map(objectId)).toEqual([`Service/${NS}/${JOB}`]);
    expect(spec.endpoints.map((e) => [e.port, e.path])).toEqual([['metrics', '/q/metrics']]);
    const service = services[0]!['spec'] as { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
    const port = service.ports.find((p) => p.name === 'metrics')!;
    expect(port.port).toBe(9464);
    const pods = objects.filter((o) => (o.kind === 'Deployment' || o.kind === 'StatefulSet') && o.metadata.namespace === NS
      && selects(service.selector, (o['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels));
    expect(pods.map(objectId)).toEqual([`StatefulSet/${NS}/${JOB}`]);
    const container = (pods[0]!['spec'] as { template: { spec: { containers: { ports: { name: string; containerPort: number }[]; env: { name: string; value?: string }[] }[] } } }).template.spec.containers[0]!;
    expect(container.ports.find((p) => p.name === port.targetPort)?.containerPort).toBe(9464);
    expect(container.env.find((e) => e.name === 'NORMALIZER_HTTP_PORT')?.value).toBe('9464');
    const policy = objects.find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === JOB)!;
    const ingress = (policy['spec'] as { ingress: { ports: { port: string | number }[] }[] }).ingress;
    expect(ingress.some((rule) => rule.ports.some((p) => p.port === 'metrics' || p.port === 9464))).toBe(true);
  });

  it('reads only series the normalizer exports (and the scrape\'s `up`), so a renamed metric fails here', async () => {
    const metrics = createNormalizerMetrics();
    const exported = new Set<string>();
    for (const [, name, type] of (await metrics.registry.metrics()).matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      exported.add(name!);
      if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) exported.add(`${name}${suffix}`);
    }
    const used = new Set(rules.flatMap((r) => [...r.expr.matchAll(/\bworkflow_index_[a-z0-9_]+/g)].map((m) => m[0])));
    expect([...used].sort()).toEqual(['workflow_index_normalizer_active', 'workflow_index_normalizer_consecutive_failures', 'workflow_index_normalizer_lag_seconds']);
    expect([...used].filter((name) => !exported.has(name))).toEqual([]);
  });

  it('has no alert of the same name as the shared PrometheusRule, each with a severity, a summary and a description', () => {
    const shared = objects.filter((o) => o.kind === 'PrometheusRule' && o.metadata.name === 'workflow-index')
      .flatMap((o) => (o['spec'] as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules.map((r) => r.alert)));
    expect(rules.map((r) => r.alert).sort()).toEqual(['WorkflowIndexNormalizerDown', 'WorkflowIndexNormalizerFailing', 'WorkflowIndexNormalizerLagging', 'WorkflowIndexNormalizerNotActive']);
    expect(rules.filter((r) => shared.includes(r.alert))).toEqual([]);
    for (const r of rules) {
      expect(['warning', 'critical']).toContain(r.labels?.['severity']);
      expect(Object.keys(r.annotations ?? {}).sort()).toEqual(['description', 'summary']);
    }
  });

  it('passes promtool check rules and test rules; every alert fires and stays quiet in a test', () => {
    const check = promtool(['check', 'rules', 'rules.yaml'], dir);
    expect(check.output).toContain('SUCCESS');
    const cases = TESTS.flatMap((t) => t.alert_rule_test);
    for (const { alert } of rules) {
      expect(cases.some((c) => c.alertname === alert && c.exp_alerts.length > 0), `${alert} fires in a test`).toBe(true);
      expect(cases.some((c) => c.alertname === alert && c.exp_alerts.length === 0), `${alert} stays quiet in a test`).toBe(true);
    }
    writeFileSync(join(dir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests: TESTS }));
    const result = promtool(['test', 'rules', 'tests.yaml'], dir);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });
});
