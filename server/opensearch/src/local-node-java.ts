// Finds a JDK that can run OpenSearch 3.x (Java >= 21). The build machines keep Java 17 as the default `java`
// and Temurin 25 beside it, so the default `java` on PATH is not the answer: we look at OPENSEARCH_JAVA_HOME,
// then JAVA_HOME, then every JDK under /usr/lib/jvm, and take the newest one that is new enough.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const MINIMUM_JAVA_MAJOR = 21;

export interface JavaHome {
  readonly path: string;
  readonly major: number;
  /** Where it came from, for the messages we print. */
  readonly source: string;
}

/** The major version of a JDK folder, from its `release` file (`JAVA_VERSION="25.0.1"`, `"1.8.0_402"`). */
export function javaMajorVersion(home: string): number | undefined {
  const release = join(home, 'release');
  if (!existsSync(join(home, 'bin', 'java')) || !existsSync(release)) return undefined;
  const match = /^JAVA_VERSION="([^"]+)"/m.exec(readFileSync(release, 'utf8'));
  if (!match) return undefined;
  const parts = match[1]!.split(/[._+-]/).map((p) => Number.parseInt(p, 10));
  const major = parts[0] === 1 ? parts[1] : parts[0];
  return major !== undefined && Number.isInteger(major) ? major : undefined;
}

export function findJavaHome(env: Readonly<Record<string, string | undefined>>, jvmRoot = '/usr/lib/jvm'): JavaHome {
  const rejected: string[] = [];
  for (const variable of ['OPENSEARCH_JAVA_HOME', 'JAVA_HOME'] as const) {
    const path = env[variable];
    if (path === undefined || path === '') continue;
    const major = javaMajorVersion(path);
    if (major !== undefined && major >= MINIMUM_JAVA_MAJOR) return { path, major, source: variable };
    rejected.push(`${variable}=${path} (${major === undefined ? 'no JDK there' : `Java ${major}`})`);
  }
  const candidates: JavaHome[] = [];
  if (existsSync(jvmRoot)) {
    for (const entry of readdirSync(jvmRoot).sort()) {
      const path = join(jvmRoot, entry);
      const major = javaMajorVersion(path);
      if (major === undefined) continue;
      if (major >= MINIMUM_JAVA_MAJOR) candidates.push({ path, major, source: jvmRoot });
      else rejected.push(`${path} (Java ${major})`);
    }
  }
  // Newest major first; among equals prefer Temurin (the JDK the reference verified), then the name order.
  candidates.sort((a, b) => b.major - a.major || Number(b.path.includes('temurin')) - Number(a.path.includes('temurin')) || a.path.localeCompare(b.path));
  const best = candidates[0];
  if (best) return best;
  throw new Error(
    `OpenSearch 3.x needs Java >= ${MINIMUM_JAVA_MAJOR} and none was found` +
      (rejected.length > 0 ? ` (looked at: ${rejected.join(', ')})` : ` (nothing under ${jvmRoot})`) +
      `. Install one (Debian: apt-get install openjdk-21-jdk-headless or temurin-25-jdk) or set OPENSEARCH_JAVA_HOME.`,
  );
}
