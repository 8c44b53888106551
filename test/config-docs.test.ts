// docs/configuration.md is generated from the configuration tables in code (scripts/config-docs.ts): it must be
// exactly what they give, and the normalizer's table (kept in the script) must name every NORMALIZER_* key the
// OpenSearch module reads, no other, with the defaults it reads them with.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CORE_CONFIG_KEYS } from '@workflow-index/core';
import { OPENSEARCH_CONFIG_KEYS } from '@workflow-index/opensearch';
import { POSTGRESQL_CONFIG_KEYS } from '@workflow-index/postgresql';
import { CONFIGURATION_PAGE, NORMALIZER_CONFIG_KEYS, renderConfigurationDocs } from '../scripts/config-docs.js';

const OPENSEARCH_SRC = fileURLToPath(new URL('../server/opensearch/src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const opensearchSources = sourceFiles(OPENSEARCH_SRC).map((file) => readFileSync(file, 'utf8'));

describe('docs/configuration.md', () => {
  it('is what npm run docs:config generates from the tables in code', () => {
    // On failure: run `npm run docs:config` and commit docs/configuration.md.
    expect(readFileSync(CONFIGURATION_PAGE, 'utf8')).toBe(renderConfigurationDocs());
  });

  it('names every key of every table', () => {
    const page = renderConfigurationDocs();
    const keys = [...CORE_CONFIG_KEYS, ...POSTGRESQL_CONFIG_KEYS, ...OPENSEARCH_CONFIG_KEYS, ...NORMALIZER_CONFIG_KEYS].flatMap((k) =>
      k.key.replace(/\s*\(--[a-z-]+\)$/, '').split(' / '),
    );
    expect(keys.length).toBeGreaterThan(60);
    for (const key of keys) expect(page).toContain(`\`${key.trim()}\``);
  });

  it("documents exactly the NORMALIZER_* keys the OpenSearch module reads, with their defaults", () => {
    const read = new Set(opensearchSources.flatMap((text) => [...text.matchAll(/['"](NORMALIZER_[A-Z0-9_]+)['"]/g)].map((m) => m[1]!)));
    const documented = NORMALIZER_CONFIG_KEYS.map((k) => k.key);
    expect([...read].sort()).toEqual([...documented].sort());
    for (const k of NORMALIZER_CONFIG_KEYS) {
      // Where a key is read with its default beside it (`intSetting('NAME', 1000, …)`), that default is the table's.
      for (const text of opensearchSources) {
        for (const m of text.matchAll(new RegExp(`['"]${k.key}['"],\\s*([0-9][0-9_]*)\\b`, 'g'))) {
          expect(`${k.key} ${Number(m[1]!.replace(/_/g, ''))}`).toBe(`${k.key} ${k.production}`);
        }
      }
    }
  });
});
