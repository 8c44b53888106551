// The ceilings of a normalizing trigger, for bench:ingest --ceiling and bench:trigger-cpu --b-ceiling: a copy of the
// normalizer definitions (this release's, or `from`) whose apply_events is one of this folder's:
// - parse-only.sql: parses each flush as the real one does and writes nothing;
// - store-only.sql: parses, records rejected events and keeps each accepted event once in the event store (what any
//   delivery-proof normalizer must do at least), and writes no run row and no execution.
// The caller removes the directory.
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export const CEILINGS = ['parse-only', 'store-only'] as const;
export type Ceiling = (typeof CEILINGS)[number];

export function ceilingNormalizer(ceiling: Ceiling, from: string = join(HERE, '..', '..', 'normalizer')): string {
  const dir = mkdtempSync(join(tmpdir(), `wi-${ceiling}-`));
  for (const file of readdirSync(from).filter((f) => f.endsWith('.sql'))) copyFileSync(join(from, file), join(dir, file));
  copyFileSync(join(HERE, `${ceiling}.sql`), join(dir, '080-apply-events.sql'));
  return dir;
}
