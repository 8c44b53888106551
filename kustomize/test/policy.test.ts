// Security and operability policy, checked on what `kubectl apply -k` would really send (the rendered overlays
// and the base with each component): non-root, read-only root filesystem, no capabilities, no privilege
// escalation, RuntimeDefault seccomp, resources and probes on long-running containers, no credentials in
// plain text, pinned images, recommended labels with version kept out of selectors.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type K8sObject, REPO_ROOT, kubectlAvailable, objectId, render, renderCombination } from './support/kustomize-render.js';
import { allContainers, effective, workloads } from './support/pod-specs.js';

const available = kubectlAvailable();
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * The one container allowed to run as root: Fluent Bit reads the node's container log files, which
 * containerd creates owned by root with mode 0640. It still drops every capability.
 */
const ROOT_ALLOWED = new Set(['DaemonSet/workflow-index-fluent-bit/fluent-bit']);
/** The one workload that talks to the Kubernetes API (pod metadata for the kubernetes filter). */
const API_CLIENTS = new Set(['DaemonSet/workflow-index-fluent-bit']);
const RECOMMENDED_LABELS = ['app.kubernetes.io/name', 'app.kubernetes.io/component', 'app.kubernetes.io/part-of', 'app.kubernetes.io/version'];
const CREDENTIAL_NAME = /PASSWORD|SECRET|TOKEN|CREDENTIAL/i;

function renders(): [string, K8sObject[], boolean][] {
  if (!available) return [];
  return [
    ['overlay postgresql', render('kustomize/overlays/postgresql'), false],
    ['overlay kind', render('kustomize/overlays/kind'), true],
    ['overlay opensearch', render('kustomize/overlays/opensearch'), false],
    ['overlay kind-opensearch', render('kustomize/overlays/kind-opensearch'), true],
    ['base + service-monitor', renderCombination(['manifests/base'], ['kustomize/components/backend-postgresql', 'kustomize/components/service-monitor']), false],
    ['overlay postgresql + auth-oidc', renderCombination(['kustomize/overlays/postgresql'], ['kustomize/components/auth-oidc']), false],
    ['overlay opensearch + auth-oidc', renderCombination(['kustomize/overlays/opensearch'], ['kustomize/components/auth-oidc']), false],
  ];
}

