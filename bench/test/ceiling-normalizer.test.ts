// The ceilings of bench:ingest --ceiling / --vs-ceiling and bench:trigger-cpu --b-ceiling: without a folder they copy
// this release's normalizer definitions, and only apply_events changes. store-only keeps the parse and the event
// store of 080-apply-events.sql and none of the run rows or executions; parse-only writes nothing.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CEILINGS, ceilingNormalizer } from '../postgresql/ceiling/ceiling-normalizer.js';

const NORMALIZER = fileURLToPath(new URL('../../server/postgresql/normalizer/', import.meta.url));
const APPLY_EVENTS = '080-apply-events.sql';

function withCeiling(ceiling: (typeof CEILINGS)[number], check: (dir: string) => void): void {
  const dir = ceilingNormalizer(ceiling);
  try {
    check(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('ceilingNormalizer', () => {
  for (const ceiling of CEILINGS) {
    it(`${ceiling}: copies this release's definitions by default and replaces apply_events only`, () => {
      withCeiling(ceiling, (dir) => {
        const release = readdirSync(NORMALIZER).filter((f) => f.endsWith('.sql')).sort();
        expect(readdirSync(dir).sort()).toEqual(release);
        for (const file of release.filter((f) => f !== APPLY_EVENTS)) {
          expect(readFileSync(join(dir, file), 'utf8'), file).toBe(readFileSync(join(NORMALIZER, file), 'utf8'));
        }
        expect(readFileSync(join(dir, APPLY_EVENTS), 'utf8')).not.toBe(readFileSync(join(NORMALIZER, APPLY_EVENTS), 'utf8'));
      });
    });
  }

  it('store-only keeps the parse and the event store, and writes no run row and no execution', () => {
    withCeiling('store-only', (dir) => {
      const body = readFileSync(join(dir, APPLY_EVENTS), 'utf8');
      expect(body).toContain('FROM parse_events(p_ids, p_data)');
      expect(body).toContain('INSERT INTO events AS e');
      expect(body).toContain('INSERT INTO task_events');
      expect(body).not.toContain('INSERT INTO workflow_instances');
      expect(body).not.toContain('task_executions');
    });
  });

  it('parse-only writes nothing', () => {
    withCeiling('parse-only', (dir) => {
      expect(readFileSync(join(dir, APPLY_EVENTS), 'utf8')).not.toMatch(/INSERT INTO|UPDATE |DELETE FROM/);
    });
  });
});
