// The access-control component (kustomize/components/auth-oidc) on top of every overlay of both backends, as
// `kubectl apply -k` would send it: the server gets AUTH_MODE=oidc and the OIDC settings from the ConfigMap
// workflow-index-auth, the rules file mounted read-only from the ConfigMap workflow-index-auth-rules, and egress to
// the issuer on 443; nothing else of the render changes, no Secret appears, and the position of the component among
// the others does not matter. What it passes is accepted by the server's own configuration reader (the rules file
// by readAccessRules, through loadCoreConfig), and a platform team's overlay replaces the placeholders with patches.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadCoreConfig } from '@workflow-index/core';
import { type K8sObject, ALL_OVERLAYS, REPO_ROOT, baseName, kubectlAvailable, objectId, parseObjects, render, renderCombination } from './support/kustomize-render.js';
import { schemaProblems } from './support/schema-validation.js';
import type { Container, PodSpec } from './support/pod-specs.js';

const available = kubectlAvailable();
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const COMPONENT = 'kustomize/components/auth-oidc';
const RULES_PATH = '/etc/workflow-index/auth/rules.yaml';
const AUTH_KEYS = ['AUTH_MODE', 'OIDC_ISSUER', 'OIDC_AUDIENCE', 'OIDC_GROUPS_CLAIM', 'OIDC_CLOCK_SKEW_SECONDS', 'AUTHZ_RULES_FILE', 'OIDC_CONSOLE_CLIENT_ID', 'OIDC_CONSOLE_SCOPE'];

type ConfigMap = K8sObject & { readonly data: Record<string, string> };
type Deployment = K8sObject & { readonly spec: { readonly template: { readonly spec: PodSpec } } };
type NetworkPolicy = K8sObject & { readonly spec: { readonly egress: { readonly ports?: { port: number | string; protocol?: string }[] }[] } };

function byId(objects: readonly K8sObject[]): Map<string, K8sObject> {
  return new Map(objects.map((o) => [objectId({ ...o, metadata: { ...o.metadata, name: baseName(o.metadata.name) } }), o]));
}

function configMap(objects: readonly K8sObject[], name: string): ConfigMap {
  const found = objects.filter((o) => o.kind === 'ConfigMap' && o.metadata.namespace === 'workflow-index' && baseName(o.metadata.name) === name);
  expect(found.map((o) => o.metadata.name)).toHaveLength(1);
  return found[0] as ConfigMap;
}

function server(objects: readonly K8sObject[]): { deployment: Deployment; pod: PodSpec; container: Container } {
  const deployment = byId(objects).get('Deployment/workflow-index/workflow-index-server') as Deployment;
  const pod = deployment.spec.template.spec;
  return { deployment, pod, container: pod.containers.find((c) => c.name === 'server')! };
}

/** The server's environment as the kubelet builds it from the render (envFrom ConfigMaps, then env; no Secrets). */
function serverEnv(objects: readonly K8sObject[]): Record<string, string> {
  const { container } = server(objects);
  const env: Record<string, string> = {};
  const data = (name: string): Record<string, string> => (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.namespace === 'workflow-index' && o.metadata.name === name) as ConfigMap).data;
  for (const source of container.envFrom ?? []) if (source.configMapRef) Object.assign(env, data(source.configMapRef.name));
  for (const e of container.env ?? []) {
    const ref = e.valueFrom?.['configMapKeyRef'];
    if (e.value !== undefined) env[e.name] = e.value;
    else if (ref) env[e.name] = data(ref.name!)[ref.key!]!;
  }
  return env;
}

