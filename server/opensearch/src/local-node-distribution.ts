// The pinned OpenSearch distribution for local nodes: the no-JDK integ-test zip from Maven Central, fetched with
// Maven so the archive lands in ~/.m2 (which CI machines keep between runs) and unzipped once per cache folder.
// Maven Central's maven-metadata.xml stops listing versions at 3.6.0 while 3.8.0 downloads fine, so the version
// is probed by fetching it, never looked up. The version is a parameter (default: the pinned one) so a test can run
// another release beside it (the least-privilege suite's secured node, test/support/secure-node*.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export const OPENSEARCH_VERSION = '3.8.0';
export const OPENSEARCH_ARTIFACT = distributionArtifact(OPENSEARCH_VERSION);
export const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';

export function distributionArtifact(version: string): string {
  return `org.opensearch.distribution.integ-test-zip:opensearch:${version}:zip`;
}

/** Where Maven keeps an artifact (`group:artifact:version[:type]`, type jar by default) once fetched. */
export function mavenArtifactPath(coordinates: string, m2 = join(homedir(), '.m2')): string {
  const [group, artifact, version, type = 'jar'] = coordinates.split(':');
  if (group === undefined || artifact === undefined || version === undefined) throw new Error(`not Maven coordinates: ${coordinates}`);
  return join(m2, 'repository', ...group.split('.'), artifact, version, `${artifact}-${version}.${type}`);
}

/** Where Maven keeps the distribution zip once fetched. */
export function cachedArchivePath(m2 = join(homedir(), '.m2'), version = OPENSEARCH_VERSION): string {
  return mavenArtifactPath(distributionArtifact(version), m2);
}

export interface Distribution {
  /** The unzipped OpenSearch home (bin/, config/, lib/, modules/). */
  readonly home: string;
  /** What was done to get it: nothing, an unzip of the cached archive, or a download and an unzip. */
  readonly action: 'present' | 'unzipped' | 'downloaded';
  readonly downloadSeconds?: number;
  readonly unzipSeconds?: number;
}

export function run(command: string, args: readonly string[], what: string, options: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {}): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', ...options });
  if (result.error) {
    const missing = (result.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(`${what}: ${missing ? `\`${command}\` is not installed` : result.error.message}`);
  }
  if (result.status !== 0) {
    const output = `${result.stdout}${result.stderr}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`${what} failed (exit ${result.status}):\n${output}`);
  }
}

/**
 * Makes sure ~/.m2 holds the artifact, fetching it from Maven Central when it does not; returns its path and the
 * seconds the download took (undefined when it was cached). `scratch` is a folder Maven may copy into (removed).
 */
export function fetchMavenArtifact(coordinates: string, scratch: string): { path: string; downloadSeconds?: number } {
  const path = mavenArtifactPath(coordinates);
  if (existsSync(path)) return { path };
  const started = performance.now();
  rmSync(scratch, { recursive: true, force: true });
  run('mvn', ['-B', '-q', `${DEPENDENCY_PLUGIN}:copy`, `-Dartifact=${coordinates}`, `-DoutputDirectory=${scratch}`], `mvn ${DEPENDENCY_PLUGIN}:copy ${coordinates}`);
  rmSync(scratch, { recursive: true, force: true }); // the copy in ~/.m2 is the one we keep
  if (!existsSync(path)) throw new Error(`Maven reported success but ${path} is missing`);
  return { path, downloadSeconds: (performance.now() - started) / 1000 };
}

/** Makes sure `<cacheDir>/opensearch-<version>` holds the unzipped distribution (default: the pinned version). */
export function ensureDistribution(cacheDir: string, log: (line: string) => void, version = OPENSEARCH_VERSION): Distribution {
  const home = join(cacheDir, `opensearch-${version}`);
  const marker = join(home, '.workflow-index-complete');
  if (existsSync(marker)) return { home, action: 'present' };

  mkdirSync(cacheDir, { recursive: true });
  const artifact = distributionArtifact(version);
  const archive = cachedArchivePath(undefined, version);
  let downloadSeconds: number | undefined;
  if (!existsSync(archive)) {
    log(`fetching ${artifact} from Maven Central (about 130-160 MB, cached in ~/.m2)`);
    downloadSeconds = fetchMavenArtifact(artifact, join(cacheDir, 'download')).downloadSeconds;
  }

  // Unzip beside the final place and rename, so an interrupted unzip never looks like a complete home.
  const started = performance.now();
  const staging = join(cacheDir, `unzip-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    run('unzip', ['-q', archive, '-d', staging], `unzip ${archive}`);
    const top = readdirSync(staging);
    if (top.length !== 1) throw new Error(`${archive} should hold one folder, found: ${top.join(', ')}`);
    rmSync(home, { recursive: true, force: true });
    renameSync(join(staging, top[0]!), home);
    writeFileSync(marker, `${artifact}\n`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const unzipSeconds = (performance.now() - started) / 1000;
  return downloadSeconds === undefined ? { home, action: 'unzipped', unzipSeconds } : { home, action: 'downloaded', downloadSeconds, unzipSeconds };
}
