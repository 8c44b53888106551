// kustomize/components/grafana-dashboard: one ConfigMap the Grafana sidecar loads; the dashboard is valid JSON with a
// sane layout, every panel query is valid PromQL (`promtool check rules` on them as recording rules), and every
// metric it reads is one the server really exports (the /q/metrics text of an in-process app), or one of the two
// named metrics that come from elsewhere.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, loadCoreConfig, createLogger } from '@workflow-index/core';
import type { IngestionStats, Reader } from '@workflow-index/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DEFAULT_STATS, RecordingReader } from '@workflow-index/testkit';
import { REPO_ROOT, kubectlAvailable, render } from './support/kustomize-render.js';
import { promtool, promtoolAvailable } from './support/promtool.js';

interface Target { readonly refId: string; readonly expr: string; readonly datasource: { readonly uid: string } }
interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly targets?: readonly Target[];
  readonly datasource?: { readonly type: string; readonly uid: string };
}
interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly schemaVersion: number;
  readonly panels: readonly Panel[];
  readonly templating: { readonly list: readonly { name: string; type: string; query?: unknown; definition?: string }[] };
}

/** Metrics the dashboard reads that the server does not export, and who does. */
const FROM_ELSEWHERE: Record<string, string> = {
  fluentbit_output_proc_records_total: 'Fluent Bit (its /api/v2/metrics/prometheus, per output alias)',
  workflow_index_normalizer_lag_seconds: 'the OpenSearch normalizer',
};

const FILE = join(REPO_ROOT, 'kustomize/components/grafana-dashboard/workflow-index-dashboard.json');
const dashboard = JSON.parse(readFileSync(FILE, 'utf8')) as Dashboard;
const queries = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p, target: t })));

/** Grafana's variables as Prometheus sees them once Grafana has substituted them. */
function substituted(expr: string): string {
  return expr.replaceAll('$__rate_interval', '5m').replaceAll('$namespace', '.*');
}

/** Metric names of the selectors: every selector in the dashboard has matchers (`name{…}`), checked below. */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!);
}

/** Families in a Prometheus text exposition, with the series names a histogram or summary adds. */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram') for (const suffix of ['_bucket', '_count', '_sum']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_count', '_sum']) names.add(`${name}${suffix}`);
  }
  return names;
}

describe('grafana dashboard JSON', () => {
  it('is a dashboard with a stable uid, a data source variable and a namespace variable', () => {
    expect(dashboard.uid).toBe('workflow-index');
    expect(dashboard.title).toBe('Workflow Index');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.templating.list.map((v) => [v.name, v.type])).toEqual([
      ['datasource', 'datasource'],
      ['namespace', 'query'],
    ]);
  });

  it('has unique panel ids, panels inside the 24-column grid that do not overlap', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Set<string>();
    for (const p of dashboard.panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++) {
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`), `${p.title} overlaps another panel at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
      }
    }
  });

  it('every panel but rows queries the selected Prometheus, and every selector is scoped to $namespace or names its source', () => {
    for (const p of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      for (const t of p.targets ?? []) expect(t.datasource.uid).toBe('${datasource}');
    }
    for (const { target } of queries) {
      const selectors = [...target.expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}/g)];
      expect(selectors.length, target.expr).toBeGreaterThan(0);
      for (const [, name, matchers] of selectors) {
        if (name! in FROM_ELSEWHERE) continue;
        expect(matchers, target.expr).toMatch(/^namespace=~"\$namespace"/);
      }
    }
  });

  it('shows requests, latency, errors by code, ingestion rate and lag, ingest errors and the pool', () => {
    const used = new Set(queries.flatMap(({ target }) => metricNames(target.expr)));
    for (const name of [
      'http_server_requests_seconds_count',
      'http_server_requests_seconds_bucket',
      'graphql_errors_total',
      'workflow_index_raw_events',
      'workflow_index_newest_event_timestamp_seconds',
      'workflow_index_normalizer_lag_seconds',
      'workflow_index_ingest_errors_total',
      'workflow_index_pool_connections',
      'workflow_index_instances_by_status',
    ]) {
      expect(used.has(name), name).toBe(true);
    }
  });
});

describe('grafana dashboard metrics are what the server exports', () => {
  let exported: Set<string>;
  beforeAll(async () => {
    const stats = { ...DEFAULT_STATS, instancesByStatus: { RUNNING: 1 } } as IngestionStats;
    const app = createApp({
      config: loadCoreConfig({ NODE_ENV: 'production', HEALTH_DISK_PATH: '/', HEALTH_DISK_MIN_FREE_BYTES: '1' }),
      reader: new RecordingReader({ ingestionStats: () => Promise.resolve(stats) }) as Reader,
      logger: createLogger({ log: { level: 'silent', format: 'json' } }),
      backend: 'postgresql',
    });
    const response = await app.fetch(new Request('http://localhost/q/metrics'));
    exported = exportedNames(await response.text());
    await app.dispose();
  });

  it.each(queries.map(({ panel, target }) => [`${panel.title} ${target.refId}`, target.expr]))('%s', (_, expr) => {
    for (const name of metricNames(expr)) {
      if (name in FROM_ELSEWHERE) continue;
      expect(exported.has(name), `${name} is not in /q/metrics`).toBe(true);
    }
  });

  it('the namespace variable reads a metric the server exports', () => {
    const variable = dashboard.templating.list.find((v) => v.name === 'namespace');
    expect(variable?.definition).toBe('label_values(workflow_index_ready, namespace)');
    expect(exported.has('workflow_index_ready')).toBe(true);
  });
});

describe.skipIf(!(kubectlAvailable() && promtoolAvailable()))('kustomize/components/grafana-dashboard', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wi-dashboard-'));
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('renders one ConfigMap with the grafana_dashboard label holding the dashboard byte for byte', () => {
    const objects = render('kustomize/components/grafana-dashboard');
    expect(objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['ConfigMap/workflow-index/workflow-index-grafana-dashboard']);
    expect(objects[0]!.metadata.labels?.['grafana_dashboard']).toBe('1');
    expect((objects[0]!['data'] as Record<string, string>)['workflow-index-dashboard.json']).toBe(readFileSync(FILE, 'utf8'));
  });

  it('every panel query is valid PromQL (promtool check rules)', () => {
    const rules = queries.map(({ panel, target }) => ({ record: `workflow_index_dashboard:panel_${panel.id}_${target.refId}`, expr: substituted(target.expr) }));
    writeFileSync(join(dir, 'dashboard-queries.yaml'), stringify({ groups: [{ name: 'dashboard', rules }] }));
    const result = promtool(['check', 'rules', 'dashboard-queries.yaml'], dir);
    expect(result.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(result.status).toBe(0);
  });

  it('promtool check rules refuses a query that is not PromQL (the check can fail)', () => {
    writeFileSync(join(dir, 'bad.yaml'), stringify({ groups: [{ name: 'dashboard', rules: [{ record: 'x:y', expr: 'sum by (uri (rate(x[5m]))' }] }] }));
    expect(promtool(['check', 'rules', 'bad.yaml'], dir).status).toBe(1);
  });
});
