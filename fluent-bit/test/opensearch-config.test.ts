// Static checks of fluent-bit/opensearch against the PostgreSQL configuration it shares its routing with, the raw
// schema it writes into, the facts of the opensearch output, and the DaemonSet that runs it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX, rawIndexTemplate } from '@workflow-index/opensearch';
import { environmentReferences, property, requiredProperty, sectionsOf } from '../model/classic-config.js';
import { FLUENT_BIT_ROOT, loadFluentBitConfig } from '../model/load-config.js';
import { createPipeline } from '../model/pipeline.js';
import { openSearchTargets } from '../model/opensearch-output.js';
import { OPENSEARCH_OVERLAYS, kubectlAvailable, render } from '../../kustomize/test/support/kustomize-render.js';
import { fluentBitDeployment, modelEnvironment } from './support/fluent-bit-deployment.js';
import { openSearchEnvironment } from './support/opensearch-environment.js';

const opensearch = loadFluentBitConfig('opensearch');
const postgresql = loadFluentBitConfig('postgresql');
const { config, parsers } = opensearch;
const service = sectionsOf(config, 'SERVICE')[0]!;
const outputs = sectionsOf(config, 'OUTPUT');
const available = kubectlAvailable();

/** A section without its comments' influence: name/value pairs in order. */
const entries = (section: { entries: readonly { key: string; value: string }[] }): string[][] => section.entries.map((e) => [e.key, e.value]);

describe('fluent-bit/opensearch configuration', () => {
  it('shares the PostgreSQL service settings, input, parsers and every filter, with opensearch_document added after the line repair and the event-kubernetes rename', () => {
    expect(entries(service)).toEqual(entries(sectionsOf(postgresql.config, 'SERVICE')[0]!));
    expect(sectionsOf(config, 'INPUT').map(entries)).toEqual(sectionsOf(postgresql.config, 'INPUT').map(entries));
    expect(parsers).toEqual({ ...postgresql.parsers, source: 'fluent-bit/opensearch/parsers.conf' });
    const filters = sectionsOf(config, 'FILTER').map(entries);
    const shared = sectionsOf(postgresql.config, 'FILTER').map(entries);
    expect(filters.map((f) => f.find(([k]) => k === 'Alias')![1])).toEqual([
      'join_split_lines', 'repair_event_line', 'keep_event_kubernetes', 'opensearch_document', 'parse_event_json', 'keep_lifecycle_events', 'pod_metadata',
      'require_pod_metadata', 'skip_opted_out_pods', 'route_by_event_kind',
    ]);
    expect([...filters.slice(0, 3), ...filters.slice(4)]).toEqual(shared);
    expect(filters[3]).toEqual([['Name', 'lua'], ['Alias', 'opensearch_document'], ['Match', 'kube.*'], ['script', 'opensearch-document.lua'], ['call', 'opensearch_document']]);
  });

  it('keeps one copy of each shared file: parsers.conf and the two Lua scripts live in fluent-bit/postgresql only', () => {
    for (const name of ['parsers.conf', 'join-partial-lines.lua', 'repair-line.lua', 'event-kubernetes.lua']) {
      expect(() => readFileSync(join(FLUENT_BIT_ROOT, 'opensearch', name)), name).toThrow();
    }
    expect(readFileSync(join(FLUENT_BIT_ROOT, 'opensearch', 'kustomization.yaml'), 'utf8')).toMatch(/resources:\n\s+- \.\.\/postgresql\n/);
  });

  it('writes through two opensearch outputs into the daily raw indices of CONTRACT §7, in the shape the raw templates expect', () => {
    expect(outputs.map((o) => requiredProperty(o, 'Name'))).toEqual(['opensearch', 'opensearch']);
    const pipeline = createPipeline({ config, parsers, env: openSearchEnvironment() });
    expect(openSearchTargets(pipeline)).toEqual([
      { output: 'workflow_events', logstashPrefix: WORKFLOW_RAW_PREFIX, dateFormat: '%Y.%m.%d', timeKey: '@timestamp', writeOperation: 'create', suppressTypeName: true, generateId: true },
      { output: 'task_events', logstashPrefix: TASK_RAW_PREFIX, dateFormat: '%Y.%m.%d', timeKey: '@timestamp', writeOperation: 'create', suppressTypeName: true, generateId: true },
    ]);
    // No Pipeline: the raw templates name the raw pipeline as the indices' default pipeline (a Pipeline setting
    // would replace it).
    for (const o of outputs) expect(property(o, 'Pipeline'), o.line.toString()).toBeUndefined();
    for (const raw of [WORKFLOW_RAW_PREFIX, TASK_RAW_PREFIX] as const) {
      expect((rawIndexTemplate(raw) as { template: { settings: { index: { default_pipeline?: string } } } }).template.settings.index.default_pipeline).toBeDefined();
    }
  });

  it('never drops a batch, buffers on disk, reads whole bulk answers, and connects with TLS verification and credentials from the environment', () => {
    for (const o of outputs) {
      const at = `output line ${o.line}`;
      expect(property(o, 'Retry_Limit'), at).toBe('no_limits');
      expect(property(o, 'storage.total_limit_size'), at).toBe('1G');
      expect(property(o, 'Buffer_Size'), at).toBe('False');
      expect(property(o, 'Replace_Dots'), at).toBe('Off'); // it would rename dotted payload keys
      expect([property(o, 'Host'), property(o, 'Port')], at).toEqual(['${OPENSEARCH_HOST}', '${OPENSEARCH_PORT}']);
      expect([property(o, 'HTTP_User'), property(o, 'HTTP_Passwd')], at).toEqual(['${OPENSEARCH_USERNAME}', '${OPENSEARCH_PASSWORD}']);
      expect([property(o, 'tls'), property(o, 'tls.verify'), property(o, 'tls.ca_file')], at).toEqual(['${OPENSEARCH_TLS}', 'On', '/fluent-bit/opensearch-ca/ca.crt']);
    }
    expect(property(service, 'storage.path')).toBe('/var/fluent-bit/state/storage/');
  });

  it('closes the routing: every rewrite tag reaches exactly one opensearch output and every output is fed by a rule', () => {
    const pipeline = createPipeline({ config, parsers, env: openSearchEnvironment() });
    for (const rule of pipeline.rewriteRules) expect(pipeline.outputs.filter((o) => o.match(rule.newTag)).map((o) => o.alias), rule.newTag).toHaveLength(1);
    for (const output of pipeline.outputs) expect(pipeline.rewriteRules.some((r) => output.match(r.newTag)), output.alias).toBe(true);
    // The router's emitter buffers on disk: in memory, a full emitter drops re-tagged records silently (the emit
    // fails with FLB_EMITTER_BUSY, which rewrite_tag counts as emitted).
    const router = sectionsOf(config, 'FILTER').find((f) => property(f, 'Alias') === 'route_by_event_kind')!;
    expect(property(router, 'Emitter_Storage.type')).toBe('filesystem');
  });
});