/** The server's configuration as it would start with the rendered settings, the rules file at AUTHZ_RULES_FILE. */
function serverConfig(objects: readonly K8sObject[], rulesText?: string): ReturnType<typeof loadCoreConfig> {
  const env = serverEnv(objects);
  const dir = mkdtempSync(join(tmpdir(), 'wi-auth-rules-'));
  try {
    const file = join(dir, 'rules.yaml');
    writeFileSync(file, rulesText ?? configMap(objects, 'workflow-index-auth-rules').data['rules.yaml']!);
    expect(env['AUTHZ_RULES_FILE']).toBe(RULES_PATH);
    return loadCoreConfig({ ...env, AUTHZ_RULES_FILE: file });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `kubectl kustomize` of a throw-away kustomization (its extra files beside it); paths in it relative to the repo root as {root}. */
function renderKustomization(kustomization: string, files: Record<string, string> = {}): K8sObject[] {
  const dir = mkdtempSync(join(tmpdir(), 'wi-kustomize-'));
  try {
    writeFileSync(join(dir, 'kustomization.yaml'), kustomization.replaceAll('{root}', relative(dir, REPO_ROOT)));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`kubectl kustomize failed: ${result.stderr}`);
    return parseObjects(result.stdout, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!available)('auth-oidc component', () => {
  describe.each(ALL_OVERLAYS.map((o) => [o, render(`kustomize/overlays/${o}`), renderCombination([`kustomize/overlays/${o}`], [COMPONENT])] as const))('on overlay %s', (_overlay, before, objects) => {
    const settings = configMap(objects, 'workflow-index-auth');
    const rules = configMap(objects, 'workflow-index-auth-rules');
    const { pod, container } = server(objects);

    it('adds two ConfigMaps, the settings and the rules, with the recommended labels, and no Secret', () => {
      const added = [...byId(objects).keys()].filter((id) => !byId(before).has(id)).sort();
      expect(added).toEqual(['ConfigMap/workflow-index/workflow-index-auth', 'ConfigMap/workflow-index/workflow-index-auth-rules']);
      expect([...byId(before).keys()].filter((id) => !byId(objects).has(id))).toEqual([]);
      expect(settings.data).toEqual({
        AUTH_MODE: 'oidc',
        OIDC_ISSUER: expect.stringMatching(/^https:\/\/[^/]+\.example\.com\//) as string,
        OIDC_AUDIENCE: expect.any(String) as string,
        OIDC_GROUPS_CLAIM: 'groups',
        OIDC_CLOCK_SKEW_SECONDS: '30',
        AUTHZ_RULES_FILE: RULES_PATH,
        OIDC_CONSOLE_CLIENT_ID: 'workflow-index-console',
        OIDC_CONSOLE_SCOPE: 'openid profile',
      });
      expect(Object.keys(rules.data)).toEqual(['rules.yaml']);
      for (const o of [settings, rules]) {
        expect(o.metadata.labels).toEqual({ 'app.kubernetes.io/name': 'workflow-index', 'app.kubernetes.io/component': 'server', 'app.kubernetes.io/part-of': 'workflow-index', 'app.kubernetes.io/version': VERSION });
        expect(schemaProblems(o), objectId(o)).toEqual([]);
      }
      expect(objects.filter((o) => o.kind === 'Secret').map(objectId)).toEqual(before.filter((o) => o.kind === 'Secret').map(objectId));
    });

    it('sets the server\'s AUTH_MODE and OIDC settings from the ConfigMap workflow-index-auth (by its hashed name)', () => {
      const entries = (container.env ?? []).filter((e) => AUTH_KEYS.includes(e.name));
      expect(entries.map((e) => e.name)).toEqual(AUTH_KEYS);
      for (const e of entries) expect(e.valueFrom, e.name).toEqual({ configMapKeyRef: { name: settings.metadata.name, key: e.name } });
      expect(serverEnv(objects)).toMatchObject(settings.data);
    });

    it('mounts the rules read-only where AUTHZ_RULES_FILE points, from the ConfigMap workflow-index-auth-rules', () => {
      expect((container.volumeMounts ?? []).filter((m) => m.name === 'auth-rules')).toEqual([{ name: 'auth-rules', mountPath: '/etc/workflow-index/auth', readOnly: true }]);
      expect((pod.volumes ?? []).filter((v) => v.name === 'auth-rules')).toEqual([{ name: 'auth-rules', configMap: { name: rules.metadata.name } }]);
      expect(`/etc/workflow-index/auth/${Object.keys(rules.data)[0]!}`).toBe(RULES_PATH);
    });

    it('changes nothing else: the server Deployment only gains the env entries, the mount and the volume (security context intact), its NetworkPolicy only egress to 443', () => {
      const after = byId(objects);
      for (const [id, o] of byId(before)) {
        if (id === 'Deployment/workflow-index/workflow-index-server' || id === 'NetworkPolicy/workflow-index/workflow-index-server') continue;
        expect(after.get(id), id).toEqual(o);
      }
      const stripped = structuredClone(server(objects).deployment);
      const spec = stripped.spec.template.spec as { containers: { name: string; env?: { name: string }[]; volumeMounts?: { name: string }[] }[]; volumes?: { name: string }[] };
      const c = spec.containers.find((x) => x.name === 'server')!;
      c.env = c.env?.filter((e) => !AUTH_KEYS.includes(e.name));
      if (c.env?.length === 0) delete c.env;
      c.volumeMounts = c.volumeMounts?.filter((m) => m.name !== 'auth-rules');
      spec.volumes = spec.volumes?.filter((v) => v.name !== 'auth-rules');
      expect(stripped).toEqual(server(before).deployment);
      expect(container.securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });

      const policy = after.get('NetworkPolicy/workflow-index/workflow-index-server') as NetworkPolicy;
      const old = byId(before).get('NetworkPolicy/workflow-index/workflow-index-server') as NetworkPolicy;
      expect(policy.spec.egress.slice(0, -1)).toEqual(old.spec.egress);
      expect(policy.spec.egress.at(-1)).toEqual({ ports: [{ port: 443, protocol: 'TCP' }] });
      expect({ ...policy, spec: { ...policy.spec, egress: old.spec.egress } }).toEqual(old);
    });

    it('passes settings and rules the server accepts at start-up (its own reader, readAccessRules for the file)', () => {
      const config = serverConfig(objects);
      expect(config.auth).toMatchObject({ mode: 'oidc', oidc: { issuer: settings.data['OIDC_ISSUER'], audience: settings.data['OIDC_AUDIENCE'], groupsClaim: 'groups', clockSkewSeconds: 30 } });
      expect(config.auth.mode === 'oidc' ? config.auth.rules : []).toEqual([
        { group: 'workflow-index-operators', namespaces: ['*'], payloads: true },
        { group: 'team-shop', namespaces: ['org.acme.shop', 'org.acme.shop.*'], payloads: false },
      ]);
      // The reader is really checking the file: a malformed one is refused with the file's name.
      expect(() => serverConfig(objects, 'rules:\n  - group: team-shop\n    namespaces: []\n')).toThrow(ConfigError);
      expect(() => serverConfig(objects, 'rules:\n  - group: team-shop\n    namespaces: []\n')).toThrow(/AUTHZ_RULES_FILE .*namespaces must be a non-empty list/);
    });
  });

  it('renders the same wherever it stands among the components (env merges by name; a backend\'s patch keeps its entries)', () => {
    // Strategic merge appends in patch order: compare the server's lists as sets.
    const normalized = (objects: readonly K8sObject[]): K8sObject[] => objects.map((o) => {
      if (o.kind !== 'Deployment' || o.metadata.name !== 'workflow-index-server') return o;
      const copy = structuredClone(o) as Deployment;
      const spec = copy.spec.template.spec as { containers: { env?: { name: string }[]; volumeMounts?: { name: string }[] }[]; volumes?: { name: string }[] };
      const byName = (a: { name: string }, b: { name: string }): number => a.name.localeCompare(b.name);
      for (const c of spec.containers) {
        c.env?.sort(byName);
        c.volumeMounts?.sort(byName);
      }
      spec.volumes?.sort(byName);
      return copy;
    });
    for (const backend of ['backend-postgresql', 'backend-opensearch']) {
      const rest = [`kustomize/components/${backend}`, 'kustomize/components/workflows-namespace', 'kustomize/components/release-named-migration'];
      const last = renderCombination(['manifests/base'], [...rest, COMPONENT]);
      const first = renderCombination(['manifests/base'], [COMPONENT, ...rest]);
      expect(normalized(first), backend).toEqual(normalized(last));
      expect(serverEnv(first)['AUTH_MODE'], backend).toBe('oidc');
    }
  });

  it('takes a platform team\'s issuer, audience, groups claim and rules from patches in its overlay, and rolls the pods on a change', () => {
    const myRules = 'rules:\n  - group: /platform/sre\n    namespaces: ["*"]\n    payloads: true\n';
    const objects = renderKustomization([
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      '  - {root}/kustomize/overlays/postgresql',
      'components:',
      `  - {root}/${COMPONENT}`,
      'patches:',
      '  - path: auth-settings.yaml',
      '  - path: auth-rules.yaml',
      '',
    ].join('\n'), {
      'auth-settings.yaml': [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: workflow-index-auth',
        '  namespace: workflow-index',
        'data:',
        '  OIDC_ISSUER: https://keycloak.acme.internal/realms/acme',
        '  OIDC_AUDIENCE: workflow-index-api',
        '  OIDC_GROUPS_CLAIM: realm_access.roles',
        '',
      ].join('\n'),
      'auth-rules.yaml': ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: workflow-index-auth-rules', '  namespace: workflow-index', 'data:', '  rules.yaml: |', ...myRules.trimEnd().split('\n').map((l) => `    ${l}`), ''].join('\n'),
    });
    const settings = configMap(objects, 'workflow-index-auth');
    const rules = configMap(objects, 'workflow-index-auth-rules');
    expect(settings.data).toEqual({ AUTH_MODE: 'oidc', OIDC_ISSUER: 'https://keycloak.acme.internal/realms/acme', OIDC_AUDIENCE: 'workflow-index-api', OIDC_GROUPS_CLAIM: 'realm_access.roles', OIDC_CLOCK_SKEW_SECONDS: '30', AUTHZ_RULES_FILE: RULES_PATH, OIDC_CONSOLE_CLIENT_ID: 'workflow-index-console', OIDC_CONSOLE_SCOPE: 'openid profile' });
    expect(rules.data).toEqual({ 'rules.yaml': myRules });
    const defaults = renderCombination(['kustomize/overlays/postgresql'], [COMPONENT]);
    expect(settings.metadata.name).not.toBe(configMap(defaults, 'workflow-index-auth').metadata.name);
    expect(rules.metadata.name).not.toBe(configMap(defaults, 'workflow-index-auth-rules').metadata.name);
    const { pod, container } = server(objects);
    expect(new Set((container.env ?? []).flatMap((e) => e.valueFrom?.['configMapKeyRef']?.name ?? []))).toEqual(new Set([settings.metadata.name]));
    expect(pod.volumes?.find((v) => v.name === 'auth-rules')?.configMap?.name).toBe(rules.metadata.name);
    expect(serverConfig(objects).auth).toMatchObject({ mode: 'oidc', oidc: { issuer: 'https://keycloak.acme.internal/realms/acme', audience: 'workflow-index-api', groupsClaim: 'realm_access.roles' }, rules: [{ group: '/platform/sre', namespaces: ['*'], payloads: true }] });
  });

  it('adds nothing to an overlay that does not list it: the server runs with AUTH_MODE unset (none)', () => {
    for (const overlay of ALL_OVERLAYS) {
      const objects = render(`kustomize/overlays/${overlay}`);
      expect(objects.filter((o) => baseName(o.metadata.name).startsWith('workflow-index-auth')).map(objectId), overlay).toEqual([]);
      expect(Object.keys(serverEnv(objects)).filter((k) => AUTH_KEYS.includes(k)), overlay).toEqual([]);
    }
  });
});
