// Raw tables partitioned by UTC day (migration 0019, normalizer/104-raw-partitions.sql): partitions exist before rows
// arrive, rows land in their day (or the DEFAULT partition), the triggers give exactly what they give on the tables
// without partitions, retention drops whole days and keeps what must be kept, an existing install converts with its
// rows in place, and neither the forwarder nor the pruner can do more with partitions than they should.
import { afterAll, expect } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { fixtureEvents } from '@workflow-index/testkit';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import { ADMIN_URL, createTestDatabase, dropLoginRoles, ensureLoginRole, type TestDatabase } from './support/test-database.js';
import { snapshot, type Event } from './support/load-events.js';
import { fluentBitInsertStatement, rawTableFor, TASK_EVENTS_TABLE } from '../src/fluent-bit-statement.js';
import { loadMigrations, migrate } from '../src/migrator.js';
import { createRawPartitions, pruneRawEvents } from '../src/postgresql-prune.js';

const DAY = 86_400;
const events = fixtureEvents();
const RAW_TABLES = ['workflow_events_raw', 'task_events_raw'] as const;
const todayStart = (): number => Math.floor(Date.now() / 1000 / DAY) * DAY;
const dayName = (epochSeconds: number): string => new Date(epochSeconds * 1000).toISOString().slice(0, 10).replaceAll('-', '');

/** One Fluent Bit flush per raw table of `batch`, each record at `recordTime(i)` (epoch seconds). */
function flushes(batch: readonly Event[], recordTime: (e: Event, i: number) => number): string[] {
  const statements: string[] = [];
  for (const table of RAW_TABLES) {
    const rows = batch.filter((e) => (rawTableFor(String(e['eventType'])) === TASK_EVENTS_TABLE) === (table === TASK_EVENTS_TABLE));
    if (rows.length > 0) statements.push(fluentBitInsertStatement(`workflow_raw.${table}`, table === TASK_EVENTS_TABLE ? 'workflow.task' : 'workflow.instance', rows, (e, i) => recordTime(e, i)));
  }
  return statements;
}

const withSuffix = (e: Event, suffix: string): Event => ({ ...e, instanceId: `${String(e['instanceId'])}${suffix}` });

/** Every raw row with the relation it is stored in. */
async function rawRows(pool: pg.Pool): Promise<Array<{ raw_table: string; part: string; id: string; time: string | null; data: string }>> {
  const res = await pool.query(
    `SELECT 'workflow_events_raw' AS raw_table, tableoid::regclass::text AS part, id, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS time, data::text AS data FROM workflow_raw.workflow_events_raw
     UNION ALL
     SELECT 'task_events_raw', tableoid::regclass::text, id, to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), data::text FROM workflow_raw.task_events_raw
     ORDER BY 1, 3`);
  return res.rows;
}

/** What the normalizer keeps besides the served rows: ingest errors and the event store. */
async function kept(pool: pg.Pool): Promise<unknown> {
  const errors = await pool.query(`SELECT raw_table, raw_id, instance_id, event_type, reason FROM workflow_index.ingest_errors ORDER BY raw_table, raw_id`);
  const stored = await pool.query(`SELECT (SELECT count(*) FROM workflow_index.events)::int AS events, (SELECT count(*) FROM workflow_index.task_events)::int AS task_events`);
  return { errors: errors.rows, stored: stored.rows[0] };
}

