import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The SDL text of src/schema.graphql. Compiled code runs from dist/, which tsc does not copy
 * .graphql files into, so the src/ copy is the fallback (it ships with the package).
 */
export function loadSchemaSdl(): string {
  for (const candidate of ['./schema.graphql', '../src/schema.graphql']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) return readFileSync(path, 'utf8');
  }
  throw new Error('schema.graphql not found next to the server/core module or in server/core/src');
}
