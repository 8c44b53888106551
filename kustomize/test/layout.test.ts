// House style of the Kubernetes files: one object per file in manifests/, named <component>-<kind>.yaml
// (Namespaces: <name>-namespace.yaml), every file listed by its kustomization and nothing else; kustomizations
// use `labels`/`patches` (never commonLabels, patchesStrategicMerge, patchesJson6902, bases, vars); overlays
// only combine the base with components and small patches.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, parseObjects } from './support/kustomize-render.js';

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

const manifestFiles = walk(join(REPO_ROOT, 'manifests')).filter((f) => f.endsWith('.yaml') && !f.endsWith('/kustomization.yaml'));
const kustomizations = ['manifests', 'kustomize', 'fluent-bit'].flatMap((d) => walk(join(REPO_ROOT, d))).filter((f) => f.endsWith('/kustomization.yaml'));

describe('manifests/ layout', () => {
  it('has the manifests this bundle is made of', () => {
    expect(manifestFiles.length).toBe(34);
  });

  it.each(manifestFiles.map((f) => [relative(REPO_ROOT, f), f]))('%s holds one object named after its component and kind', (_, file) => {
    const objects = parseObjects(readFileSync(file, 'utf8'), file);
    expect(objects.length).toBe(1);
    const o = objects[0]!;
    expect(o.kind).not.toBe('Secret');
    const prefix = o.kind === 'Namespace' ? o.metadata.name : o.metadata.labels?.['app.kubernetes.io/component'];
    expect(file.split('/').pop()).toBe(`${prefix}-${o.kind.toLowerCase()}.yaml`);
    expect(o.metadata.labels?.['app.kubernetes.io/name']).toBe('workflow-index');
  });

  it('lists every manifest in the kustomization of its folder, and nothing that does not exist', () => {
    const byDir = new Map<string, string[]>();
    for (const f of manifestFiles) {
      const dir = f.slice(0, f.lastIndexOf('/'));
      byDir.set(dir, [...(byDir.get(dir) ?? []), f.slice(dir.length + 1)]);
    }
    for (const [dir, files] of byDir) {
      const k = parse(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { resources?: string[] };
      expect([...(k.resources ?? [])].sort(), relative(REPO_ROOT, dir)).toEqual(files.sort());
    }
  });
});

describe('kustomizations', () => {
  it.each(kustomizations.map((f) => [relative(REPO_ROOT, f), f]))('%s uses only current kustomize fields', (_, file) => {
    const k = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    for (const deprecated of ['commonLabels', 'patchesStrategicMerge', 'patchesJson6902', 'bases', 'vars', 'imageTags']) {
      expect(Object.keys(k)).not.toContain(deprecated);
    }
    expect(k['apiVersion']).toBe(k['kind'] === 'Component' ? 'kustomize.config.k8s.io/v1alpha1' : 'kustomize.config.k8s.io/v1beta1');
    if (file.includes('/kustomize/components/')) expect(k['kind']).toBe('Component');
  });

  it.each([['postgresql', 'postgresql'], ['kind', 'postgresql'], ['opensearch', 'opensearch'], ['kind-opensearch', 'opensearch']])('overlay %s only combines the base with components (backend-%s first) and small patches', (overlay, backend) => {
    const k = parse(readFileSync(join(REPO_ROOT, 'kustomize/overlays', overlay, 'kustomization.yaml'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(k).sort()).toEqual(['apiVersion', 'components', 'kind', 'patches', 'resources']);
    expect(k['resources']).toEqual(['../../../manifests/base']);
    expect((k['components'] as string[]).every((c) => c.startsWith('../../components/'))).toBe(true);
    expect((k['components'] as string[])[0]).toBe(`../../components/backend-${backend}`);
    expect((k['components'] as string[]).at(-1)).toBe('../../components/release-named-migration');
  });
});