async function partitions(pool: pg.Pool, table: string): Promise<string[]> {
  const res = await pool.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY 1`, [`workflow_raw.${table}`]);
  return res.rows.map((r) => r.name);
}

/** A database migrated to the release before 0019 (raw tables without partitions), with this release's definitions. */
async function unpartitionedDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrated: false });
  const client = await db.pool.connect();
  try {
    await migrate(client, { migrations: loadMigrations().filter((m) => m.version < 19) });
  } finally {
    client.release();
  }
  return db;
}

describePostgres('raw tables partitioned by day (real PostgreSQL)', () => {
  let db: TestDatabase;
  const others: TestDatabase[] = [];
  const suffix = randomBytes(4).toString('hex');
  const forwarderRole = `wi_fwd_part_${suffix}`;
  const prunerRole = `wi_prune_part_${suffix}`;
  const clients: pg.Client[] = [];
  const connect = async (url: string): Promise<pg.Client> => {
    const client = new pg.Client({ connectionString: url, statement_timeout: 60_000 });
    await client.connect();
    clients.push(client);
    return client;
  };

  it.beforeAll(async ({ database }) => {
    db = database;
    await ensureLoginRole(forwarderRole, 'workflow_index_forwarder');
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`DO $$ BEGIN CREATE ROLE ${prunerRole} LOGIN PASSWORD 'test-password'; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
      await admin.query(`GRANT workflow_index_pruner TO ${prunerRole}`);
    } finally {
      await admin.end();
    }
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    for (const o of others) await o.drop().catch(() => undefined);
    await dropLoginRoles(forwarderRole, prunerRole);
  });

  async function reset(pool: pg.Pool): Promise<void> {
    await pool.query(`TRUNCATE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw, workflow_index.events, workflow_index.pruned_instances,
                      workflow_index.task_executions, workflow_index.task_events, workflow_index.workflow_instances, workflow_index.ingest_errors
                      RESTART IDENTITY`);
  }

  it('a fresh install has both raw tables partitioned by range of time: a DEFAULT partition and today through seven days ahead, created once', async () => {
    const today = todayStart();
    for (const table of RAW_TABLES) {
      const kind = await db.pool.query(`SELECT relkind FROM pg_class WHERE oid = $1::regclass`, [`workflow_raw.${table}`]);
      expect(kind.rows[0].relkind).toBe('p');
      const names = await partitions(db.pool, table);
      // Migrated just now; a test run across midnight UTC may have the next day already.
      const expected = [...Array(8).keys()].map((d) => `${table}_p${dayName(today + d * DAY)}`);
      expect(names).toEqual(expect.arrayContaining([`${table}_default`, ...expected]));
      expect(names.length).toBeLessThanOrEqual(10);
    }
    const client = await db.pool.connect();
    try {
      expect(await createRawPartitions(client)).toEqual([]);
    } finally {
      client.release();
    }
    const ahead = await db.pool.query('SELECT * FROM workflow_index.create_raw_partitions(10) ORDER BY 1, 2');
    const newDays = ahead.rows.map((r: { partition_name: string }) => r.partition_name.slice(-8));
    expect(newDays).toEqual(expect.arrayContaining([dayName(today + 9 * DAY), dayName(today + 10 * DAY)]));
  });

  it("rows land in their record time's UTC day; no record time, a clock years off and days without a partition land in the DEFAULT partition", async () => {
    await reset(db.pool);
    const today = todayStart();
    const forwarder = await connect(db.urlAs(forwarderRole, 'test-password'));
    const times = [today + 5, today + DAY - 0.000001, today + DAY, today + 3 * DAY + 7, today - 40 * DAY, today + 4000 * DAY, 1];
    const wf = events.filter((e) => rawTableFor(String(e['eventType'])) !== TASK_EVENTS_TABLE).slice(0, times.length);
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', wf, (_e, i) => times[i]!));
    // A record whose time key is not a number: the database gives it no record time (040-raw-json.sql).
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [withSuffix(wf[0]!, '-untimed')], () => Number.NaN));
    const rows = await rawRows(db.pool);
    expect(rows).toHaveLength(times.length + 1);
    const where = rows.map((r) => [r.time?.slice(0, 10) ?? null, r.part.replace('workflow_raw.', '')]);
    expect(where).toEqual([
      [new Date(today * 1000).toISOString().slice(0, 10), `workflow_events_raw_p${dayName(today)}`],
      [new Date(today * 1000).toISOString().slice(0, 10), `workflow_events_raw_p${dayName(today)}`],
      [new Date((today + DAY) * 1000).toISOString().slice(0, 10), `workflow_events_raw_p${dayName(today + DAY)}`],
      [new Date((today + 3 * DAY) * 1000).toISOString().slice(0, 10), `workflow_events_raw_p${dayName(today + 3 * DAY)}`],
      [new Date((today - 40 * DAY) * 1000).toISOString().slice(0, 10), 'workflow_events_raw_default'],
      [new Date((today + 4000 * DAY) * 1000).toISOString().slice(0, 10), 'workflow_events_raw_default'],
      ['1970-01-01', 'workflow_events_raw_default'],
      [null, 'workflow_events_raw_default'],
    ]);
    // Ingest errors still name the partitioned table (TG_TABLE_NAME of its statement trigger), and the raw ids of
    // every partition are one sequence.
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    const served = await snapshot(db.pool);
    expect(served.instances.length).toBeGreaterThan(0);
  });

  it('a day partition created after rows of its day arrived takes them over from the DEFAULT partition; nothing else changes', async () => {
    await reset(db.pool);
    const day = todayStart() + 20 * DAY;
    const batch = events.slice(0, 30).map((e) => withSuffix(e, '-late'));
    for (const s of flushes(batch, (_e, i) => day + i * 60)) await db.pool.query(s);
    await db.pool.query(`INSERT INTO workflow_raw.task_events_raw (tag, time, data) VALUES ('t', to_timestamp($1), '{"eventType": "nonsense"}')`, [day + 3600]);
    const before = { raw: (await rawRows(db.pool)).map(({ part: _part, ...r }) => r), served: await snapshot(db.pool), kept: await kept(db.pool) };
    expect((await rawRows(db.pool)).every((r) => r.part.endsWith('_default'))).toBe(true);

    const created = await db.pool.query<{ raw_table: string; partition_name: string; moved_rows: string }>('SELECT * FROM workflow_index.create_raw_partitions(21)');
    const moved = created.rows.filter((r) => r.partition_name.endsWith(dayName(day)));
    expect(moved.map((r) => [r.raw_table, Number(r.moved_rows)]).sort()).toEqual(
      RAW_TABLES.map((t) => [t, before.raw.filter((r) => r.raw_table === t).length]).sort());
    const after = await rawRows(db.pool);
    expect(after.every((r) => r.part === `workflow_raw.${r.raw_table}_p${dayName(day)}`)).toBe(true);
    expect({ raw: after.map(({ part: _part, ...r }) => r), served: await snapshot(db.pool), kept: await kept(db.pool) }).toEqual(before);
  });

  it('the triggers give the same rows, ingest errors, event store and raw rows as on tables without partitions, for any delivery across days (fast-check)', async () => {
    const plain = await unpartitionedDatabase();
    others.push(plain);
    const kind = await plain.pool.query(`SELECT relkind FROM pg_class WHERE oid = 'workflow_raw.task_events_raw'::regclass`);
    expect(kind.rows[0].relkind).toBe('r');
    await reset(db.pool);
    const today = todayStart();
    const days = new Set((await Promise.all(RAW_TABLES.map((t) => partitions(db.pool, t)))).flat());
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([...events.keys()], { minLength: events.length, maxLength: events.length }),
        fc.array(fc.integer({ min: 1, max: 25 }), { minLength: 1, maxLength: 4 }),
        // record times: the days around today (partitions and DEFAULT), a second before and after midnight
        fc.array(fc.integer({ min: -3 * DAY, max: 10 * DAY }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (order, sizes, offsets, withBad) => {
          const tag = `-f${run++}`;
          const sequence = order.map((i) => withSuffix(events[i]!, tag));
          if (withBad) sequence.splice(sequence.length >> 1, 0, { eventType: 'io.serverlessworkflow.task.started.v1', instanceId: `bad${tag}` } as Event);
          const statements: string[] = [];
          for (let at = 0, k = 0; at < sequence.length; k++) {
            const size = sizes[k % sizes.length]!;
            statements.push(...flushes(sequence.slice(at, at + size), (_e, i) => today + offsets[(at + i) % offsets.length]! + (i % 2 === 0 ? -1 : 1)));
            at += size;
          }
          for (const s of statements) {
            await db.pool.query(s);
            await plain.pool.query(s);
          }
          const [a, b] = [await rawRows(db.pool), await rawRows(plain.pool)];
          expect(a.map(({ part: _part, ...r }) => r)).toEqual(b.map(({ part: _part, ...r }) => r));
          for (const r of a) {
            const day = r.time === null ? null : `${r.raw_table}_p${r.time.slice(0, 10).replaceAll('-', '')}`;
            expect(r.part, r.time ?? 'null').toBe(`workflow_raw.${day !== null && days.has(day) ? day : `${r.raw_table}_default`}`);
          }
          expect(await snapshot(db.pool)).toEqual(await snapshot(plain.pool));
          expect(await kept(db.pool)).toEqual(await kept(plain.pool));
        },
      ),
      { numRuns: 12 },
    );
  });

  it('retention as the pruner login drops whole days older than the horizon with their ingest errors, deletes DEFAULT rows by the horizon itself, keeps the rest; no served row changes', async () => {
    await reset(db.pool);
    const today = todayStart();
    const batch = events.slice(0, 40);
    // Partitions today … today+7 exist; day offsets 0, 1, 2 in partitions, -30 in DEFAULT, 5 in a partition kept.
    const dayOf = (i: number): number => [0, 1, 2, -30, 5][i % 5]!;
    for (const s of flushes(batch, (_e, i) => today + dayOf(i) * DAY + 3600)) await db.pool.query(s);
    await db.pool.query(`INSERT INTO workflow_raw.task_events_raw (tag, time, data) VALUES ('t', to_timestamp($1), '{"eventType": "nonsense"}'), ('t', NULL, '{"eventType": "nonsense"}'),
                           ('t', to_timestamp($2), '{"eventType": "nonsense"}')`, [today + DAY + 60, today + 5 * DAY + 60]);
    const servedBefore = await snapshot(db.pool);
    const storedBefore = (await kept(db.pool) as { stored: unknown }).stored;
    const rows = await rawRows(db.pool);
    // Horizon: today+3 days 12:00: days 0, 1, 2 go whole, DEFAULT rows older than the horizon go row by row.
    const horizon = new Date((today + 3 * DAY + 12 * 3600) * 1000);
    const goes = (r: { time: string | null }): boolean => r.time !== null && Date.parse(`${r.time.replace(' ', 'T')}Z`) < horizon.getTime();
    const pruner = await connect(db.urlAs(prunerRole, 'test-password'));
    const result = await pruneRawEvents(pruner, horizon, 7);
    expect(result.partitions).toBe(6);
    expect(result.deleted.workflow_events_raw + result.deleted.task_events_raw).toBe(rows.filter(goes).length);
    expect(result.ingestErrors).toBe(1);
    const left = await rawRows(db.pool);
    expect(left.map((r) => r.id)).toEqual(rows.filter((r) => !goes(r)).map((r) => r.id));
    for (const table of RAW_TABLES) {
      const names = await partitions(db.pool, table);
      for (const d of [0, 1, 2]) expect(names).not.toContain(`${table}_p${dayName(today + d * DAY)}`);
      expect(names).toContain(`${table}_p${dayName(today + 3 * DAY)}`);
      expect(names).toContain(`${table}_default`);
    }
    expect(await snapshot(db.pool)).toEqual(servedBefore);
    expect((await kept(db.pool) as { stored: unknown }).stored).toEqual(storedBefore);
    const errors = await db.pool.query(`SELECT r.time IS NULL AS untimed FROM workflow_index.ingest_errors e JOIN workflow_raw.task_events_raw r ON r.id = e.raw_id ORDER BY r.time NULLS FIRST`);
    expect(errors.rows).toEqual([{ untimed: true }, { untimed: false }]);

    // Idempotent; an interrupted prune (detached, not dropped) is finished by the next one.
    expect((await pruneRawEvents(pruner, horizon, 7)).partitions).toBe(0);
    const nextDay = new Date(horizon.getTime() + DAY * 1000);
    const detached = await pruner.query<{ d: string }>('SELECT d FROM workflow_index.detach_raw_partitions($1, $2) AS d', ['task_events_raw', nextDay]);
    expect(detached.rows.map((r) => r.d)).toEqual([`task_events_raw_p${dayName(today + 3 * DAY)}`]);
    const finished = await pruneRawEvents(pruner, nextDay, 7);
    expect(finished.partitions).toBe(2);
    expect(await snapshot(db.pool)).toEqual(servedBefore);
  });

  it('the forwarder: Fluent Bit start-up CREATE TABLE IF NOT EXISTS is a no-op; it can neither write to a partition nor create, attach, detach or drop one', async () => {
    const forwarder = await connect(db.urlAs(forwarderRole, 'test-password'));
    const part = `task_events_raw_p${dayName(todayStart() + 4 * DAY)}`;
    const before = await partitions(db.pool, 'task_events_raw');
    for (const table of RAW_TABLES) await forwarder.query(`CREATE TABLE IF NOT EXISTS ${table} (tag varchar, time timestamp, data jsonb)`);
    expect(await partitions(db.pool, 'task_events_raw')).toEqual(before);
    const denied = [
      `INSERT INTO workflow_raw.${part} (tag, time, data, id) VALUES ('t', now() + interval '4 days', '{}', 1)`,
      `INSERT INTO workflow_raw.task_events_raw_default (tag, time, data, id) VALUES ('t', NULL, '{}', 1)`,
      `SELECT 1 FROM workflow_raw.task_events_raw_default`,
      `CREATE TABLE workflow_raw.task_events_raw_x PARTITION OF workflow_raw.task_events_raw FOR VALUES FROM ('2100-01-01') TO ('2100-01-02')`,
      `ALTER TABLE workflow_raw.task_events_raw DETACH PARTITION workflow_raw.${part}`,
      `DROP TABLE workflow_raw.${part}`,
      `TRUNCATE workflow_raw.${part}`,
      `SELECT * FROM workflow_index.create_raw_partitions(30)`,
      `SELECT * FROM workflow_index.detach_raw_partitions('task_events_raw', now() + interval '30 days')`,
      `SELECT * FROM workflow_index.drop_raw_partition('task_events_raw', '${part}')`,
    ];
    for (const sql of denied) await expect(forwarder.query(sql), sql).rejects.toThrow(/permission denied|must be owner/);
    // A table of its own under a partition's future name is not attached (nor dropped by retention): that day's rows
    // go to the DEFAULT partition.
    const squat = `task_events_raw_p${dayName(todayStart() + 40 * DAY)}`;
    await forwarder.query(`CREATE TABLE ${squat} (tag text, time timestamptz, data json, id bigint)`);
    await expect(forwarder.query(`ALTER TABLE workflow_raw.task_events_raw ATTACH PARTITION ${squat} FOR VALUES FROM ('2100-01-01') TO ('2100-01-02')`)).rejects.toThrow(/must be owner/);
    const created = await db.pool.query<{ partition_name: string }>('SELECT * FROM workflow_index.create_raw_partitions(40)');
    expect(created.rows.map((r) => r.partition_name)).not.toContain(squat);
    expect(created.rows.map((r) => r.partition_name)).toContain(squat.replace('task_', 'workflow_'));
    const pruner = await connect(db.urlAs(prunerRole, 'test-password'));
    await expect(pruner.query(`SELECT * FROM workflow_index.drop_raw_partition('task_events_raw', $1)`, [squat])).rejects.toThrow(/not a detached partition/);
    await expect(pruner.query(`SELECT * FROM workflow_index.drop_raw_partition('task_events_raw', $1)`, [part])).rejects.toThrow(/not a detached partition/);
    expect((await pruner.query<{ d: string }>(`SELECT d FROM workflow_index.detach_raw_partitions('task_events_raw', now() - interval '30 days') AS d`)).rows).toEqual([]);
    for (const sql of [`DROP TABLE workflow_raw.${part}`, `ALTER TABLE workflow_raw.task_events_raw DETACH PARTITION workflow_raw.${part}`, `SELECT 1 FROM workflow_raw.${part}`]) {
      await expect(pruner.query(sql), sql).rejects.toThrow(/permission denied|must be owner/);
    }
    await forwarder.query(`DROP TABLE ${squat}`);
    // The forwarder's flushes still work, whatever day.
    await forwarder.query(fluentBitInsertStatement('task_events_raw', 'workflow.task', [withSuffix(events.find((e) => rawTableFor(String(e['eventType'])) === TASK_EVENTS_TABLE)!, '-fwd')], () => todayStart() + 4 * DAY + 1));
  });

  it('an existing install converts in init-job migrate with its rows in place: same ids, the sequence continued, served rows unchanged; the old table goes whole once older than the horizon', async () => {
    const old = await unpartitionedDatabase();
    others.push(old);
    const today = todayStart();
    const batch = events.map((e) => withSuffix(e, '-up'));
    const dayOf = (i: number): number => [-10, -2, 0, 2][i % 4]!;
    for (const s of flushes(batch, (_e, i) => today + dayOf(i) * DAY + 7)) await old.pool.query(s);
    await old.pool.query(`INSERT INTO workflow_raw.task_events_raw (tag, time, data) VALUES ('t', NULL, '{"eventType": "nonsense"}'), ('t', now() - interval '9 days', '{"eventType": "nonsense"}')`);
    const before = { raw: (await rawRows(old.pool)).map(({ part: _part, ...r }) => r), served: await snapshot(old.pool), kept: await kept(old.pool) };
    const lastIds = await old.pool.query<{ w: string; t: string }>('SELECT (SELECT max(id) FROM workflow_raw.workflow_events_raw) AS w, (SELECT max(id) FROM workflow_raw.task_events_raw) AS t');

    const client = await old.pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
    const after = await rawRows(old.pool);
    expect({ raw: after.map(({ part: _part, ...r }) => r), served: await snapshot(old.pool), kept: await kept(old.pool) }).toEqual(before);
    const cutover = today + DAY;
    for (const r of after) {
      const t = r.time === null ? null : Date.parse(`${r.time.replace(' ', 'T')}Z`) / 1000;
      // From the cutover on, the day partitions migrate created took their rows over from the DEFAULT partition.
      const where = t === null ? 'default' : t >= cutover ? `p${dayName(t)}` : 'unpartitioned';
      expect(r.part, r.time ?? 'null').toBe(`workflow_raw.${r.raw_table}_${where}`);
    }
    for (const table of RAW_TABLES) {
      const names = await partitions(old.pool, table);
      expect(names).toContain(`${table}_unpartitioned`);
      expect(names).toContain(`${table}_p${dayName(cutover)}`);
      expect(names).not.toContain(`${table}_p${dayName(today)}`);
    }
    // New rows continue the ids; today's rows still go to the old table, tomorrow's to their day.
    for (const s of flushes(events.slice(0, 6).map((e) => withSuffix(e, '-new')), (_e, i) => today + (i % 2) * DAY + 30)) await old.pool.query(s);
    const fresh = (await rawRows(old.pool)).filter((r) => r.data.includes('-new'));
    expect(fresh.length).toBe(6);
    for (const r of fresh) expect(BigInt(r.id)).toBeGreaterThan(BigInt(r.raw_table === 'task_events_raw' ? lastIds.rows[0]!.t : lastIds.rows[0]!.w));
    // The forwarder keeps its rights on the tables and has none on the old one.
    const forwarder = await connect(old.urlAs(forwarderRole, 'test-password'));
    await forwarder.query(fluentBitInsertStatement('workflow_events_raw', 'workflow.instance', [withSuffix(events[0]!, '-fwd')], () => today + 60));
    await expect(forwarder.query(`INSERT INTO workflow_raw.workflow_events_raw_unpartitioned (tag, time, data, id) VALUES ('t', now(), '{}', 1)`)).rejects.toThrow(/permission denied/);

    // Retention: before the cutover is older than the horizon, the old table is pruned row by row; after, dropped.
    const servedNow = await snapshot(old.pool);
    const rowWise = await pruneRawEvents(await connect(old.url), new Date((today - DAY) * 1000), 5);
    expect(rowWise.partitions).toBe(0);
    expect(rowWise.deleted.workflow_events_raw + rowWise.deleted.task_events_raw).toBe(before.raw.filter((r) => r.time !== null && r.time < new Date((today - DAY) * 1000).toISOString().replace('T', ' ')).length);
    const whole = await pruneRawEvents(await connect(old.url), new Date((cutover + 3600) * 1000), 5);
    expect(whole.partitions).toBe(2);
    for (const table of RAW_TABLES) expect(await partitions(old.pool, table)).not.toContain(`${table}_unpartitioned`);
    expect((await rawRows(old.pool)).every((r) => r.time === null || r.time >= new Date(cutover * 1000).toISOString().replace('T', ' ').slice(0, 19))).toBe(true);
    expect(await snapshot(old.pool)).toEqual(servedNow);
  });
});
