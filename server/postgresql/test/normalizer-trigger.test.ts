// The trigger converts a flush's raw rows to jsonb in one pass over its transition table; when some row cannot be held
// by jsonb (written without the forwarder's repair of its escapes), the rows are converted one by one and the flush
// is still normalized.
//
// The normalizer's statements keep their generic plans whatever the flush size. PL/pgSQL plans a statement with the
// flush's arrays as values for its first five executions in a session (custom plans) and then keeps a generic plan
// only if its estimated cost is not above theirs; for a session whose flushes hold a few events it was, so every
// small flush planned its statements again, which cost more CPU than running them (docs/write-path.md, Normalization). The trigger
// runs with plan_cache_mode = force_generic_plan; here a session sends small flushes and auto_explain shows each nested
// statement's plan: a generic plan reads the flush's arrays from parameters (unnest($7), …), a custom plan holds them
// as constants.
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import type pg from 'pg';
import type { TestDatabase } from './support/test-database.js';
import { explainingClient } from './support/auto-explain.js';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';

const it = postgresTest({ prefix: 'wi_trigger' });

const P = 'io.serverlessworkflow.';

function flush(n: number): Array<Record<string, unknown>> {
  const t = 1_778_577_243 + n;
  return [
    { eventType: `${P}task.started.v1`, instanceId: `pc-${n}`, taskName: 'a', taskPosition: 'do/0/a', timestamp: t, startTime: t, status: 'RUNNING' },
    { eventType: `${P}task.completed.v1`, instanceId: `pc-${n}`, taskName: 'a', taskPosition: 'do/0/a', timestamp: t + 0.5, endTime: t + 0.5, status: 'COMPLETED' },
  ];
}

describePostgres('the trigger: the flush converted to jsonb in one pass, generic plans for small flushes (real PostgreSQL)', () => {
  let db: TestDatabase;
  let client: pg.Client;
  let plans: string[];
  it.beforeAll(async ({ database }) => {
    db = database;
    ({ client, plans } = await explainingClient(db.url, `SET auto_explain.log_level = notice; SET auto_explain.log_verbose = on; SET client_min_messages = notice; SET search_path = workflow_raw`));
  });
  afterAll(async () => {
    await client?.end().catch(() => undefined);
  });

  it('plans the statements of the eighth flush of two events generically, and still normalizes it', async () => {
    for (let i = 0; i < 7; i++) await client.query(fluentBitInsertStatement('workflow_raw.task_events_raw', 'workflow.task', flush(i)));
    plans.length = 0;
    await client.query(fluentBitInsertStatement('workflow_raw.task_events_raw', 'workflow.task', flush(7)));
    const store = plans.filter((p) => p.includes('INSERT INTO task_events'));
    const executions = plans.filter((p) => p.includes('INSERT INTO task_executions'));
    expect(store).toHaveLength(1);
    expect(executions).toHaveLength(1);
    // The flush's events appear in a custom plan as constants; a generic plan reads them from parameters.
    for (const p of [...store, ...executions]) {
      expect(p).not.toContain('pc-7');
      expect(p).toMatch(/\$\d/);
    }
    const rows = await client.query<{ id: string; status: string }>(
      `SELECT id, status FROM workflow_index.task_executions WHERE instance_id = 'pc-7'`);
    expect(rows.rows).toEqual([{ id: 'pc-7:do/0/a', status: 'COMPLETED' }]);
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
