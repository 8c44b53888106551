// The trigger converts a flush's raw rows to jsonb in one pass over its transition table; when some row cannot be held
// by jsonb (written without the forwarder's repair of its escapes), the rows are converted one by one and the flush
// is still normalized.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/test-database.js';

const available = await postgresReachable();
const P = 'io.serverlessworkflow.';

describe.skipIf(!available)('the trigger: the flush converted to jsonb in one pass (real PostgreSQL)', () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase({ prefix: 'wi_trigger' });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end().catch(() => undefined);
    await db?.drop();
  });

  it('converts a flush holding a row jsonb cannot hold row by row: that row repaired, the others as they are', async () => {
    // Written without the forwarder's json_array_elements (which repairs the escape first): the trigger's one-pass
    // conversion of the flush fails, and the rows are converted one by one (normalize_raw_rows).
    const e = (id: string, input: string): string =>
      `{"eventType":"${P}task.started.v1","instanceId":"${id}","taskName":"a","taskPosition":"do/0/a","timestamp":1778577300,"startTime":1778577300,"status":"RUNNING","input":${input}}`;
    await client.query(`INSERT INTO workflow_raw.task_events_raw (tag, time, data) VALUES ('t', now(), $1), ('t', now(), $2)`,
      [e('nul-1', '{"k":"a\\u0000b"}'), e('nul-2', '{"k":"ab"}')]);
    const rows = await client.query<{ id: string; input: unknown }>(
      `SELECT id, input FROM workflow_index.task_executions WHERE instance_id IN ('nul-1', 'nul-2') ORDER BY id`);
    expect(rows.rows).toEqual([{ id: 'nul-1:do/0/a', input: { k: 'a\ufffdb' } }, { id: 'nul-2:do/0/a', input: { k: 'ab' } }]);
    expect((await client.query(`SELECT 1 FROM workflow_index.ingest_errors`)).rowCount).toBe(0);
  });
});
