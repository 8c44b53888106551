// Static checks of fluent-bit/postgresql against the DaemonSet that runs it: everything the configuration
// references exists (parsers, environment variables, mounts, ports), the routing is closed (every output is fed
// by a rewrite rule and every rewrite tag has exactly one output), and the durability settings are there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLUENT_BIT_TIMESTAMP_KEY, TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from '@workflow-index/postgresql';
import { environmentReferences, properties, property, requiredProperty, sectionsOf } from '../model/classic-config.js';
import { loadFluentBitConfig } from '../model/load-config.js';
import { createPipeline } from '../model/pipeline.js';
import { pgsqlTargets } from '../model/pgsql-output.js';
import { OVERLAYS, kubectlAvailable, render } from '../../kustomize/test/support/kustomize-render.js';
import { fluentBitDeployment, modelEnvironment } from './support/fluent-bit-deployment.js';

const { config, parsers, directory } = loadFluentBitConfig('postgresql');
const service = sectionsOf(config, 'SERVICE')[0]!;
const input = sectionsOf(config, 'INPUT')[0]!;
const filters = sectionsOf(config, 'FILTER');
const outputs = sectionsOf(config, 'OUTPUT');
const available = kubectlAvailable();

describe('fluent-bit/postgresql configuration', () => {
  it('tails the watched namespace with a plain CRI line parser (no multiline engine, no flush timer) and a persistent position database', () => {
    expect(requiredProperty(input, 'Name')).toBe('tail');
    // The kubelet's files, not the /var/log/containers symlinks: with DB.compare_filename the stored positions are
    // kept only when the name found equals the file's own name (tail-restart.test.ts).
    expect(requiredProperty(input, 'Path')).toBe('/var/log/pods/${WORKFLOW_NAMESPACE}_*_*/*/*.log');
    expect(property(input, 'DB.compare_filename')).toBe('true');
    expect(property(input, 'multiline.parser')).toBeUndefined();
    expect(property(input, 'Parser')).toBe('cri_line');
    expect(property(input, 'DB')).toBe('/var/fluent-bit/state/tail.db');
    expect(property(input, 'Read_from_Head')).toBe('On');
    expect(property(input, 'storage.type')).toBe('filesystem');
    expect(property(input, 'Skip_Long_Lines')).toBe('On');
    // A physical CRI line is 16 KiB of content plus its prefix: it must fit the line buffer.
    expect(requiredProperty(input, 'Buffer_Max_Size')).toBe('256k');
  });

  it('defines every parser the input and the filters use', () => {
    const defined = sectionsOf(parsers, 'PARSER').map((p) => requiredProperty(p, 'Name'));
    const used = filters.filter((f) => requiredProperty(f, 'Name') === 'parser').map((f) => requiredProperty(f, 'Parser'));
    expect(used).toEqual(['workflow_event_json']);
    const kubernetes = filters.filter((f) => requiredProperty(f, 'Name') === 'kubernetes').map((f) => requiredProperty(f, 'Regex_Parser'));
    expect(kubernetes).toEqual(['kube_pod_log_tag']);
    expect([...used, ...kubernetes, 'cri_line'].filter((p) => !defined.includes(p))).toEqual([]);
    const cri = sectionsOf(parsers, 'PARSER').find((p) => property(p, 'Name') === 'cri_line')!;
    expect([property(cri, 'Format'), property(cri, 'Time_Key'), property(cri, 'Time_Keep')]).toEqual(['regex', 'time', 'On']);
    const parser = sectionsOf(parsers, 'PARSER').find((p) => property(p, 'Name') === 'workflow_event_json')!;
    expect([property(parser, 'Format'), property(parser, 'Time_Key')]).toEqual(['json', undefined]);
  });

  it('runs the filters in the order join → repair → event kubernetes → parse → keep events → pod metadata → require metadata → opt-out → route', () => {
    expect(filters.map((f) => [requiredProperty(f, 'Name'), property(f, 'Alias'), property(f, 'Match')])).toEqual([
      ['lua', 'join_split_lines', 'kube.*'],
      ['lua', 'repair_event_line', 'kube.*'],
      ['lua', 'keep_event_kubernetes', 'kube.*'],
      ['parser', 'parse_event_json', 'kube.*'],
      ['grep', 'keep_lifecycle_events', 'kube.*'],
      ['kubernetes', 'pod_metadata', 'kube.*'],
      ['grep', 'require_pod_metadata', 'kube.*'],
      ['grep', 'skip_opted_out_pods', 'kube.*'],
      ['rewrite_tag', 'route_by_event_kind', 'kube.*'],
    ]);
    expect([property(filters[0]!, 'script'), property(filters[0]!, 'call')]).toEqual(['join-partial-lines.lua', 'join_partial_lines']);
    expect([property(filters[1]!, 'script'), property(filters[1]!, 'call')]).toEqual(['repair-line.lua', 'repair_log']);
    expect([property(filters[2]!, 'script'), property(filters[2]!, 'call')]).toEqual(['event-kubernetes.lua', 'keep_event_kubernetes']);
    const parse = filters[3]!;
    expect([property(parse, 'Key_Name'), property(parse, 'Reserve_Data'), property(parse, 'Preserve_Key')]).toEqual(['log', 'On', 'Off']);
    expect(property(filters[4]!, 'Logical_Op')).toBe('or');
    expect(properties(filters[4]!, 'Regex')).toEqual(['$eventType ${WORKFLOW_EVENT_TYPE_REGEX}', '$log "eventType"', '$wi_join_truncated .', '$wi_join_orphan .']);
    expect(property(filters[5]!, 'Labels')).toBe('On');
    expect(properties(filters[6]!, 'Regex')).toEqual(["$kubernetes['pod_id'] ."]);
    expect(properties(filters[7]!, 'Exclude')).toEqual(["$kubernetes['labels']['workflow-index/enabled'] ^false$"]);
    const route = filters[8]!;
    expect(properties(route, 'Rule').map((r) => r.split(/\s+/))).toEqual([
      ['$eventType', '\\.task\\.', 'workflow-index.task', 'false'],
      ['$eventType', '\\.workflow\\.', 'workflow-index.workflow', 'false'],
      ['$eventType', '.', 'workflow-index.unrecognized', 'false'],
      ['$log', '.', 'workflow-index.unparsed', 'false'],
    ]);
    expect(property(route, 'Emitter_Storage.type')).toBe('filesystem');
  });

  it('writes through two pgsql outputs into the raw tables, never dropping a batch, never echoing payloads', () => {
    expect(outputs.map((o) => requiredProperty(o, 'Name'))).toEqual(['pgsql', 'pgsql']);
    expect(outputs.map((o) => requiredProperty(o, 'Table'))).toEqual([WORKFLOW_EVENTS_TABLE, TASK_EVENTS_TABLE]);
    for (const o of outputs) {
      expect(property(o, 'Timestamp_Key')).toBe(FLUENT_BIT_TIMESTAMP_KEY);
      expect(property(o, 'Retry_Limit')).toBe('no_limits');
      expect(property(o, 'storage.total_limit_size')).toBe('1G');
      expect(property(o, 'Async')).toBe('Off');
      expect([property(o, 'User'), property(o, 'Password')]).toEqual(['${DATABASE_USERNAME}', '${DATABASE_PASSWORD}']);
      expect(property(o, 'Daemon')).toBeUndefined(); // with Daemon On a failed start-up would drop every batch
    }
    expect(['info', 'warn', 'error']).toContain(property(service, 'Log_Level'));
  });

  it('buffers on the filesystem and serves health and metrics on port 2020', () => {
    expect(property(service, 'storage.path')).toBe('/var/fluent-bit/state/storage/');
    expect([property(service, 'HTTP_Server'), property(service, 'HTTP_Port'), property(service, 'Health_Check')]).toEqual(['On', '2020', 'On']);
    expect(property(service, 'Parsers_File')).toBe('parsers.conf');
  });

  it('closes the routing: every rewrite tag reaches exactly one pgsql output and every output is fed by a rule', () => {
    const env = Object.fromEntries(environmentReferences(config).map((n) => [n, n === 'WORKFLOW_EVENT_TYPE_REGEX' ? '^io\\.serverlessworkflow\\.' : 'x']));
    const pipeline = createPipeline({ config, parsers, env });
    for (const rule of pipeline.rewriteRules) {
      expect(pipeline.outputs.filter((o) => o.match(rule.newTag)).map((o) => o.alias), rule.newTag).toHaveLength(1);
      expect(rule.newTag.startsWith('kube.'), 'a rewritten tag must not match the kube.* filters again').toBe(false);
    }
    for (const output of pipeline.outputs) {
      expect(pipeline.rewriteRules.some((r) => output.match(r.newTag)), output.alias).toBe(true);
    }
    expect(pgsqlTargets(pipeline).map((t) => [t.output, t.table])).toEqual([
      ['workflow_events', WORKFLOW_EVENTS_TABLE],
      ['task_events', TASK_EVENTS_TABLE],
    ]);
  });
});

