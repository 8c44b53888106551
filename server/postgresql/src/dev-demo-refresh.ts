// The built-in demo is placed just before the start, but loaded only into an empty database: a restart the next day
// would show a day-old demo (a lag of a day, nothing running). When the embedded database holds the built-in demo's
// runs and nothing else, and its newest event is older than an hour, the server starts the embedded database over,
// so the demo is placed again. A database that holds any other run is kept as it is.
import { resolve } from 'node:path';
import pg from 'pg';
import { DEMO_REFERENCE_EVENTS, DEMO_RUNNING_INSTANCE, DEMO_RUN_OFFSETS_S } from '@workflow-index/events';
import type { SqlExecutor } from './ingest-raw-tables.js';

/** The age of its newest event past which a demo-only database is started over. */
export const DEMO_MAX_AGE_MS = 3_600_000;

const DEMO_IDS: readonly string[] = [...Object.keys(DEMO_RUN_OFFSETS_S), DEMO_RUNNING_INSTANCE];

/** Whether `file` is the built-in demo (the one placed relative to the start). */
export function isBuiltInDemo(file: string | null): boolean {
  return file !== null && resolve(file) === DEMO_REFERENCE_EVENTS;
}

/** The demo's age in ms when the database holds the built-in demo's runs and no other run, else null. */
export async function demoOnlyAgeMs(db: SqlExecutor, nowMs: number = Date.now()): Promise<number | null> {
  const schema = await db.query(`SELECT to_regclass('workflow_index.workflow_instances') IS NOT NULL AS present`);
  if ((schema.rows[0] as { present: boolean } | undefined)?.present !== true) return null;
  const result = await db.query(
    `SELECT count(*)::int AS runs, count(*) FILTER (WHERE id <> ALL($1::text[]))::int AS others,
            (extract(epoch FROM max(last_update)) * 1000)::float8 AS newest_ms
     FROM workflow_index.workflow_instances`,
    [DEMO_IDS],
  );
  const row = result.rows[0] as { runs: number; others: number; newest_ms: number | null } | undefined;
  if (row === undefined || row.runs === 0 || row.others > 0 || row.newest_ms === null) return null;
  return nowMs - row.newest_ms;
}

/** Whether the embedded database at `connection` holds only an hour-old (or older) built-in demo. */
export async function staleDemoOnly(connection: pg.ClientConfig): Promise<boolean> {
  const client = new pg.Client(connection);
  await client.connect();
  try {
    const age = await demoOnlyAgeMs(client);
    return age !== null && age > DEMO_MAX_AGE_MS;
  } finally {
    await client.end();
  }
}
