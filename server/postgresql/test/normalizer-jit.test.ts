// The normalizer's statements never JIT-compile. Their estimated cost grows with the flush, and past about 8,000
// events per flush the main statement crossed jit_above_cost: a second or more of LLVM compilation per flush (35 % of
// the CPU of a 10,000-event flush). The trigger and rebuild_normalized() run with jit = off whatever the server's
// settings; here the session asks for JIT on every statement (jit_above_cost = 0) and auto_explain shows each nested
// statement's plan, which would carry a "JIT:" section had it been compiled.
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import type pg from 'pg';
import type { TestDatabase } from './support/test-database.js';
import { explainingClient } from './support/auto-explain.js';
import { fluentBitInsertStatement } from '../src/fluent-bit-statement.js';

const it = postgresTest({ prefix: 'wi_jit' });

const P = 'io.serverlessworkflow.';

function events(n: number): Array<Record<string, unknown>> {
  const list: Array<Record<string, unknown>> = [];
  for (let i = 0; i < n; i++) {
    const t = 1_778_577_243 + i;
    list.push({ eventType: `${P}task.started.v1`, instanceId: `jit-${i}`, taskName: 'a', taskPosition: 'do/0/a', timestamp: t, startTime: t, status: 'RUNNING' });
    list.push({ eventType: `${P}task.completed.v1`, instanceId: `jit-${i}`, taskName: 'a', taskPosition: 'do/0/a', timestamp: t + 0.5, endTime: t + 0.5, status: 'COMPLETED' });
  }
  return list;
}

describePostgres('the normalizer never JIT-compiles (real PostgreSQL)', () => {
  let db: TestDatabase;
  let client: pg.Client;
  let plans: string[];
  it.beforeAll(async ({ database }) => {
    db = database;
    ({ client, plans } = await explainingClient(db.url, `SET jit = on; SET jit_above_cost = 0; SET jit_optimize_above_cost = -1; SET jit_inline_above_cost = -1;
      SET client_min_messages = log; SET search_path = workflow_raw`));
  });
  afterAll(async () => {
    await client?.end().catch(() => undefined);
  });

  it('runs every statement of a flush and of a rebuild without JIT, though the session asks for it', async () => {
    const jit = (await client.query<{ ok: boolean }>('SELECT pg_jit_available() AS ok')).rows[0]!.ok;
    plans.length = 0;
    await client.query('SELECT count(*) FROM workflow_index.task_events');
    // Without JIT support in the server there is nothing to prove; with it, the session's settings do compile.
    if (jit) expect(plans.some((p) => p.includes('JIT:'))).toBe(true);

    plans.length = 0;
    await client.query(fluentBitInsertStatement('workflow_raw.task_events_raw', 'workflow.task', events(20)));
    // The raw insert and the forwarder's json_array_elements (040-raw-json.sql) run as the session's statement does.
    const normalizer = plans.filter((p) => !p.includes('INSERT INTO workflow_raw.task_events_raw') && !p.includes('json_array_elements(parsed)'));
    expect(normalizer.some((p) => p.includes('INSERT INTO task_executions'))).toBe(true);
    expect(normalizer.filter((p) => p.includes('JIT:')).map((p) => p.slice(0, 300))).toEqual([]);
    expect((await client.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_index.task_executions')).rows[0]!.n).toBe(20);

    plans.length = 0;
    await client.query('SELECT workflow_index.rebuild_normalized()');
    const rebuild = plans.filter((p) => !p.includes('SELECT workflow_index.rebuild_normalized()'));
    expect(rebuild.some((p) => p.includes('INSERT INTO task_executions'))).toBe(true);
    expect(rebuild.filter((p) => p.includes('JIT:')).map((p) => p.slice(0, 300))).toEqual([]);
  });
});
