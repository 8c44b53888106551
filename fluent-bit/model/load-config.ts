// Loads a backend's Fluent Bit configuration from fluent-bit/<backend>/ the way Fluent Bit does: the main file,
// then the parsers file its [SERVICE] names (relative to the main file).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ClassicConfig, parseClassicConfig, property, sectionsOf } from './classic-config.js';

export const FLUENT_BIT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface BackendFluentBitConfig {
  readonly directory: string;
  readonly config: ClassicConfig;
  readonly parsers: ClassicConfig;
}

export function loadFluentBitConfig(backend: string, mainFile = 'fluent-bit.conf'): BackendFluentBitConfig {
  const directory = join(FLUENT_BIT_ROOT, backend);
  const config = parseClassicConfig(readFileSync(join(directory, mainFile), 'utf8'), `fluent-bit/${backend}/${mainFile}`);
  const service = sectionsOf(config, 'SERVICE')[0];
  const parsersFile = service ? property(service, 'Parsers_File') : undefined;
  if (!parsersFile) throw new Error(`fluent-bit/${backend}/${mainFile}: [SERVICE] has no Parsers_File`);
  const parsers = parseClassicConfig(readFileSync(join(directory, parsersFile), 'utf8'), `fluent-bit/${backend}/${parsersFile}`);
  return { directory, config, parsers };
}
