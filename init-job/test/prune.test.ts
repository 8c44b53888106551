// `init-job prune` against the real PostgreSQL server, run as the real process: raw events go by their record time,
// finished runs by their end (never RUNNING ones), nothing served changes because raw events go, a dry run deletes
// nothing and prints the per-workflow counts, a second run deletes nothing, a forwarder writing meanwhile loses
// nothing, and a login of workflow_index_pruner can do exactly this and nothing else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { fluentBitInsertStatement, rawTableFor, TASK_EVENTS_TABLE } from '@workflow-index/postgresql';
import { createTestDatabase, postgresReachable, ADMIN_URL, type TestDatabase } from '@workflow-index/postgresql/testing';
import { snapshot, type Event } from '@workflow-index/postgresql/testing';
import { fixtureEvents } from '@workflow-index/testkit';
import { runInit } from '@workflow-index/testkit';

const available = await postgresReachable();
const events = fixtureEvents();
const DAY = 86_400;
const nowSeconds = (): number => Date.now() / 1000;
const TIME_KEYS = ['timestamp', 'startTime', 'endTime', 'lastUpdateTime'] as const;

const withSuffix = (e: Event, suffix: string): Event => ({ ...e, instanceId: `${String(e['instanceId'])}${suffix}` });
/** The same events, their own times moved by `seconds` (a run that happened at another time). */
const shifted = (e: Event, seconds: number): Event => {
  const copy: Event = { ...e };
  for (const k of TIME_KEYS) if (typeof copy[k] === 'number') copy[k] = (copy[k] as number) + seconds;
  return copy;
};
const isFinish = (e: Event): boolean => /\.workflow\.(completed|faulted|cancelled)\.v1$/.test(String(e['eventType']))
  || (String(e['eventType']).endsWith('.workflow.status-changed.v1') && ['COMPLETED', 'FAULTED', 'CANCELLED'].includes(String(e['status'])));

/** One Fluent Bit flush per table, every record with the given record time (epoch seconds). */
async function deliver(db: pg.Pool | pg.Client, batch: readonly Event[], recordTime: number): Promise<void> {
  const byTable = new Map<string, Event[]>();
  for (const e of batch) {
    const t = rawTableFor(String(e['eventType']));
    byTable.set(t, [...(byTable.get(t) ?? []), e]);
  }
  for (const [table, rows] of byTable) {
    await db.query(fluentBitInsertStatement(`workflow_raw.${table}`, table === TASK_EVENTS_TABLE ? 'workflow.task' : 'workflow.instance', rows, () => recordTime));
  }
}

