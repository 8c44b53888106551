// The Dockerfiles, checked without a Docker engine: pinned Node base (new enough for every production
// dependency), one target per backend module, production-only dependencies at run time, non-root numeric USER,
// ports, stop signal, heap bound, entry points that `npm run build` produces, COPY sources that exist and are
// not excluded by .dockerignore; and the manifests run exactly these images as the same user.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { type Backend, IMAGE_BUILDS, RELEASE_VERSION, imageBuildsFor } from '../../e2e/support/images.js';
import { REPO_ROOT, kubectlAvailable, render } from './support/kustomize-render.js';
import { allContainers, effective as effectiveSecurity, workloads } from './support/pod-specs.js';
import { type Dockerfile, all, copies, dockerIgnore, effective, envOf, jsonArgs, lineage, parseDockerfile, stage } from './support/dockerfile.js';

const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');
const manifest = JSON.parse(read('package.json')) as { engines: { node: string } };
const server = parseDockerfile(read('Dockerfile.server'));
const init = parseDockerfile(read('Dockerfile.init'));
const ignored = dockerIgnore(read('.dockerignore'));
const DOCKERFILES: Record<string, Dockerfile> = { 'Dockerfile.server': server, 'Dockerfile.init': init };
/** [Dockerfile, target, the server module it ships, the entry point's assets besides dist] */
const TARGETS: [string, string, string, string[]][] = [
  ['Dockerfile.server', 'postgresql', 'server/postgresql', ['/app/server/postgresql/migrations', '/app/server/postgresql/normalizer', '/app/server/core/src/schema.graphql']],
  ['Dockerfile.server', 'opensearch', 'server/opensearch', ['/app/server/core/src/schema.graphql']],
  ['Dockerfile.server', 'opensearch-normalizer', 'server/opensearch', []],
  ['Dockerfile.init', 'init', 'server/postgresql', ['/app/server/postgresql/migrations', '/app/server/postgresql/normalizer', '/app/server/core/src/schema.graphql']],
];

function version(text: string): number[] {
  return text.split('.').map(Number);
}
function atLeast(actual: number[], required: number[]): boolean {
  for (let i = 0; i < 3; i++) {
    if ((actual[i] ?? 0) !== (required[i] ?? 0)) return (actual[i] ?? 0) > (required[i] ?? 0);
  }
  return true;
}

/** Minimum Node versions (`>=x.y.z`) that production dependencies in the lockfile declare. */
function requiredNodeVersions(): { pkg: string; min: number[] }[] {
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean; engines?: { node?: string } }> };
  return Object.entries(lock.packages)
    .filter(([, p]) => !p.dev && typeof p.engines?.node === 'string')
    .flatMap(([pkg, p]) => {
      const m = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(p.engines!.node!.trim());
      return m ? [{ pkg, min: version(m[1]!) }] : [];
    });
}

