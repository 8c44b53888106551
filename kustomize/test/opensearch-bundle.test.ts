// What the OpenSearch overlays promise beyond the shared policy: one OpenSearch user per role (each pod gets the
// credentials of its own Secret and nothing else), https with a CA in production in every namespace, the normalizer
// as a StatefulSet of NORMALIZER_REPLICAS replicas (2) with its metrics port and readiness, the setup Job running opensearch-setup, and nothing of the
// PostgreSQL backend left in the render.
import { describe, expect, it } from 'vitest';
import { type K8sObject, OPENSEARCH_OVERLAYS, kubectlAvailable, render } from './support/kustomize-render.js';
import { allContainers, workloads } from './support/pod-specs.js';

const available = kubectlAvailable();

/** Workload/container → the Secret its OpenSearch credentials come from. */
const USERS: Record<string, string> = {
  'Deployment/workflow-index-server/server': 'workflow-index-opensearch-server',
  'StatefulSet/workflow-index-normalizer/normalizer': 'workflow-index-opensearch-normalizer',
  'Job/workflow-index-migrate-0.1.0/migrate': 'workflow-index-opensearch-admin',
  'DaemonSet/workflow-index-fluent-bit/fluent-bit': 'workflow-index-opensearch-fluent-bit',
};

const settings = (objects: readonly K8sObject[], namespace: string): Record<string, string> =>
  (objects.find((o) => o.kind === 'ConfigMap' && o.metadata.namespace === namespace && o.metadata.name.startsWith('workflow-index-opensearch-'))!['data'] as Record<string, string>);

describe.skipIf(!available).each(OPENSEARCH_OVERLAYS)('overlay %s', (overlay) => {
  const objects = available ? render(`kustomize/overlays/${overlay}`) : [];

  it('gives each pod that talks to OpenSearch the credentials of its own user, from a Secret', () => {
    const seen: Record<string, string> = {};
    for (const w of workloads(objects)) {
      for (const { container } of allContainers(w.spec)) {
        const refs = (container.env ?? []).filter((e) => /^OPENSEARCH_(USERNAME|PASSWORD)$/.test(e.name)).map((e) => [e.name, e.valueFrom?.['secretKeyRef']?.name, e.valueFrom?.['secretKeyRef']?.key]);
        if (refs.length === 0) continue;
        const secret = refs[0]![1]!;
        expect(refs, `${w.id}/${container.name}`).toEqual([['OPENSEARCH_USERNAME', secret, 'username'], ['OPENSEARCH_PASSWORD', secret, 'password']]);
        // Generated Secrets (kind) carry a content hash suffix.
        seen[`${w.id}/${container.name}`] = Object.values(USERS).find((name) => secret === name || new RegExp(`^${name}-[a-z0-9]{10}$`).test(secret)) ?? secret;
      }
    }
    expect(seen).toEqual(USERS);
    // No PostgreSQL setting or credential anywhere.
    for (const w of workloads(objects)) {
      for (const { container } of allContainers(w.spec)) expect((container.env ?? []).filter((e) => e.name.startsWith('DATABASE_')), w.id).toEqual([]);
    }
  });

  it('connects every pod with the same settings in both namespaces: https with the CA in production, http in kind', () => {
    const server = settings(objects, 'workflow-index');
    expect(settings(objects, 'logging')).toEqual(server);
    expect(server['OPENSEARCH_TLS']).toBe(server['OPENSEARCH_PROTOCOL'] === 'https' ? 'On' : 'Off');
    if (overlay === 'opensearch') {
      expect([server['OPENSEARCH_PROTOCOL'], server['OPENSEARCH_CA_FILE']]).toEqual(['https', '/etc/workflow-index/opensearch-ca/ca.crt']);
      for (const w of workloads(objects).filter((x) => x.id !== 'DaemonSet/workflow-index-fluent-bit')) {
        const mount = w.spec.containers.flatMap((c) => c.volumeMounts ?? []).find((m) => m.mountPath === '/etc/workflow-index/opensearch-ca');
        const volume = (w.spec.volumes ?? []).find((v) => v.name === mount?.name);
        expect(volume?.secret?.secretName, w.id).toBe('workflow-index-opensearch-ca');
      }
    } else {
      expect([server['OPENSEARCH_PROTOCOL'], server['OPENSEARCH_CA_FILE']]).toEqual(['http', '']);
    }
  });

  it('gives the setup Job, and only it, the shards and replicas of the indices', () => {
    for (const w of workloads(objects)) {
      for (const { container } of allContainers(w.spec)) {
        const layout = (container.env ?? []).filter((e) => /^OPENSEARCH_(SHARDS|REPLICAS)$/.test(e.name)).map((e) => [e.name, e.value]);
        expect(layout, `${w.id}/${container.name}`).toEqual(w.id.startsWith('Job/workflow-index-migrate-') ? [['OPENSEARCH_SHARDS', '1'], ['OPENSEARCH_REPLICAS', '1']] : []);
      }
    }
  });

  it('runs the normalizer replicas (a StatefulSet, NORMALIZER_REPLICAS = 2) with their metrics port and readiness, and the setup Job with opensearch-setup', () => {
    const normalizer = workloads(objects).find((w) => w.id === 'StatefulSet/workflow-index-normalizer')!;
    expect(normalizer.object['spec']).toMatchObject({ replicas: 2, serviceName: 'workflow-index-normalizer', podManagementPolicy: 'Parallel' });
    const container = normalizer.spec.containers[0]!;
    expect(container.image).toBe('workflow-index/normalizer-opensearch:0.1.0');
    expect(container.ports).toEqual([{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }]);
    expect(container.readinessProbe).toMatchObject({ httpGet: { path: '/q/health/ready', port: 'metrics' } });
    expect((container.env ?? []).find((e) => e.name === 'NORMALIZER_HTTP_PORT')?.value).toBe('9464');
    const job = workloads(objects).find((w) => w.object.kind === 'Job')!;
    expect(job.spec.containers[0]!.args).toEqual(['opensearch-setup', '--wait-timeout=120']);
    const server = workloads(objects).find((w) => w.id === 'Deployment/workflow-index-server')!;
    expect(server.spec.containers[0]!.image).toBe('workflow-index/server-opensearch:0.1.0');
    expect(server.spec.initContainers ?? []).toEqual([]);
  });

  it('lets every workload reach OpenSearch on 9200 and nothing on PostgreSQL\'s port', () => {
    for (const policy of objects.filter((o) => o.kind === 'NetworkPolicy' && o.metadata.name !== 'workflow-index-opensearch')) {
      const ports = ((policy['spec'] as { egress?: { ports?: { port: number | string }[] }[] }).egress ?? []).flatMap((r) => (r.ports ?? []).map((p) => p.port));
      expect(ports, policy.metadata.name).toContain(9200);
      expect(ports, policy.metadata.name).not.toContain(5432);
    }
  });
});
