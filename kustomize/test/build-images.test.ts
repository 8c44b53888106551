// scripts/build-images.sh, run with --dry-run (no Docker here): for each backend it builds exactly the images that
// backend's overlays run (e2e/support/images.ts, the names the manifests use), from every Dockerfile of the
// repository, tagged for the given registry; and it prints the `images:` entries an overlay needs.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Backend, IMAGE_BUILDS, RELEASE_VERSION, dockerBuildArgs, imageBuildsFor } from '../../e2e/support/images.js';
import { REPO_ROOT, kubectlAvailable, render } from './support/kustomize-render.js';
import { allContainers, workloads } from './support/pod-specs.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'build-images.sh');
const REGISTRY = 'registry.example.com/team';

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  // From another directory: the script builds in the repository root wherever it is started.
  return spawnSync('sh', [SCRIPT, ...args], { encoding: 'utf8', cwd: '/' });
}

function dryRun(...args: string[]): { commands: string[][]; images: { name: string; newName: string }[] } {
  const result = run('--dry-run', ...args);
  expect(result.status, result.stderr).toBe(0);
  const lines = result.stdout.split('\n');
  const commands = lines.filter((l) => l.startsWith('docker ')).map((l) => l.split(' ').slice(1));
  const yaml = lines.slice(lines.indexOf('images:')).join('\n');
  return { commands, images: (parse(yaml) as { images: { name: string; newName: string }[] }).images };
}

/** The `docker build` arguments of e2e/support/images.ts with the image under the registry and the tag. */
function expected(backend: Backend | 'all', tag = RELEASE_VERSION): string[][] {
  const builds = backend === 'all' ? IMAGE_BUILDS : imageBuildsFor(backend);
  return builds.map((b) => dockerBuildArgs({ ...b, image: `${REGISTRY}/${b.image.replace(/:[^:]+$/, `:${tag}`)}` }));
}

describe('scripts/build-images.sh', () => {
  it.each(['postgresql', 'opensearch', 'all'] as const)('--backend %s builds exactly the images of that backend, tagged with the release', (backend) => {
    const { commands, images } = dryRun('--backend', backend, REGISTRY);
    expect(commands).toEqual(expected(backend));
    const names = (backend === 'all' ? IMAGE_BUILDS : imageBuildsFor(backend)).map((b) => b.image.split(':')[0]!);
    expect(images).toEqual(names.map((name) => ({ name, newName: `${REGISTRY}/${name}` })));
  });

  it('builds every image from all Dockerfiles of the repository, and every image built here', () => {
    const { commands } = dryRun(REGISTRY);
    const dockerfiles = readdirSync(REPO_ROOT).filter((f) => /^Dockerfile(\.|$)/.test(f)).sort();
    expect([...new Set(commands.map((c) => c[c.indexOf('-f') + 1]!))].sort()).toEqual(dockerfiles);
    expect(commands).toEqual(expected('all'));
  });

  it('takes a tag and a trailing slash on the registry, pushes with --push, and refuses unknown backends', () => {
    const { commands } = dryRun('--push', '--backend=postgresql', `${REGISTRY}/`, '0.2.0-rc.1');
    const builds = expected('postgresql', '0.2.0-rc.1');
    expect(commands).toEqual(builds.flatMap((b) => [b, ['push', b[b.indexOf('-t') + 1]!]]));
    expect(run('--dry-run', '--backend', 'mysql', REGISTRY).status).toBe(2);
    expect(run('--dry-run').status).toBe(2);
    expect(run('--dry-run', '--backend', 'postgresql', REGISTRY, '0.2.0').stdout).toContain('release component');
  });
});

describe.skipIf(!kubectlAvailable())('scripts/build-images.sh and the manifests', () => {
  it.each([['postgresql', 'postgresql'], ['opensearch', 'opensearch']] as const)('overlay %s runs only images the script builds for --backend %s', (overlay, backend) => {
    const built = new Set(dryRun('--backend', backend, REGISTRY).images.map((i) => i.name));
    const used = new Set<string>();
    for (const w of workloads(render(`kustomize/overlays/${overlay}`))) {
      for (const { container } of allContainers(w.spec)) {
        if (container.image?.startsWith('workflow-index/')) used.add(container.image.split(':')[0]!);
      }
    }
    expect(used).toEqual(built);
  });
});