describe.skipIf(!available).each(OPENSEARCH_OVERLAYS)('fluent-bit/opensearch as deployed by overlay %s', (overlay) => {
  const objects = available ? render(`kustomize/overlays/${overlay}`) : [];
  const deployment = available ? fluentBitDeployment(objects) : (undefined as never);

  it('gets every ${VARIABLE} the configuration references, credentials from the Fluent Bit user\'s Secret', () => {
    expect(environmentReferences(config).filter((name) => !deployment.env.has(name))).toEqual([]);
    expect(deployment.env.get('OPENSEARCH_USERNAME')).toEqual({ secret: { name: expect.stringMatching(/^workflow-index-opensearch-fluent-bit/), key: 'username' } });
    expect(deployment.env.get('OPENSEARCH_PASSWORD')).toEqual({ secret: { name: expect.stringMatching(/^workflow-index-opensearch-fluent-bit/), key: 'password' } });
    expect(() => createPipeline({ config, parsers, env: modelEnvironment(deployment) })).not.toThrow();
    // What the pods watch comes from the settings file the model tests use (where OpenSearch is, overlays patch).
    for (const [name, value] of Object.entries(openSearchEnvironment()).filter(([n]) => !n.startsWith('OPENSEARCH_'))) {
      expect(deployment.env.get(name), name).toEqual({ value });
    }
  });

  it('uses TLS exactly when the other pods use https, and mounts the CA where tls.ca_file points', () => {
    const tls = deployment.env.get('OPENSEARCH_TLS')!.value;
    expect(tls).toBe(deployment.env.get('OPENSEARCH_PROTOCOL')!.value === 'https' ? 'On' : 'Off');
    expect(tls).toBe(overlay === 'opensearch' ? 'On' : 'Off');
    const mount = (deployment.container.volumeMounts ?? []).find((m) => m.mountPath === '/fluent-bit/opensearch-ca')!;
    const volume = (deployment.spec.volumes ?? []).find((v) => v.name === mount.name)!;
    expect(volume.secret?.secretName).toBe('workflow-index-opensearch-ca');
  });

  it('mounts the OpenSearch configuration: its own fluent-bit.conf and opensearch-document.lua, the shared files byte for byte', () => {
    expect(Object.keys(deployment.configFiles).sort()).toEqual(['event-kubernetes.lua', 'fluent-bit.conf', 'join-partial-lines.lua', 'opensearch-document.lua', 'parsers.conf', 'repair-line.lua']);
    for (const [name, text] of Object.entries(deployment.configFiles)) {
      const folder = ['fluent-bit.conf', 'opensearch-document.lua'].includes(name) ? 'opensearch' : 'postgresql';
      expect(text, name).toBe(readFileSync(join(FLUENT_BIT_ROOT, folder, name), 'utf8'));
    }
    expect(deployment.container.args).toEqual([`--config=${deployment.configMountPath}/fluent-bit.conf`]);
  });
});
