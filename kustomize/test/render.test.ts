// Every overlay, and the base with each component, renders offline; every rendered object is valid against the
// Kubernetes schemas; every reference inside a render (ConfigMaps, Secrets, ServiceAccounts, selectors, named
// ports, $(VAR) expansions) resolves.
import { describe, expect, it } from 'vitest';
import { type K8sObject, ALL_OVERLAYS, COMPONENTS, baseName, kubectlAvailable, objectId, render, renderCombination } from './support/kustomize-render.js';
import { schemaProblems } from './support/schema-validation.js';
import { type Container, allContainers, workloads } from './support/pod-specs.js';

const available = kubectlAvailable();

const PRODUCTION_INVENTORY = [
  'ClusterRole/workflow-index-fluent-bit',
  'ClusterRoleBinding/workflow-index-fluent-bit',
  'ConfigMap/logging/workflow-index-database',
  'ConfigMap/logging/workflow-index-fluent-bit',
  'ConfigMap/logging/workflow-index-fluent-bit-config',
  'ConfigMap/workflow-index/workflow-index-database',
  'ConfigMap/workflow-index/workflow-index-server',
  'ConfigMap/workflow-index/workflow-index-wait-for-schema',
  'DaemonSet/logging/workflow-index-fluent-bit',
  'Deployment/workflow-index/workflow-index-server',
  'Job/workflow-index/workflow-index-migrate-0.1.0',
  'Namespace/logging',
  'Namespace/workflow-index',
  'Namespace/workflows',
  'NetworkPolicy/logging/workflow-index-fluent-bit',
  'NetworkPolicy/workflow-index/workflow-index-init',
  'NetworkPolicy/workflow-index/workflow-index-server',
  'PodDisruptionBudget/workflow-index/workflow-index-server',
  'Service/logging/workflow-index-fluent-bit',
  'Service/workflow-index/workflow-index-server',
  'ServiceAccount/logging/workflow-index-fluent-bit',
  'ServiceAccount/workflow-index/workflow-index-init',
  'ServiceAccount/workflow-index/workflow-index-server',
];

const KIND_EXTRA = [
  'Deployment/workflow-index/workflow-index-postgresql',
  'NetworkPolicy/workflow-index/workflow-index-postgresql',
  'Secret/logging/workflow-index-database-forwarder',
  'Secret/workflow-index/workflow-index-database-admin',
  'Secret/workflow-index/workflow-index-database-forwarder',
  'Secret/workflow-index/workflow-index-database-reader',
  'Service/workflow-index/workflow-index-postgresql',
  'ServiceAccount/workflow-index/workflow-index-postgresql',
];

/**
 * The pruner login's Secret: the migration Job reads it optionally (creates the login when it exists), the
 * prune-cronjob component needs it. Missing in every PostgreSQL overlay until the operator adds it.
 */
const PRUNER_SECRET = 'workflow-index/workflow-index-database-pruner';

/** The Secrets the operator must create for the production overlay (documented in docs/deployment.md). */
export const OPERATOR_SECRETS = [
  'logging/workflow-index-database-forwarder',
  'workflow-index/workflow-index-database-admin',
  'workflow-index/workflow-index-database-forwarder',
  PRUNER_SECRET,
  'workflow-index/workflow-index-database-reader',
];

/** The base's backend-neutral objects, as each backend's production overlay renders them. */
const NEUTRAL_INVENTORY = PRODUCTION_INVENTORY.filter((id) => !/database|wait-for-schema/.test(id));

const OPENSEARCH_INVENTORY = [
  ...NEUTRAL_INVENTORY,
  'ConfigMap/logging/workflow-index-opensearch',
  'ConfigMap/workflow-index/workflow-index-opensearch',
  'NetworkPolicy/workflow-index/workflow-index-normalizer',
  'Service/workflow-index/workflow-index-normalizer',
  'ServiceAccount/workflow-index/workflow-index-normalizer',
  'StatefulSet/workflow-index/workflow-index-normalizer',
].sort();