describe.skipIf(!available)('deployment policy', () => {
  describe.each(renders())('%s', (_, objects, withDevDatabase) => {
    it('runs every container non-root (Fluent Bit excepted), without privilege escalation, capabilities or a writable root filesystem', () => {
      for (const w of workloads(objects)) {
        expect(w.spec.hostNetwork ?? false, w.id).toBe(false);
        expect(w.spec.hostPID ?? false, w.id).toBe(false);
        for (const { container } of allContainers(w.spec)) {
          const id = `${w.id}/${container.name}`;
          const sc = container.securityContext ?? {};
          expect(sc.allowPrivilegeEscalation, id).toBe(false);
          expect(sc.readOnlyRootFilesystem, id).toBe(true);
          expect(sc.privileged ?? false, id).toBe(false);
          expect(sc.capabilities?.drop, id).toEqual(['ALL']);
          expect(sc.capabilities?.add ?? [], id).toEqual([]);
          expect(effective(w.spec, container, 'seccompProfile'), id).toEqual({ type: 'RuntimeDefault' });
          if (ROOT_ALLOWED.has(id)) {
            expect([effective(w.spec, container, 'runAsUser'), effective(w.spec, container, 'runAsNonRoot')], id).toEqual([0, false]);
          } else {
            expect(effective(w.spec, container, 'runAsNonRoot'), id).toBe(true);
            expect(effective(w.spec, container, 'runAsUser'), id).toBeGreaterThan(0);
          }
        }
      }
    });

    it('gives long-running containers CPU and memory requests, a memory limit and liveness and readiness probes', () => {
      for (const w of workloads(objects).filter((x) => x.longRunning)) {
        for (const c of w.spec.containers) {
          const id = `${w.id}/${c.name}`;
          expect(Object.keys(c.resources?.requests ?? {}).sort(), id).toEqual(['cpu', 'memory']);
          expect(c.resources?.limits?.['memory'], id).toMatch(/^\d+(Mi|Gi)$/);
          expect(c.livenessProbe, `${id} liveness`).toBeDefined();
          expect(c.readinessProbe, `${id} readiness`).toBeDefined();
        }
        for (const c of w.spec.initContainers ?? []) expect(c.resources?.limits?.['memory'], `${w.id}/${c.name}`).toMatch(/^\d+(Mi|Gi)$/);
      }
    });

    it('bounds Jobs: few retries, a deadline, and cleanup after they finish', () => {
      const jobs = objects.filter((o) => o.kind === 'Job');
      expect(jobs.length).toBeGreaterThan(0);
      for (const job of jobs) {
        const spec = job['spec'] as { backoffLimit?: number; ttlSecondsAfterFinished?: number; activeDeadlineSeconds?: number };
        expect(spec.backoffLimit, objectId(job)).toBeLessThanOrEqual(6);
        expect(spec.ttlSecondsAfterFinished, objectId(job)).toBeGreaterThan(0);
        expect(spec.activeDeadlineSeconds, objectId(job)).toBeGreaterThan(0);
      }
    });

    it('mounts service account tokens only into Fluent Bit, whose ClusterRole only reads pods and namespaces', () => {
      for (const w of workloads(objects)) expect(w.spec.automountServiceAccountToken, w.id).toBe(API_CLIENTS.has(w.id));
      for (const sa of objects.filter((o) => o.kind === 'ServiceAccount')) {
        expect(sa['automountServiceAccountToken'], objectId(sa)).toBe(sa.metadata.name === 'workflow-index-fluent-bit');
      }
      expect(objects.filter((o) => o.kind === 'Role' || o.kind === 'RoleBinding')).toEqual([]);
      const roles = objects.filter((o) => o.kind === 'ClusterRole');
      expect(roles.map((r) => [r.metadata.name, r['rules']])).toEqual([
        ['workflow-index-fluent-bit', [{ apiGroups: [''], resources: ['pods', 'namespaces'], verbs: ['get', 'list', 'watch'] }]],
      ]);
    });

    it('uses hostPath only for Fluent Bit: the node logs read-only and its own state directory', () => {
      for (const w of workloads(objects)) {
        const hostPaths = (w.spec.volumes ?? []).filter((v) => v.hostPath).map((v) => v.hostPath!.path).sort();
        expect(hostPaths, w.id).toEqual(API_CLIENTS.has(w.id) ? ['/var/lib/workflow-index/fluent-bit', '/var/log'] : []);
        if (hostPaths.length > 0) {
          const mounts = w.spec.containers.flatMap((c) => c.volumeMounts ?? []);
          expect(mounts.find((m) => m.name === 'varlog'), w.id).toEqual({ name: 'varlog', mountPath: '/var/log', readOnly: true });
        }
      }
    });

    it('keeps credentials out of plain manifests: secrets only through secretKeyRef, no literal Secret outside the dev component', () => {
      for (const w of workloads(objects)) {
        for (const { container } of allContainers(w.spec)) {
          for (const e of container.env ?? []) {
            if (CREDENTIAL_NAME.test(e.name)) {
              expect(e.value, `${w.id}/${container.name} ${e.name}`).toBeUndefined();
              expect(Object.keys(e.valueFrom ?? {}), `${w.id}/${container.name} ${e.name}`).toEqual(['secretKeyRef']);
            }
            expect(e.value ?? '', `${w.id}/${container.name} ${e.name}`).not.toMatch(/:\/\/[^/@\s]+:[^/@\s]+@/);
          }
        }
      }
      for (const cm of objects.filter((o) => o.kind === 'ConfigMap')) {
        for (const [key, value] of Object.entries((cm['data'] as Record<string, string>) ?? {})) {
          if (!key.includes('.')) expect(CREDENTIAL_NAME.test(key), `${objectId(cm)} ${key}`).toBe(false);
          expect(value, `${objectId(cm)} ${key}`).not.toMatch(/:\/\/[^/@\s$]+:[^/@\s$]+@/);
        }
      }
      const secrets = objects.filter((o) => o.kind === 'Secret');
      if (!withDevDatabase) expect(secrets.map(objectId)).toEqual([]);
      for (const s of secrets) expect(s.metadata.annotations?.['workflow-index/dev-only'], objectId(s)).toBe('true');
    });

    it('pins every image to a version tag (never latest, never untagged)', () => {
      for (const w of workloads(objects)) {
        for (const { container } of allContainers(w.spec)) {
          const image = container.image ?? '';
          const tag = /^(?:[^/]+\/)*[^/:@]+:([^/:@]+)$/.exec(image)?.[1];
          expect(tag, `${w.id}/${container.name} ${image}`).toMatch(/^v?\d+(\.\d+)*[-.\w]*$/);
          expect(tag, image).not.toBe('latest');
          expect(container.imagePullPolicy, `${w.id}/${container.name}`).toBe('IfNotPresent');
        }
      }
    });

    it('labels every object with the recommended labels, the version of this release, and keeps version out of selectors', () => {
      for (const o of objects) {
        const labels = o.metadata.labels ?? {};
        expect(RECOMMENDED_LABELS.filter((l) => !labels[l]), objectId(o)).toEqual([]);
        expect([labels['app.kubernetes.io/name'], labels['app.kubernetes.io/part-of'], labels['app.kubernetes.io/version']], objectId(o))
          .toEqual(['workflow-index', 'workflow-index', VERSION]);
      }
      for (const w of workloads(objects)) {
        const selector = (w.object['spec'] as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels;
        if (w.object.kind !== 'Job') expect(Object.keys(selector ?? {}).sort(), w.id).toEqual(['app.kubernetes.io/component', 'app.kubernetes.io/name']);
        expect(w.podLabels['app.kubernetes.io/component'], w.id).toBe(w.object.metadata.labels?.['app.kubernetes.io/component']);
        expect(w.podLabels['app.kubernetes.io/version'], w.id).toBe(VERSION);
      }
      const selectorsOf = (o: K8sObject): Record<string, string>[] => {
        const spec = o['spec'] as Record<string, unknown>;
        const out: Record<string, string>[] = [];
        if (o.kind === 'Service') out.push(spec['selector'] as Record<string, string>);
        if (o.kind === 'PodDisruptionBudget' || o.kind === 'ServiceMonitor') out.push((spec['selector'] as { matchLabels: Record<string, string> }).matchLabels);
        if (o.kind === 'NetworkPolicy') out.push((spec['podSelector'] as { matchLabels: Record<string, string> }).matchLabels);
        return out;
      };
      for (const o of objects) for (const s of selectorsOf(o)) expect(Object.keys(s), objectId(o)).not.toContain('app.kubernetes.io/version');
    });

    it('restricts network access of every pod with a NetworkPolicy covering ingress and egress', () => {
      const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
      for (const w of workloads(objects)) {
        const covering = policies.filter((p) => {
          const spec = p['spec'] as { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[] };
          return p.metadata.namespace === w.object.metadata.namespace
            && Object.entries(spec.podSelector.matchLabels).every(([k, v]) => w.podLabels[k] === v);
        });
        expect(covering.length, w.id).toBe(1);
        expect((covering[0]!['spec'] as { policyTypes: string[] }).policyTypes, w.id).toEqual(['Ingress', 'Egress']);
      }
    });
  });
});
