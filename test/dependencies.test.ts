// Every installed package must run on the oldest Node.js the README promises (package.json "engines"). npm only
// warns (EBADENGINE) when a transitive dependency asks for a newer Node, so this reads the lock file: a new release
// deep in the tree that drops Node 20 fails here instead of at a user's `npm install`.
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const readJson = (path: string): unknown => JSON.parse(readFileSync(new URL(path, root), 'utf8'));

interface LockEntry { readonly version?: string; readonly engines?: unknown; readonly optional?: boolean }
const manifest = readJson('package.json') as { engines: { node: string } };
const lock = readJson('package-lock.json') as { packages: Record<string, LockEntry> };
const oldestNode = semver.minVersion(manifest.engines.node);

describe('dependencies and the supported Node.js versions', () => {
  it('package.json promises a Node.js range with a lowest version, and .nvmrc (what CI runs) is inside it', () => {
    expect(oldestNode).not.toBeNull();
    const nvmrc = readFileSync(new URL('.nvmrc', root), 'utf8').trim();
    expect(semver.intersects(`${nvmrc}.x`, manifest.engines.node)).toBe(true);
  });

  it("every package of the lock file accepts the oldest supported Node.js in its engines field", () => {
    const refusing = Object.entries(lock.packages)
      // npm skips an optional package whose engines refuse the running Node (rollup's @napi-rs/lzma-linux-x64-gnu),
      // so only the packages every install gets must accept it.
      .filter(([path, entry]) => path !== '' && entry.optional !== true)
      .flatMap(([path, entry]) => {
        const engines = entry.engines;
        const node = typeof engines === 'object' && engines !== null ? (engines as { node?: unknown }).node : undefined;
        if (typeof node !== 'string') return [];
        return semver.satisfies(oldestNode!.version, node, { includePrerelease: true }) ? [] : [`${path}@${entry.version} requires node ${node}`];
      });
    expect(refusing).toEqual([]);
  });
});
