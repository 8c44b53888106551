// Upgrades that `kubectl apply -k` can do alone: the migration Job is named after the release (the tag of the init
// image), so a new release creates a new Job instead of patching the immutable pod template of the previous one;
// the same release renders the same Job (re-applying changes nothing); finished Jobs are removed by their TTL; Argo CD
// runs it as a Sync hook and Flux re-creates it when it must.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type K8sObject, ALL_OVERLAYS, REPO_ROOT, kubectlAvailable, objectId, parseObjects, render } from './support/kustomize-render.js';

const available = kubectlAvailable();

interface JobSpec {
  readonly ttlSecondsAfterFinished?: number;
  readonly template: { readonly spec: { readonly containers: readonly { readonly name: string; readonly image: string }[] } };
}

function migrateJob(objects: readonly K8sObject[]): K8sObject & { spec: JobSpec } {
  const jobs = objects.filter((o) => o.kind === 'Job');
  expect(jobs.length).toBe(1);
  return jobs[0] as K8sObject & { spec: JobSpec };
}

function imageOf(job: { spec: JobSpec }): string {
  return job.spec.template.spec.containers.find((c) => c.name === 'migrate')!.image;
}

/**
 * The production shape as an operator composes it for a release other than the one pinned in the manifests: the
 * tag in a component listed before release-named-migration (docs/deployment.md, "Upgrades"), optionally a
 * registry mirror in the kustomization's own `images:`.
 */
function renderRelease(tag: string, mirror?: string): K8sObject[] {
  const dir = mkdtempSync(join(tmpdir(), 'wi-release-'));
  try {
    const rel = (p: string): string => relative(dir, join(REPO_ROOT, p));
    mkdirSync(join(dir, 'release'));
    writeFileSync(join(dir, 'release', 'kustomization.yaml'), [
      'apiVersion: kustomize.config.k8s.io/v1alpha1',
      'kind: Component',
      'images:',
      // The names the images have once the backend component has renamed the server (docs/deployment.md).
      ...['init', 'server-postgresql', 'server-opensearch', 'normalizer-opensearch'].flatMap((image) => [`  - name: workflow-index/${image}`, `    newTag: "${tag}"`]),
      '',
    ].join('\n'));
    writeFileSync(join(dir, 'kustomization.yaml'), [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      'resources:',
      `  - ${rel('manifests/base')}`,
      'components:',
      `  - ${rel('kustomize/components/backend-postgresql')}`,
      `  - ${rel('kustomize/components/workflows-namespace')}`,
      '  - release',
      `  - ${rel('kustomize/components/release-named-migration')}`,
      ...(mirror === undefined ? [] : ['images:', '  - name: workflow-index/init', `    newName: ${mirror}`]),
      '',
    ].join('\n'));
    const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`kubectl kustomize (release ${tag}) failed: ${result.stderr}`);
    return parseObjects(result.stdout, `release ${tag}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!available)('the migration Job across releases', () => {
  it.each(ALL_OVERLAYS)('overlay %s names the Job after the tag of its init image, with the hook and force annotations and a TTL', (overlay) => {
    const job = migrateJob(render(`kustomize/overlays/${overlay}`));
    expect(imageOf(job)).toBe('workflow-index/init:0.1.0');
    expect(job.metadata.name).toBe('workflow-index-migrate-0.1.0');
    expect(job.metadata.annotations).toEqual({
      'argocd.argoproj.io/hook': 'Sync',
      'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
      'kustomize.toolkit.fluxcd.io/force': 'enabled',
    });
    expect(job.spec.ttlSecondsAfterFinished).toBe(3600);
  });

  it('gives two releases two Jobs, and the same release the same Job; nothing else is renamed', () => {
    const a = renderRelease('0.2.0');
    const again = renderRelease('0.2.0');
    const b = renderRelease('0.3.0-rc.1');
    expect([migrateJob(a).metadata.name, imageOf(migrateJob(a))]).toEqual(['workflow-index-migrate-0.2.0', 'workflow-index/init:0.2.0']);
    expect([migrateJob(b).metadata.name, imageOf(migrateJob(b))]).toEqual(['workflow-index-migrate-0.3.0-rc.1', 'workflow-index/init:0.3.0-rc.1']);
    expect(again).toEqual(a);
    const ids = (objects: readonly K8sObject[]): string[] => objects.map(objectId).sort();
    expect(ids(a).filter((id) => !ids(b).includes(id))).toEqual(['Job/workflow-index/workflow-index-migrate-0.2.0']);
    expect(ids(b).filter((id) => !ids(a).includes(id))).toEqual(['Job/workflow-index/workflow-index-migrate-0.3.0-rc.1']);
  });

  it('keeps the name when only the registry changes (a mirror in the overlay\'s own images)', () => {
    const job = migrateJob(renderRelease('0.2.0', 'registry.example:5000/mirror/workflow-index-init'));
    expect([job.metadata.name, imageOf(job)]).toEqual(['workflow-index-migrate-0.2.0', 'registry.example:5000/mirror/workflow-index-init:0.2.0']);
  });

  it('makes names Kubernetes accepts for a Job and its job-name pod label (DNS label characters, at most 63)', () => {
    for (const tag of ['0.1.0', '10.20.30-rc.15', '2025.11.24']) {
      const name = migrateJob(renderRelease(tag)).metadata.name;
      expect(name, tag).toMatch(/^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/);
    }
  });
});