const KIND_OPENSEARCH_EXTRA = [
  'Deployment/workflow-index/workflow-index-opensearch',
  'NetworkPolicy/workflow-index/workflow-index-opensearch',
  'Secret/logging/workflow-index-opensearch-fluent-bit',
  'Secret/workflow-index/workflow-index-opensearch-admin',
  'Secret/workflow-index/workflow-index-opensearch-normalizer',
  'Secret/workflow-index/workflow-index-opensearch-server',
  'Service/workflow-index/workflow-index-opensearch',
  'ServiceAccount/workflow-index/workflow-index-opensearch',
];

/** The Secrets the operator creates for the opensearch overlay (docs/deployment.md); the CA one is optional (http). */
export const OPENSEARCH_OPERATOR_SECRETS = [
  'logging/workflow-index-opensearch-ca',
  'logging/workflow-index-opensearch-fluent-bit',
  'workflow-index/workflow-index-opensearch-admin',
  'workflow-index/workflow-index-opensearch-ca',
  'workflow-index/workflow-index-opensearch-normalizer',
  'workflow-index/workflow-index-opensearch-server',
];

function inventory(objects: readonly K8sObject[]): string[] {
  return objects.map((o) => objectId({ ...o, metadata: { ...o.metadata, name: baseName(o.metadata.name) } })).sort();
}

function find(objects: readonly K8sObject[], kind: string, namespace: string | undefined, name: string): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name);
}

interface Reference {
  readonly kind: 'ConfigMap' | 'Secret' | 'ServiceAccount';
  readonly name: string;
  readonly optional: boolean;
  readonly from: string;
}

function references(objects: readonly K8sObject[]): { namespace: string; ref: Reference }[] {
  const refs: { namespace: string; ref: Reference }[] = [];
  for (const w of workloads(objects)) {
    const ns = w.object.metadata.namespace!;
    const add = (ref: Reference): void => void refs.push({ namespace: ns, ref });
    if (w.spec.serviceAccountName) add({ kind: 'ServiceAccount', name: w.spec.serviceAccountName, optional: false, from: w.id });
    for (const v of w.spec.volumes ?? []) {
      if (v.configMap) add({ kind: 'ConfigMap', name: v.configMap.name, optional: false, from: `${w.id} volume ${v.name}` });
      if (v.secret) add({ kind: 'Secret', name: v.secret.secretName, optional: false, from: `${w.id} volume ${v.name}` });
    }
    for (const { container } of allContainers(w.spec)) {
      for (const source of container.envFrom ?? []) {
        if (source.configMapRef) add({ kind: 'ConfigMap', name: source.configMapRef.name, optional: false, from: `${w.id}/${container.name}` });
        if (source.secretRef) add({ kind: 'Secret', name: source.secretRef.name, optional: false, from: `${w.id}/${container.name}` });
      }
      for (const e of container.env ?? []) {
        const cm = e.valueFrom?.['configMapKeyRef'];
        const secret = e.valueFrom?.['secretKeyRef'];
        if (cm) add({ kind: 'ConfigMap', name: cm.name!, optional: cm.optional === true, from: `${w.id}/${container.name} ${e.name}` });
        if (secret) add({ kind: 'Secret', name: secret.name!, optional: secret.optional === true, from: `${w.id}/${container.name} ${e.name}` });
      }
    }
  }
  return refs;
}

