// Loads a backend's Fluent Bit configuration from fluent-bit/<backend>/ the way Fluent Bit does: the main file,
// then the parsers file its [SERVICE] names (relative to the main file). A file the folder shares with another
// backend's folder (fluent-bit/opensearch takes parsers.conf and two Lua scripts from ../postgresql) is found where
// the folder's kustomization.yaml takes it from: its `resources`, whose ConfigMap the folder's generator merges into.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ClassicConfig, parseClassicConfig, property, sectionsOf } from './classic-config.js';

export const FLUENT_BIT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface BackendFluentBitConfig {
  readonly directory: string;
  readonly config: ClassicConfig;
  readonly parsers: ClassicConfig;
}

/** The folders a backend folder's kustomization builds on (`resources:` entries), nearest first. */
function sharedFolders(directory: string): string[] {
  const kustomization = join(directory, 'kustomization.yaml');
  if (!existsSync(kustomization)) return [];
  const text = readFileSync(kustomization, 'utf8');
  const block = /^resources:\n((?:\s+-\s+.+\n)+)/m.exec(text);
  if (!block) return [];
  return block[1]!.split('\n').map((l) => l.replace(/^\s+-\s+/, '').trim()).filter((l) => l !== '').map((r) => resolve(directory, r));
}

/** Where a file a configuration in `directory` names (a script, the parsers file) is, as its ConfigMap holds it. */
export function configFilePath(directory: string, name: string): string {
  const own = join(directory, name);
  if (existsSync(own)) return own;
  for (const folder of sharedFolders(directory)) {
    const found = configFilePath(folder, name);
    if (existsSync(found)) return found;
  }
  return own;
}

export function loadFluentBitConfig(backend: string, mainFile = 'fluent-bit.conf'): BackendFluentBitConfig {
  const directory = join(FLUENT_BIT_ROOT, backend);
  const config = parseClassicConfig(readFileSync(join(directory, mainFile), 'utf8'), `fluent-bit/${backend}/${mainFile}`);
  const service = sectionsOf(config, 'SERVICE')[0];
  const parsersFile = service ? property(service, 'Parsers_File') : undefined;
  if (!parsersFile) throw new Error(`fluent-bit/${backend}/${mainFile}: [SERVICE] has no Parsers_File`);
  const parsers = parseClassicConfig(readFileSync(configFilePath(directory, parsersFile), 'utf8'), `fluent-bit/${backend}/${parsersFile}`);
  return { directory, config, parsers };
}