describe.skipIf(!available).each(OVERLAYS)('fluent-bit/postgresql as deployed by overlay %s', (overlay) => {
  // Collected even when skipped: render only where kubectl exists.
  const deployment = available ? fluentBitDeployment(render(`kustomize/overlays/${overlay}`)) : (undefined as never);

  it('gets every ${VARIABLE} the configuration references from the DaemonSet, credentials from the forwarder Secret', () => {
    const missing = environmentReferences(config).filter((name) => !deployment.env.has(name));
    expect(missing).toEqual([]);
    expect(deployment.env.get('DATABASE_USERNAME')).toEqual({ secret: { name: expect.stringMatching(/^workflow-index-database-forwarder/), key: 'username' } });
    expect(deployment.env.get('DATABASE_PASSWORD')).toEqual({ secret: { name: expect.stringMatching(/^workflow-index-database-forwarder/), key: 'password' } });
    expect(deployment.env.get('WORKFLOW_NAMESPACE')).toEqual({ value: 'workflows' });
    expect(deployment.env.get('WORKFLOW_EVENT_TYPE_REGEX')).toEqual({ value: '^io\\.serverlessworkflow\\.' });
    expect(() => createPipeline({ config, parsers, env: modelEnvironment(deployment) })).not.toThrow();
  });

  it('mounts exactly these files where the command line expects them', () => {
    expect(Object.keys(deployment.configFiles).sort()).toEqual(['event-kubernetes.lua', 'fluent-bit.conf', 'join-partial-lines.lua', 'parsers.conf', 'repair-line.lua']);
    for (const [name, text] of Object.entries(deployment.configFiles)) expect(text, name).toBe(readFileSync(join(directory, name), 'utf8'));
    expect(deployment.container.args).toEqual([`--config=${deployment.configMountPath}/fluent-bit.conf`]);
  });

  it('keeps the tail database and the chunk buffer on the node (hostPath), readable logs under /var/log', () => {
    const state = deployment.hostMounts.get('/var/fluent-bit/state');
    expect(state).toBe('/var/lib/workflow-index/fluent-bit');
    expect(requiredProperty(input, 'DB').startsWith('/var/fluent-bit/state/')).toBe(true);
    expect(requiredProperty(service, 'storage.path').startsWith('/var/fluent-bit/state/')).toBe(true);
    expect(deployment.hostMounts.get('/var/log')).toBe('/var/log');
  });

  it('exposes the HTTP server port as the probed `metrics` port', () => {
    expect(deployment.container.ports).toEqual([{ name: 'metrics', containerPort: Number(property(service, 'HTTP_Port')), protocol: 'TCP' }]);
    expect(deployment.container.livenessProbe).toMatchObject({ httpGet: { path: '/api/v1/health', port: 'metrics' } });
  });
});