/** Environment names a container has before each of its env entries is expanded (kubelet order). */
function unresolvedExpansions(objects: readonly K8sObject[], container: Container, namespace: string): string[] {
  const defined = new Set<string>();
  for (const source of container.envFrom ?? []) {
    const cm = source.configMapRef && find(objects, 'ConfigMap', namespace, source.configMapRef.name);
    for (const key of Object.keys((cm?.['data'] as Record<string, string> | undefined) ?? {})) defined.add(key);
  }
  const missing: string[] = [];
  for (const e of container.env ?? []) {
    for (const m of (e.value ?? '').matchAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g)) if (!defined.has(m[1]!)) missing.push(`${e.name} uses $(${m[1]})`);
    defined.add(e.name);
  }
  for (const arg of [...(container.args ?? []), ...(container.command ?? [])]) {
    for (const m of arg.matchAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g)) if (!defined.has(m[1]!)) missing.push(`argument uses $(${m[1]})`);
  }
  return missing;
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

describe.skipIf(!available)('kustomize renders', () => {
  const overlays = available ? Object.fromEntries(ALL_OVERLAYS.map((o) => [o, render(`kustomize/overlays/${o}`)])) : {};

  it('renders the production overlay with exactly the expected objects and no Secret', () => {
    expect(inventory(overlays['postgresql']!)).toEqual(PRODUCTION_INVENTORY);
  });

  it('renders the kind overlay: the production objects plus the development database and its Secrets', () => {
    expect(inventory(overlays['kind']!)).toEqual([...PRODUCTION_INVENTORY, ...KIND_EXTRA].sort());
  });

  it('renders the production OpenSearch overlay: the backend-neutral objects, the normalizer, no Secret and nothing of PostgreSQL', () => {
    expect(inventory(overlays['opensearch']!)).toEqual(OPENSEARCH_INVENTORY);
  });

  it('renders the kind-opensearch overlay: the production objects plus the development OpenSearch and its Secrets', () => {
    expect(inventory(overlays['kind-opensearch']!)).toEqual([...OPENSEARCH_INVENTORY, ...KIND_OPENSEARCH_EXTRA].sort());
  });

  it.each(COMPONENTS)('renders the base with component %s (and the backend it builds on)', (component) => {
    const backend = component.endsWith('opensearch') ? 'backend-opensearch' : 'backend-postgresql';
    const components = component.startsWith('backend-') || component.startsWith('dev-') || component === 'release-named-migration'
      ? [...new Set([`kustomize/components/${backend}`, `kustomize/components/${component}`])]
      : [`kustomize/components/${component}`];
    const objects = renderCombination(['manifests/base'], components);
    const base = render('manifests/base');
    // A component only adds objects; it never drops one of the base.
    expect(inventory(objects)).toEqual(expect.arrayContaining(inventory(base)));
    for (const o of objects) expect(schemaProblems(o), objectId(o)).toEqual([]);
    if (component === 'service-monitor') {
      expect(objects.filter((o) => o.kind === 'ServiceMonitor').map(objectId).sort()).toEqual([
        'ServiceMonitor/logging/workflow-index-fluent-bit',
        'ServiceMonitor/workflow-index/workflow-index-server',
      ]);
      for (const monitor of objects.filter((o) => o.kind === 'ServiceMonitor')) {
        const spec = monitor['spec'] as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string }[] };
        const services = objects.filter((o) => o.kind === 'Service' && o.metadata.namespace === monitor.metadata.namespace
          && selects(spec.selector.matchLabels, o.metadata.labels ?? {}));
        expect(services.length, objectId(monitor)).toBe(1);
        const ports = (services[0]!['spec'] as { ports: { name: string }[] }).ports.map((p) => p.name);
        for (const e of spec.endpoints) expect(ports, objectId(monitor)).toContain(e.port);
      }
    }
  });

  it('renders the base alone (backend-neutral objects only)', () => {
    const base = render('manifests/base');
    expect(base.some((o) => o.kind === 'Job' || o.kind === 'Secret')).toBe(false);
    for (const o of base) expect(schemaProblems(o), objectId(o)).toEqual([]);
  });

  describe.each(ALL_OVERLAYS)('overlay %s', (overlay) => {
    const objects = (): K8sObject[] => overlays[overlay]!;

    it('validates every object against the Kubernetes schemas, unknown fields included', () => {
      for (const o of objects()) expect(schemaProblems(o), objectId(o)).toEqual([]);
    });

    it('resolves every ConfigMap, Secret and ServiceAccount a pod references (production: only the documented operator Secrets are external)', () => {
      const missing = new Set<string>();
      for (const { namespace, ref } of references(objects())) {
        if (!find(objects(), ref.kind, namespace, ref.name)) {
          expect(ref.kind, `${ref.from} -> ${ref.kind} ${namespace}/${ref.name}`).toBe('Secret');
          missing.add(`${namespace}/${ref.name}`);
        }
      }
      const external: Record<string, string[]> = { postgresql: OPERATOR_SECRETS, kind: [PRUNER_SECRET], opensearch: OPENSEARCH_OPERATOR_SECRETS, 'kind-opensearch': ['logging/workflow-index-opensearch-ca', 'workflow-index/workflow-index-opensearch-ca'] };
      expect([...missing].sort()).toEqual(external[overlay] ?? []);
      // Only the CA bundle may be missing (http clusters have none): it is mounted optional.
      for (const { namespace, ref } of references(objects())) {
        if (ref.name === 'workflow-index-opensearch-ca') expect(ref.kind, `${namespace} ${ref.from}`).toBe('Secret');
        // Without the prune component, nothing may need the pruner Secret.
        if (`${namespace}/${ref.name}` === PRUNER_SECRET) expect(ref.optional, `${namespace} ${ref.from}`).toBe(true);
      }
    });

    it('defines every $(VAR) a container expands before it is used', () => {
      for (const w of workloads(objects())) {
        for (const { container } of allContainers(w.spec)) {
          expect(unresolvedExpansions(objects(), container, w.object.metadata.namespace!), `${w.id}/${container.name}`).toEqual([]);
        }
      }
    });

    it('points every Service, PodDisruptionBudget, NetworkPolicy and ServiceMonitor at pods and ports that exist', () => {
      const pods = workloads(objects());
      const podsIn = (ns: string, selector: Record<string, string>) => pods.filter((w) => w.object.metadata.namespace === ns && selects(selector, w.podLabels));
      const portNames = (ws: typeof pods) => new Set(ws.flatMap((w) => w.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name))));
      for (const svc of objects().filter((o) => o.kind === 'Service')) {
        const spec = svc['spec'] as { selector: Record<string, string>; ports: { name: string; targetPort: string | number }[] };
        const targets = podsIn(svc.metadata.namespace!, spec.selector);
        expect(targets.length, objectId(svc)).toBe(1);
        for (const p of spec.ports) if (typeof p.targetPort === 'string') expect(portNames(targets).has(p.targetPort), `${objectId(svc)} ${p.name}`).toBe(true);
      }
      for (const o of objects().filter((x) => x.kind === 'PodDisruptionBudget' || x.kind === 'NetworkPolicy')) {
        const spec = o['spec'] as { selector?: { matchLabels: Record<string, string> }; podSelector?: { matchLabels: Record<string, string> }; ingress?: { ports?: { port: string | number }[] }[] };
        const targets = podsIn(o.metadata.namespace!, (spec.selector ?? spec.podSelector)!.matchLabels);
        expect(targets.length, objectId(o)).toBe(1);
        for (const rule of spec.ingress ?? []) {
          for (const p of rule.ports ?? []) if (typeof p.port === 'string') expect(portNames(targets).has(p.port), `${objectId(o)} port ${p.port}`).toBe(true);
        }
      }
      for (const w of pods) {
        const own = new Set(w.spec.containers.flatMap((c) => (c.ports ?? []).map((p) => p.name)));
        for (const c of w.spec.containers) {
          for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe] as ({ httpGet?: { port: string | number } } | undefined)[]) {
            if (typeof probe?.httpGet?.port === 'string') expect(own.has(probe.httpGet.port), `${w.id} probe port ${probe.httpGet.port}`).toBe(true);
          }
        }
      }
    });
  });
});
