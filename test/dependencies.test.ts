// Every installed package must run on every Node.js release the README promises (package.json "engines": the
// lowest release of each supported line). npm only warns (EBADENGINE) when a transitive dependency asks for a newer
// Node, so this reads the lock file: a new release deep in the tree that drops a supported line, or raises its
// lowest release, fails here instead of at a user's `npm install`.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const readJson = (path: string): unknown => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

interface LockEntry { readonly version?: string; readonly engines?: unknown; readonly optional?: boolean }
const manifest = readJson('package.json') as { engines: { node: string } };
const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };
/** The lowest release of each line the engines range allows ("^22.13.0 || >=24.0.0" → 22.13.0, 24.0.0). */
const oldestOfEachLine = manifest.engines.node.split('||').map((part) => semver.minVersion(part.trim())?.version ?? null);

describe('dependencies and the supported Node.js versions', () => {
  it('package.json promises Node.js lines with a lowest release each, and .nvmrc (the images\' line) is one of them', () => {
    expect(oldestOfEachLine).not.toContain(null);
    expect(oldestOfEachLine.map((v) => semver.major(v!))).toEqual([22, 24]);
    const nvmrc = readFileSync(new URL('.nvmrc', root), 'utf8').trim();
    expect(semver.intersects(`${nvmrc}.x`, manifest.engines.node)).toBe(true);
    expect(lock.packages['']?.engines).toEqual(manifest.engines);
  });

  it.each(oldestOfEachLine)('every package of the lock file accepts Node.js %s in its engines field', (oldest) => {
    const refusing = Object.entries(lock.packages)
      // npm skips an optional package whose engines refuse the running Node (rollup's @napi-rs/lzma-linux-x64-gnu),
      // so only the packages every install gets must accept it.
      .filter(([path, entry]) => path !== '' && entry.optional !== true)
      .flatMap(([path, entry]) => {
        const engines = entry.engines;
        const node = typeof engines === 'object' && engines !== null ? (engines as { node?: unknown }).node : undefined;
        if (typeof node !== 'string') return [];
        return semver.satisfies(oldest!, node, { includePrerelease: true }) ? [] : [`${path}@${entry.version} requires node ${node}`];
      });
    expect(refusing).toEqual([]);
  });
});
