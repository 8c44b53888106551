// The retention component (kustomize/components/prune-cronjob) on top of each PostgreSQL overlay, as `kubectl apply
// -k` would send it: a daily CronJob that never runs twice at once, running `init-job prune` from the same image,
// database settings and Secret style as the migration Job, as a least-privilege login, non-root and bounded, with a
// NetworkPolicy; and what it passes to the command is accepted by the command's own settings check.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRUNE_BATCH_SIZE, resolvePruneSettings } from '@workflow-index/init-job';
import { type K8sObject, OVERLAYS, REPO_ROOT, kubectlAvailable, renderCombination } from './support/kustomize-render.js';
import type { Container, PodSpec } from './support/pod-specs.js';

const available = kubectlAvailable();
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const COMPONENT = 'kustomize/components/prune-cronjob';

interface CronJob extends K8sObject {
  readonly spec: {
    readonly schedule: string;
    readonly timeZone?: string;
    readonly concurrencyPolicy?: string;
    readonly startingDeadlineSeconds?: number;
    readonly jobTemplate: {
      readonly metadata?: { readonly labels?: Record<string, string> };
      readonly spec: {
        readonly backoffLimit?: number;
        readonly activeDeadlineSeconds?: number;
        readonly ttlSecondsAfterFinished?: number;
        readonly template: { readonly metadata?: { readonly labels?: Record<string, string> }; readonly spec: PodSpec };
      };
    };
  };
}

function one<T extends K8sObject>(objects: readonly K8sObject[], kind: string, name?: string): T {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name.startsWith(name)));
  expect(found.map((o) => o.metadata.name)).toHaveLength(1);
  return found[0] as T;
}

function envOf(container: Container, name: string): NonNullable<Container['env']>[number] | undefined {
  return container.env?.find((e) => e.name === name);
}

