// The pinned OpenSearch distribution for local nodes: the no-JDK integ-test zip from Maven Central, fetched with
// Maven so the archive lands in ~/.m2 (which CI machines keep between runs) and unzipped once per cache folder.
// Maven Central's maven-metadata.xml stops listing versions at 3.6.0 while 3.8.0 downloads fine, so the version
// is probed by fetching it, never looked up.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export const OPENSEARCH_VERSION = '3.8.0';
export const OPENSEARCH_ARTIFACT = `org.opensearch.distribution.integ-test-zip:opensearch:${OPENSEARCH_VERSION}:zip`;
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy';

/** Where Maven keeps the zip once fetched. */
export function cachedArchivePath(m2 = join(homedir(), '.m2')): string {
  return join(m2, 'repository', 'org', 'opensearch', 'distribution', 'integ-test-zip', 'opensearch', OPENSEARCH_VERSION, `opensearch-${OPENSEARCH_VERSION}.zip`);
}

export interface Distribution {
  /** The unzipped OpenSearch home (bin/, config/, lib/, modules/). */
  readonly home: string;
  /** What was done to get it: nothing, an unzip of the cached archive, or a download and an unzip. */
  readonly action: 'present' | 'unzipped' | 'downloaded';
  readonly downloadSeconds?: number;
  readonly unzipSeconds?: number;
}

function run(command: string, args: readonly string[], what: string): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.error) {
    const missing = (result.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(`${what}: ${missing ? `\`${command}\` is not installed` : result.error.message}`);
  }
  if (result.status !== 0) {
    const output = `${result.stdout}${result.stderr}`.trim().split('\n').slice(-20).join('\n');
    throw new Error(`${what} failed (exit ${result.status}):\n${output}`);
  }
}

/** Makes sure `<cacheDir>/opensearch-<version>` holds the unzipped distribution. */
export function ensureDistribution(cacheDir: string, log: (line: string) => void): Distribution {
  const home = join(cacheDir, `opensearch-${OPENSEARCH_VERSION}`);
  const marker = join(home, '.workflow-index-complete');
  if (existsSync(marker)) return { home, action: 'present' };

  mkdirSync(cacheDir, { recursive: true });
  const archive = cachedArchivePath();
  let downloadSeconds: number | undefined;
  if (!existsSync(archive)) {
    log(`fetching ${OPENSEARCH_ARTIFACT} from Maven Central (about 160 MB, cached in ~/.m2)`);
    const started = performance.now();
    const target = join(cacheDir, 'download');
    rmSync(target, { recursive: true, force: true });
    run('mvn', ['-B', '-q', DEPENDENCY_PLUGIN, `-Dartifact=${OPENSEARCH_ARTIFACT}`, `-DoutputDirectory=${target}`], `mvn ${DEPENDENCY_PLUGIN} ${OPENSEARCH_ARTIFACT}`);
    rmSync(target, { recursive: true, force: true }); // the copy in ~/.m2 is the one we keep
    downloadSeconds = (performance.now() - started) / 1000;
    if (!existsSync(archive)) throw new Error(`Maven reported success but ${archive} is missing`);
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
    writeFileSync(marker, `${OPENSEARCH_ARTIFACT}\n`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const unzipSeconds = (performance.now() - started) / 1000;
  return downloadSeconds === undefined ? { home, action: 'unzipped', unzipSeconds } : { home, action: 'downloaded', downloadSeconds, unzipSeconds };
}
