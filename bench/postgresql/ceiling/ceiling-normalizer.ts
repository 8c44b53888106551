// The ceilings of a normalizing trigger, for bench:ingest --ceiling and bench:trigger-cpu --b-ceiling: a copy of the
// normalizer definitions (this release's, or `from`) whose apply_events is replaced:
// - parse-only (parse-only.sql of this folder): parses each flush as the real one does and writes nothing;
// - store-only (cut from the definitions' own 080-apply-events.sql, so it follows every change there): its first
//   statement up to the event store only — parse, record rejected events, keep each accepted event once (what any
//   delivery-proof normalizer must do at least) — with no run row and no execution.
// The caller removes the directory.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const APPLY_EVENTS = '080-apply-events.sql';

export const CEILINGS = ['parse-only', 'store-only'] as const;
export type Ceiling = (typeof CEILINGS)[number];

export function ceilingNormalizer(ceiling: Ceiling, from: string = join(HERE, '..', '..', '..', 'server', 'postgresql', 'normalizer')): string {
  const dir = mkdtempSync(join(tmpdir(), `wi-${ceiling}-`));
  for (const file of readdirSync(from).filter((f) => f.endsWith('.sql'))) copyFileSync(join(from, file), join(dir, file));
  const body = ceiling === 'parse-only' ? readFileSync(join(HERE, 'parse-only.sql'), 'utf8') : storeOnly(readFileSync(join(from, APPLY_EVENTS), 'utf8'));
  writeFileSync(join(dir, APPLY_EVENTS), body);
  return dir;
}

/** The position of `marker` in apply_events' text, from `after`; a clear error when the normalizer no longer has it. */
function at(text: string, marker: string, after = 0): number {
  const i = text.indexOf(marker, after);
  if (i < 0) throw new Error(`store-only ceiling: ${APPLY_EVENTS} has no ${JSON.stringify(marker.trim())} any more; update bench/ceiling/ceiling-normalizer.ts`);
  return i;
}

/**
 * apply_events with its first statement cut down to the CTEs before `wf` (parse, reject, keep workflow events in
 * `events`) and `stored` (task events in `task_events`), counted instead of recomputing anything.
 */
function storeOnly(applyEvents: string): string {
  const storedEnd = 'RETURNING task_events.instance_id, task_events.task_position\n    )';
  const start = at(applyEvents, '    WITH parsed AS MATERIALIZED (');
  const stored = at(applyEvents, '    ), stored AS (', start);
  const chain = applyEvents.slice(start, at(applyEvents, '    ), wf AS (', start)) + applyEvents.slice(stored, at(applyEvents, storedEnd, stored) + storedEnd.length);
  return `-- bench ceiling store-only, cut from ${APPLY_EVENTS} by bench/ceiling/ceiling-normalizer.ts: never installed outside a
-- benchmark database.
CREATE OR REPLACE FUNCTION workflow_index.apply_events(p_table TEXT, p_ids BIGINT[], p_data JSONB[]) RETURNS VOID
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  c BIGINT;
BEGIN
${chain}
    SELECT count(*) INTO c FROM stored;
END
$$;
`;
}