describe.skipIf(!available)('prune-cronjob component', () => {
  describe.each(OVERLAYS.map((o) => [o, renderCombination([`kustomize/overlays/${o}`], [COMPONENT])] as const))('on overlay %s', (_overlay, objects) => {
    const cron = one<CronJob>(objects, 'CronJob');
    const pod = cron.spec.jobTemplate.spec.template.spec;
    const container = pod.containers[0]!;
    const migrate = one<K8sObject & { spec: { template: { spec: PodSpec } } }>(objects, 'Job').spec.template.spec.containers[0]!;

    it('runs `prune` daily, never two at once, with bounded retries, a deadline and cleanup', () => {
      expect(cron.metadata).toMatchObject({ name: 'workflow-index-prune', namespace: 'workflow-index' });
      const [minute, hour, dayOfMonth, month, dayOfWeek] = cron.spec.schedule.split(' ');
      expect([minute, hour].every((f) => /^\d+$/.test(f!))).toBe(true);
      expect([dayOfMonth, month, dayOfWeek]).toEqual(['*', '*', '*']);
      expect(cron.spec.timeZone).toBe('Etc/UTC');
      expect(cron.spec.concurrencyPolicy).toBe('Forbid');
      expect(cron.spec.startingDeadlineSeconds).toBeGreaterThan(0);
      const job = cron.spec.jobTemplate.spec;
      expect(job.backoffLimit).toBeLessThanOrEqual(4);
      expect(job.activeDeadlineSeconds).toBeGreaterThan(0);
      expect(job.ttlSecondsAfterFinished).toBeGreaterThan(0);
      expect(pod.restartPolicy).toBe('Never');
      expect(pod.containers).toHaveLength(1);
      expect(container.args?.[0]).toBe('prune');
    });

    it('uses the migration Job\'s image, database settings and connection URL, and a Secret only through secretKeyRef', () => {
      expect(container.image).toBe(migrate.image);
      const configMaps = (container.envFrom ?? []).map((e) => e.configMapRef?.name);
      expect(configMaps).toContain(migrate.envFrom?.[0]?.configMapRef?.name);
      expect(envOf(container, 'DATABASE_URL')?.value).toBe(envOf(migrate, 'DATABASE_URL')?.value);
      for (const [name, key] of [['DATABASE_USERNAME', 'username'], ['DATABASE_PASSWORD', 'password']] as const) {
        const ref = envOf(container, name)?.valueFrom?.['secretKeyRef'];
        expect(ref, name).toEqual({ name: 'workflow-index-database-pruner', key });
      }
      expect((container.env ?? []).filter((e) => e.value !== undefined).map((e) => e.name)).toEqual(['DATABASE_URL']);
      expect(objects.filter((o) => o.kind === 'Secret' && o.metadata.name === 'workflow-index-database-pruner')).toEqual([]);
    });

    it('has the migration Job create its login from the same Secret (the init job\'s pruner pair)', () => {
      for (const [name, key] of [['WORKFLOW_INDEX_PRUNER_USERNAME', 'username'], ['WORKFLOW_INDEX_PRUNER_PASSWORD', 'password']] as const) {
        expect(envOf(migrate, name)?.valueFrom?.['secretKeyRef'], name).toEqual({ name: envOf(container, key === 'username' ? 'DATABASE_USERNAME' : 'DATABASE_PASSWORD')?.valueFrom?.['secretKeyRef']?.['name'], key, optional: true });
      }
    });

    it('passes retention settings the command accepts: 7 days of raw events, instance retention off', () => {
      const name = (container.envFrom ?? []).map((e) => e.configMapRef?.name).find((n) => n?.startsWith('workflow-index-retention'));
      const config = one<K8sObject & { data: Record<string, string> }>(objects, 'ConfigMap', 'workflow-index-retention');
      expect(config.metadata.name).toBe(name);
      expect(config.data).toEqual({ RAW_EVENTS_RETENTION_DAYS: '7', INSTANCE_RETENTION_DAYS: 'off' });
      const { settings, problems } = resolvePruneSettings(config.data, { backend: 'postgresql', dryRun: false, batchSize: DEFAULT_PRUNE_BATCH_SIZE, waitTimeout: 120 });
      expect(problems).toEqual([]);
      expect(settings).toMatchObject({ rawRetentionDays: 7, instanceRetentionDays: null });
      // an operator's override
      expect(resolvePruneSettings({ ...config.data, INSTANCE_RETENTION_DAYS: '90' }, { backend: 'postgresql', dryRun: false, batchSize: 500, waitTimeout: 0 }).settings)
        .toMatchObject({ instanceRetentionDays: 90 });
    });

    it('runs non-root without privilege escalation, capabilities, a writable root filesystem or a service account token, with requests and a memory limit', () => {
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
      expect(container.securityContext).toMatchObject({ runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
      expect(container.securityContext?.capabilities?.add).toBeUndefined();
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(objects.some((o) => o.kind === 'ServiceAccount' && o.metadata.name === pod.serviceAccountName)).toBe(true);
      expect(container.resources?.requests).toMatchObject({ cpu: expect.any(String) as string, memory: expect.any(String) as string });
      expect(container.resources?.limits?.['memory']).toBeDefined();
    });

    it('is reachable by nobody and reaches only DNS and PostgreSQL (its own NetworkPolicy)', () => {
      const podLabels = cron.spec.jobTemplate.spec.template.metadata?.labels ?? {};
      const policy = one<K8sObject & { spec: { podSelector: { matchLabels: Record<string, string> }; policyTypes: string[]; ingress?: unknown[]; egress: { ports?: { port: number }[] }[] } }>(
        objects, 'NetworkPolicy', 'workflow-index-prune');
      expect(Object.entries(policy.spec.podSelector.matchLabels).every(([k, v]) => podLabels[k] === v)).toBe(true);
      expect(policy.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
      expect(policy.spec.ingress ?? []).toEqual([]);
      expect(policy.spec.egress.flatMap((e) => (e.ports ?? []).map((p) => p.port)).sort()).toEqual([53, 53, 5432]);
    });

    it('labels its objects with the recommended labels and this release\'s version', () => {
      const mine = objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'prune');
      expect(mine.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'CronJob', 'NetworkPolicy']);
      for (const o of mine) {
        expect(o.metadata.labels).toMatchObject({ 'app.kubernetes.io/name': 'workflow-index', 'app.kubernetes.io/part-of': 'workflow-index', 'app.kubernetes.io/version': VERSION });
      }
      expect(cron.spec.jobTemplate.spec.template.metadata?.labels?.['app.kubernetes.io/version']).toBe(VERSION);
    });
  });

  it('adds nothing to an overlay that does not list it, whose migration Job starts without the pruner Secret', () => {
    for (const overlay of OVERLAYS) {
      const objects = renderCombination([`kustomize/overlays/${overlay}`], []);
      expect(objects.filter((o) => o.kind === 'CronJob' || o.metadata.name.startsWith('workflow-index-retention'))).toEqual([]);
      const migrate = one<K8sObject & { spec: { template: { spec: PodSpec } } }>(objects, 'Job').spec.template.spec.containers[0]!;
      expect(envOf(migrate, 'WORKFLOW_INDEX_PRUNER_USERNAME')?.valueFrom?.['secretKeyRef']).toMatchObject({ name: 'workflow-index-database-pruner', optional: true });
    }
  });
});