/** Workspace folders `tsc -b <dir>` builds, following project references. */
function builtWorkspaces(dir: string, seen = new Set<string>()): Set<string> {
  if (seen.has(dir)) return seen;
  seen.add(dir);
  const tsconfig = JSON.parse(read(join(dir, 'tsconfig.json'))) as { references?: { path: string }[] };
  for (const ref of tsconfig.references ?? []) builtWorkspaces(join(dir, ref.path), seen);
  return seen;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(join(REPO_ROOT, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Packages a workspace's compiled code loads when it starts: static `import … from` / `export … from` that are
 * not `import type` (under verbatimModuleSyntax even `import { type X }` stays a runtime import). Dynamic
 * `import()` is left out: the code guards it (e.g. testcontainers, a development-only dependency).
 */
function runtimeImports(workspace: string): Set<string> {
  const packages = new Set<string>();
  for (const file of sourceFiles(join(workspace, 'src'))) {
    for (const m of read(file).matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^;'"]*?\s+from\s+)?'([^']+)'/gm)) {
      const specifier = m[1]!;
      if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
      packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
    }
  }
  return packages;
}

describe.each(TARGETS)('%s target %s', (file, target, module, assets) => {
  const dockerfile = DOCKERFILES[file]!;
  it('builds every stage from one pinned Node image, new enough for every production dependency', () => {
    const external = dockerfile.stages.map((s) => s.base).filter((b) => !dockerfile.stages.some((s) => s.name === b));
    expect(new Set(external)).toEqual(new Set(['node:22.23.5-bookworm-slim']));
    const imageNode = /^node:(\d+\.\d+\.\d+)-/.exec(external[0]!)![1]!;
    // A release the project supports, on the line .nvmrc names (.ci/run runs the suite on exactly this release).
    expect(semver.satisfies(imageNode, manifest.engines.node)).toBe(true);
    expect(semver.major(imageNode)).toBe(Number(read('.nvmrc').trim()));
    const nodeVersion = version(imageNode);
    const unmet = requiredNodeVersions().filter((r) => !atLeast(nodeVersion, r.min)).map((r) => `${r.pkg} needs ${r.min.join('.')}`);
    expect(unmet).toEqual([]);
  });

  it('runs as a numeric non-root user with a read-only-friendly layout', () => {
    const user = effective(dockerfile, target, 'USER')?.args;
    expect(user).toBe('1000:1000');
    expect(Number(user!.split(':')[0])).toBeGreaterThan(0);
    expect(envOf(lineage(dockerfile, target).flatMap((s) => s.instructions))['NODE_ENV']).toBe('production');
    // No RUN in the runtime image: nothing is installed or written at build time as root after the copies.
    expect(all(dockerfile, target, 'RUN')).toEqual([]);
  });

  it('installs only production dependencies, with npm ci from the lockfile, for the image it ships', () => {
    const depsStages = copies(stage(dockerfile, target)).filter((c) => c.sources.includes('/app/node_modules')).map((c) => c.from!);
    expect(depsStages).toHaveLength(1);
    const install = stage(dockerfile, depsStages[0]!).instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args).join(' && ');
    expect(install).toMatch(/^npm ci --omit=dev /);
    expect(install).toContain(`--workspace ${module}`);
  });

  it('installs every package the shipped modules import: each is a production dependency of an installed workspace', () => {
    const depsStage = copies(stage(dockerfile, target)).find((c) => c.sources.includes('/app/node_modules'))!.from!;
    const install = stage(dockerfile, depsStage).instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args).join(' ');
    const workspaces = [...install.matchAll(/--workspace (\S+)/g)].map((m) => m[1]!);
    const manifests = workspaces.map((w) => JSON.parse(read(`${w}/package.json`)) as { name: string; dependencies?: Record<string, string> });
    const installed = new Set(manifests.flatMap((m) => [m.name, ...Object.keys(m.dependencies ?? {})]));
    const undeclared = workspaces.flatMap((w) => [...runtimeImports(w)].filter((p) => !installed.has(p)).map((p) => `${w} imports ${p}`));
    expect(undeclared).toEqual([]);
  });

  it('copies only files that exist in the repository and that .dockerignore lets into the build context', () => {
    for (const s of dockerfile.stages) {
      for (const c of copies(s).filter((x) => x.from === undefined)) {
        for (const source of c.sources) {
          expect(existsSync(join(REPO_ROOT, source)), `${file}:${c.line} ${source}`).toBe(true);
          expect(ignored(source), `${file}:${c.line} ${source} is excluded by .dockerignore`).toBe(false);
        }
      }
    }
  });

  it('copies build output that the build stage produces, and sources that exist', () => {
    const build = stage(dockerfile, 'build');
    const tscTargets = build.instructions.filter((i) => i.keyword === 'RUN' && /npx tsc -b /.test(i.args)).map((i) => /npx tsc -b (\S+)/.exec(i.args)![1]!);
    const built = new Set(tscTargets.flatMap((t) => [...builtWorkspaces(t)]).map((w) => w.replace(/\/$/, '')));
    // The console is built by Vite (its own script), not by tsc.
    if (build.instructions.some((i) => i.keyword === 'RUN' && /^node console\/scripts\/build\.mjs\b/.test(i.args))) built.add('console');
    for (const c of copies(stage(dockerfile, target)).filter((x) => x.from === 'build')) {
      for (const source of c.sources.map((s) => s.replace(/^\/app\//, ''))) {
        const dist = /^(.+)\/dist$/.exec(source);
        if (dist) {
          expect(built.has(dist[1]!), `${source} is not built by ${tscTargets.join(', ')}`).toBe(true);
          if (dist[1] === 'console') continue; // Vite writes console/dist (console/vite.config.ts), no tsconfig outDir
          const tsconfig = JSON.parse(read(`${dist[1]}/tsconfig.json`)) as { compilerOptions: { rootDir: string; outDir: string } };
          expect([tsconfig.compilerOptions.rootDir, tsconfig.compilerOptions.outDir]).toEqual(['src', 'dist']);
        } else {
          expect(existsSync(join(REPO_ROOT, source)), `${file}:${c.line} ${source}`).toBe(true);
        }
      }
    }
  });

  it('starts an entry point that `npm run build` produces in the copied layout', () => {
    const command = [...(jsonArgs(effective(dockerfile, target, 'ENTRYPOINT')) ?? []), ...(jsonArgs(effective(dockerfile, target, 'CMD')) ?? [])];
    expect(command[0]).toBe('node');
    const main = /^(.+)\/dist\/(.+)\.js$/.exec(command[1]!)!;
    expect(existsSync(join(REPO_ROOT, main[1]!, 'src', `${main[2]}.ts`)), `${main[1]}/src/${main[2]}.ts`).toBe(true);
    const copied = copies(stage(dockerfile, target)).flatMap((c) => c.sources);
    expect(copied).toContain(`/app/${main[1]}/dist`);
    for (const asset of assets) expect(copied).toContain(asset);
  });
});

describe('Dockerfile.server', () => {
  it('has one target per backend module (postgresql, opensearch) and the opensearch normalizer, on a shared runtime stage', () => {
    expect(server.stages.map((s) => s.name)).toEqual(['build', 'postgresql-deps', 'opensearch-deps', 'runtime', 'postgresql', 'opensearch', 'opensearch-normalizer']);
    for (const target of ['postgresql', 'opensearch', 'opensearch-normalizer']) expect(stage(server, target).base).toBe('runtime');
  });

  it('runs the opensearch server and normalizer mains, the normalizer exposing its metrics port', () => {
    expect(jsonArgs(effective(server, 'opensearch', 'CMD'))).toEqual(['node', 'server/opensearch/dist/main.js']);
    expect(jsonArgs(effective(server, 'opensearch-normalizer', 'CMD'))).toEqual(['node', 'server/opensearch/dist/normalizer-main.js']);
    expect(effective(server, 'opensearch', 'EXPOSE')?.args).toBe('8080 8443');
    expect(effective(server, 'opensearch-normalizer', 'EXPOSE')?.args).toBe('9464');
    for (const target of ['opensearch', 'opensearch-normalizer']) {
      expect(effective(server, target, 'STOPSIGNAL')?.args, target).toBe('SIGTERM');
      expect(envOf(lineage(server, target).flatMap((s) => s.instructions))['NODE_OPTIONS'], target).toBe('--max-old-space-size=1024 --max-semi-space-size=8');
      // Nothing of the PostgreSQL module ships in the OpenSearch images.
      expect(copies(stage(server, target)).flatMap((c) => c.sources).filter((p) => p.includes('postgresql')), target).toEqual([]);
    }
  });

  it('exposes HTTP and HTTPS, stops on SIGTERM, bounds the heap at 1024 MiB (8 MiB semi-spaces) and runs the postgresql main', () => {
    expect(effective(server, 'postgresql', 'EXPOSE')?.args).toBe('8080 8443');
    expect(effective(server, 'postgresql', 'STOPSIGNAL')?.args).toBe('SIGTERM');
    expect(envOf(lineage(server, 'postgresql').flatMap((s) => s.instructions))['NODE_OPTIONS']).toBe('--max-old-space-size=1024 --max-semi-space-size=8');
    expect(jsonArgs(effective(server, 'postgresql', 'CMD'))).toEqual(['node', 'server/postgresql/dist/main.js']);
    expect(effective(server, 'postgresql', 'ENTRYPOINT')).toBeUndefined();
  });
});

describe('Dockerfile.init', () => {
  it('has the CLI as entrypoint and migrate as default command', () => {
    expect(jsonArgs(effective(init, 'init', 'ENTRYPOINT'))).toEqual(['node', 'init-job/dist/main.js']);
    expect(jsonArgs(effective(init, 'init', 'CMD'))).toEqual(['migrate']);
  });
});

describe('.dockerignore', () => {
  it('keeps local build output, dependencies, state and deployment files out of the context', () => {
    for (const path of ['node_modules/pg/index.js', 'server/core/node_modules/x', 'server/core/dist/app.js', 'init-job/dist/main.js', '.git/HEAD', '.data/pglite/x', 'server/postgresql/test/x.test.ts', 'manifests/base/kustomization.yaml', 'e2e/kind/kind.test.ts', 'README.md']) {
      expect(ignored(path), path).toBe(true);
    }
    for (const path of ['package.json', 'package-lock.json', 'server/core/src/schema.graphql', 'server/postgresql/migrations/0001_initial_schema.sql', 'server/postgresql/normalizer/080-apply-events.sql', 'init-job/src/main.ts', 'tsconfig.base.json']) {
      expect(ignored(path), path).toBe(false);
    }
  });
});

describe.skipIf(!kubectlAvailable())('images in the manifests', () => {
  const overlays: [string, Backend][] = [['postgresql', 'postgresql'], ['kind', 'postgresql'], ['opensearch', 'opensearch'], ['kind-opensearch', 'opensearch']];
  it.each(overlays)('overlay %s runs exactly the images built here for the %s backend, as the user they are built for', (overlay, backend) => {
    const ours = new Map<string, number[]>();
    for (const w of workloads(render(`kustomize/overlays/${overlay}`))) {
      for (const { container } of allContainers(w.spec)) {
        if (!container.image?.startsWith('workflow-index/')) continue;
        ours.set(container.image, [...(ours.get(container.image) ?? []), effectiveSecurity(w.spec, container, 'runAsUser')!]);
      }
    }
    expect([...ours.keys()].sort()).toEqual(imageBuildsFor(backend).map((b) => b.image).sort());
    for (const uids of ours.values()) expect(new Set(uids)).toEqual(new Set([1000]));
    expect(IMAGE_BUILDS.every((b) => b.image.endsWith(`:${RELEASE_VERSION}`))).toBe(true);
  });
});
