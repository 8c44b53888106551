// The own overlay of docs/deployment.md ("Your own overlay"), rendered from the page's snippet next to this checkout
// as the page lays it out: it runs every image of ours from the team's registry with the release's tag (the entries
// scripts/build-images.sh prints), names the migration Job after that release, and merges its settings.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RELEASE_VERSION } from '../../e2e/support/images.js';
import { docSnippet } from './support/doc-snippets.js';
import { type K8sObject, REPO_ROOT, baseName, kubectlAvailable, parseObjects } from './support/kustomize-render.js';
import { allContainers, workloads } from './support/pod-specs.js';

const snippet = docSnippet('docs/deployment.md', 'own-overlay');
const REGISTRY = 'registry.example.com/team';

function renderOwnOverlay(): K8sObject[] {
  const root = mkdtempSync(join(tmpdir(), 'wi-own-'));
  try {
    const dir = join(root, 'my-workflow-index');
    mkdirSync(dir);
    writeFileSync(join(dir, 'kustomization.yaml'), snippet.replaceAll('../workflow-index/', `${relative(dir, REPO_ROOT)}/`));
    const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`kubectl kustomize of the own overlay failed: ${result.stderr}`);
    return parseObjects(result.stdout, 'own overlay');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('the own overlay of docs/deployment.md', () => {
  it('uses local paths of a checkout, no remote URL', () => {
    const k = parse(snippet) as { resources: string[]; components?: string[] };
    for (const path of [...k.resources, ...(k.components ?? [])]) expect(path).toMatch(/^\.\.\/workflow-index\/kustomize\//);
  });

  it('sets the images exactly as scripts/build-images.sh prints them for the PostgreSQL backend', () => {
    const printed = spawnSync('sh', [join(REPO_ROOT, 'scripts', 'build-images.sh'), '--dry-run', '--backend', 'postgresql', REGISTRY], { encoding: 'utf8' }).stdout;
    const images = (parse(printed.slice(printed.indexOf('\nimages:'))) as { images: unknown[] }).images;
    expect((parse(snippet) as { images: unknown[] }).images).toEqual(images);
  });
});

describe.skipIf(!kubectlAvailable())('the own overlay, rendered', () => {
  const objects = renderOwnOverlay();

  it('runs every image of ours from the registry with the release tag, and names the Job after the release', () => {
    const ours = workloads(objects).flatMap((w) => allContainers(w.spec).map(({ container }) => container.image!)).filter((i) => i.includes('workflow-index/'));
    expect(new Set(ours)).toEqual(new Set([`${REGISTRY}/workflow-index/server-postgresql:${RELEASE_VERSION}`, `${REGISTRY}/workflow-index/init:${RELEASE_VERSION}`]));
    expect(objects.filter((o) => o.kind === 'Job').map((o) => o.metadata.name)).toEqual([`workflow-index-migrate-${RELEASE_VERSION}`]);
    expect(objects.some((o) => o.kind === 'ServiceMonitor')).toBe(true);
  });

  it('merges the database location into both namespaces', () => {
    const maps = objects.filter((o) => o.kind === 'ConfigMap' && baseName(o.metadata.name) === 'workflow-index-database');
    expect(maps.map((m) => m.metadata.namespace).sort()).toEqual(['logging', 'workflow-index']);
    for (const m of maps) expect((m['data'] as Record<string, string>)['DATABASE_HOST']).toBe('pg.db.svc.cluster.local');
  });
});