async function rawCount(db: pg.Pool, where = 'true'): Promise<number> {
  const res = await db.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM workflow_raw.workflow_events_raw WHERE ${where}) + (SELECT count(*) FROM workflow_raw.task_events_raw WHERE ${where}) AS n`);
  return Number(res.rows[0]!.n);
}

/** Independent of the code under test: per workflow label, the fixture's raw events by table and its runs. */
function expectedPerWorkflow(batch: readonly Event[]): Map<string, { wf: number; task: number; runs: Set<string> }> {
  const workflowOf = new Map<string, string>();
  for (const e of batch) {
    if (String(e['eventType']).endsWith('.workflow.started.v1')) {
      workflowOf.set(String(e['instanceId']), `${String(e['workflowNamespace'])}/${String(e['workflowName'])}@${String(e['workflowVersion'])}`);
    }
  }
  const out = new Map<string, { wf: number; task: number; runs: Set<string> }>();
  for (const e of batch) {
    const label = workflowOf.get(String(e['instanceId'])) ?? '(no workflow)';
    const entry = out.get(label) ?? { wf: 0, task: 0, runs: new Set<string>() };
    if (rawTableFor(String(e['eventType'])) === TASK_EVENTS_TABLE) entry.task++;
    else entry.wf++;
    entry.runs.add(String(e['instanceId']));
    out.set(label, entry);
  }
  return out;
}

describe.skipIf(!available)('init-job prune (real PostgreSQL)', () => {
  let db: TestDatabase;
  const env = (): Record<string, string> => ({ DATABASE_URL: db.url });
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  async function reset(): Promise<void> {
    await db.pool.query(`TRUNCATE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw, workflow_index.events, workflow_index.pruned_instances,
                         workflow_index.task_executions, workflow_index.task_events, workflow_index.workflow_instances, workflow_index.ingest_errors`);
  }

  it('--dry-run prints what would go, per workflow, and deletes nothing', async () => {
    await reset();
    const old = events.map((e) => withSuffix(e, '-old'));
    const recent = events.map((e) => withSuffix(e, '-new'));
    await deliver(db.pool, old, nowSeconds() - 10 * DAY);
    await deliver(db.pool, recent, nowSeconds() - 60);
    const before = await snapshot(db.pool);

    const run = await runInit(['prune', '--dry-run', '--raw-retention-days', '7'], env());
    expect(run.code, run.stderr).toBe(0);
    const expected = expectedPerWorkflow(old);
    const wf = [...expected.values()].reduce((n, c) => n + c.wf, 0);
    const task = [...expected.values()].reduce((n, c) => n + c.task, 0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toBe(`would delete ${wf + task} raw events (${wf} workflow, ${task} task)`);
    expect(lines.slice(1)).toEqual([...expected].sort(([a], [b]) => (a < b ? -1 : 1)).map(([label, c]) => `  ${label}: ${c.wf + c.task} raw events (${c.wf} workflow, ${c.task} task)`));
    expect(run.stderr).toContain('dry run: nothing is deleted');
    expect(run.stderr).toContain('finished runs are kept (instance retention off)');

    // with instance retention: the finished runs (all eight of each delivery ended in May 2026) and their tasks
    const withRuns = await runInit(['prune', '--dry-run'], { ...env(), RAW_EVENTS_RETENTION_DAYS: '7', INSTANCE_RETENTION_DAYS: '30' });
    expect(withRuns.code, withRuns.stderr).toBe(0);
    expect(withRuns.stdout).toContain(`would delete 16 finished runs with ${before.tasks.length} task executions and ${events.length * 2} stored events`);
    expect(withRuns.stdout).toContain('  com.acme.orders/order-intake@1.0.0: 16 raw events (8 workflow, 8 task), 4 runs, 8 task executions');

    expect(await rawCount(db.pool)).toBe(events.length * 2);
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it('deletes exactly the raw events recorded before the horizon, changes no served row, and is idempotent', async () => {
    await reset();
    await deliver(db.pool, events.map((e) => withSuffix(e, '-a')), nowSeconds() - 8 * DAY);
    await deliver(db.pool, events.map((e) => withSuffix(e, '-b')), nowSeconds() - 6 * DAY);
    await db.pool.query(`INSERT INTO workflow_raw.task_events_raw (tag, time, data) VALUES ('t', now() - interval '9 days', '{"eventType": "nonsense"}')`);
    expect(Number((await db.pool.query('SELECT count(*) AS n FROM workflow_index.ingest_errors')).rows[0].n)).toBe(1);
    const before = await snapshot(db.pool);

    const first = await runInit(['prune', '--batch-size', '9'], { ...env(), RAW_EVENTS_RETENTION_DAYS: '7' });
    expect(first.code, first.stderr).toBe(0);
    const wf = events.filter((e) => rawTableFor(String(e['eventType'])) !== TASK_EVENTS_TABLE).length;
    const task = events.length - wf;
    expect(first.stdout).toBe(`deleted ${events.length + 1} raw events (${wf} workflow, ${task + 1} task) and 1 ingest error recorded for them, in ${Math.ceil(wf / 9) + Math.ceil((task + 1) / 9)} batches\n`);
    expect(await rawCount(db.pool)).toBe(events.length);
    expect(await rawCount(db.pool, `data->>'instanceId' LIKE '%-b'`)).toBe(events.length);
    expect(Number((await db.pool.query('SELECT count(*) AS n FROM workflow_index.ingest_errors')).rows[0].n)).toBe(0);
    expect(await snapshot(db.pool)).toEqual(before);

    const again = await runInit(['prune', '--batch-size', '9'], { ...env(), RAW_EVENTS_RETENTION_DAYS: '7' });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('deleted 0 raw events (0 workflow, 0 task) and 0 ingest errors recorded for them, in 0 batches\n');
    expect(await snapshot(db.pool)).toEqual(before);
  });

  it('never makes the ingestion counts go down, not even when it empties the raw tables and ingest_errors', async () => {
    await reset();
    const stats = async (): Promise<Record<string, string>> =>
      (await db.pool.query<Record<string, string>>('SELECT workflow_raw_events, task_raw_events, ingest_errors FROM workflow_index.ingest_stats()')).rows[0]!;
    await deliver(db.pool, events, nowSeconds() - 8 * DAY);
    await db.pool.query(`INSERT INTO workflow_raw.task_events_raw (tag, time, data) VALUES ('t', now() - interval '9 days', '{"eventType": "nonsense"}')`);
    const before = await stats();
    const run = await runInit(['prune'], env());
    expect(run.code, run.stderr).toBe(0);
    expect(await rawCount(db.pool)).toBe(0);
    expect(Number((await db.pool.query('SELECT count(*) AS n FROM workflow_index.ingest_errors')).rows[0].n)).toBe(0);
    expect(await stats()).toEqual(before);
    await deliver(db.pool, events.slice(0, 1), nowSeconds());
    expect(Number((await stats())['workflow_raw_events']) + Number((await stats())['task_raw_events']))
      .toBe(Number(before['workflow_raw_events']) + Number(before['task_raw_events']) + 1);
  });

  it('with instance retention deletes finished runs that ended before it, with their tasks; never a RUNNING or SUSPENDED run, nor a recent one', async () => {
    await reset();
    const first = String(events[0]!['instanceId']);
    const unfinished = events.filter((e) => String(e['instanceId']) === first && !isFinish(e));
    await deliver(db.pool, [
      ...events.map((e) => withSuffix(e, '-old')), // ended in May 2026
      ...unfinished.map((e) => withSuffix(e, '-running')), // started in May 2026, never finished
      ...events.map((e) => withSuffix(shifted(e, nowSeconds() - 5 * DAY - Number(events[0]!['timestamp'])), '-recent')), // ended 5 days ago
    ], nowSeconds());
    const before = await snapshot(db.pool);
    const keep = before.instances.filter((i) => !i.id.endsWith('-old'));
    expect(before.instances.filter((i) => i.id.endsWith('-running')).map((i) => i.status)).toEqual(['RUNNING']);
    expect(before.instances.some((i) => i.status === 'SUSPENDED' || i.status === 'RUNNING')).toBe(true);

    const run = await runInit(['prune', '--instance-retention-days', '30', '--batch-size', '3'], env());
    expect(run.code, run.stderr).toBe(0);
    const oldTasks = before.tasks.filter((t) => t.instance_id.endsWith('-old')).length;
    expect(run.stdout).toContain(`deleted 8 finished runs with ${oldTasks} task executions and ${events.length} stored events, in 3 batches`);
    expect(run.stdout).toContain('  com.acme.orders/order-intake@1.0.0: 2 runs, 4 task executions');
    const after = await snapshot(db.pool);
    expect(after.instances).toEqual(keep);
    expect(after.tasks).toEqual(before.tasks.filter((t) => !t.instance_id.endsWith('-old')));

    // A late event for a pruned run is ignored; a second prune deletes nothing.
    await deliver(db.pool, events.map((e) => withSuffix(e, '-old')), nowSeconds());
    expect(await snapshot(db.pool)).toEqual(after);
    const again = await runInit(['prune', '--instance-retention-days', '30'], env());
    expect(again.stdout).toContain('deleted 0 finished runs with 0 task executions and 0 stored events, in 0 batches');
  });

  it('while a forwarder writes: every old raw event goes, every new one stays, every run is served as a clean delivery gives it', async () => {
    await reset();
    const OLD_COPIES = 40;
    for (let c = 0; c < OLD_COPIES; c++) await deliver(db.pool, events.map((e) => withSuffix(e, `-old${c}`)), nowSeconds() - 30 * DAY);
    const reference = await createTestDatabase();
    try {
      const LIVE_FLUSHES = 20;
      const live = (k: number): Event[] => events.map((e) => withSuffix(e, `-live${k}`));
      const forwarder = new pg.Client({ connectionString: db.url });
      await forwarder.connect();
      let writing = true;
      const written = (async () => {
        let k = 0;
        // at least LIVE_FLUSHES flushes, and on until prune has finished
        while (k < LIVE_FLUSHES || writing) await deliver(forwarder, live(k++), nowSeconds());
        return k;
      })();
      const run = await runInit(['prune', '--batch-size', '25'], { ...env(), RAW_EVENTS_RETENTION_DAYS: '7' });
      writing = false;
      const flushes = await written;
      await forwarder.end();
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`^deleted ${events.length * OLD_COPIES} raw events `));
      expect(await rawCount(db.pool, `data->>'instanceId' LIKE '%-old%'`)).toBe(0);
      expect(await rawCount(db.pool)).toBe(events.length * flushes);

      for (let k = 0; k < flushes; k++) await deliver(reference.pool, live(k), nowSeconds());
      for (let c = 0; c < OLD_COPIES; c++) await deliver(reference.pool, events.map((e) => withSuffix(e, `-old${c}`)), nowSeconds());
      expect(await snapshot(db.pool)).toEqual(await snapshot(reference.pool));
    } finally {
      await reference.drop();
    }
  });

  it('a login of workflow_index_pruner can prune and nothing else', async () => {
    await reset();
    await deliver(db.pool, events, nowSeconds() - 10 * DAY);
    const user = `wi_prune_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${user} LOGIN PASSWORD 'prune-secret' IN ROLE workflow_index_pruner`);
      const asPruner = { DATABASE_URL: db.urlAs(user), DATABASE_PASSWORD: 'prune-secret' };
      const dry = await runInit(['prune', '--dry-run', '--instance-retention-days', '30'], asPruner);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain(`would delete ${events.length} raw events`);
      const run = await runInit(['prune', '--instance-retention-days', '30'], asPruner);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`deleted ${events.length} raw events`);
      expect(run.stdout).toContain('deleted 8 finished runs');
      expect(run.stdout + run.stderr).not.toContain('prune-secret');

      const client = new pg.Client({ connectionString: db.urlAs(user, 'prune-secret') });
      await client.connect();
      try {
        for (const sql of ['SELECT 1 FROM workflow_raw.task_events_raw', 'SELECT 1 FROM workflow_index.workflow_instances', 'DELETE FROM workflow_index.events',
          'SELECT workflow_index.rebuild_normalized()', `INSERT INTO workflow_index.pruned_instances (id) VALUES ('x')`]) {
          await expect(client.query(sql), sql).rejects.toMatchObject({ code: '42501' });
        }
      } finally {
        await client.end();
      }
    } finally {
      await admin.query(`DROP ROLE IF EXISTS ${user}`).catch(() => undefined);
      await admin.end();
    }
  });

  it('reports every configuration problem at once (exit 2), and an unmigrated database clearly (exit 1)', async () => {
    const bad = await runInit(['prune', '--batch-size', '0', '--instance-retention-days', '-3'], { ...env(), RAW_EVENTS_RETENTION_DAYS: 'week' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('RAW_EVENTS_RETENTION_DAYS must be a whole number of days ≥ 0 or "off", got "week"');
    expect(bad.stderr).toContain('--instance-retention-days must be a whole number of days ≥ 0, got -3');
    expect(bad.stderr).toContain('--batch-size must be a whole number from 1 to 100000, got 0');
    const off = await runInit(['prune'], { ...env(), RAW_EVENTS_RETENTION_DAYS: 'off' });
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('RAW_EVENTS_RETENTION_DAYS cannot be "off"');

    const empty = await createTestDatabase({ migrated: false });
    try {
      const run = await runInit(['prune'], { DATABASE_URL: empty.url });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('run `init-job migrate` of this release first');
    } finally {
      await empty.drop();
    }
  });
});
