// The raw tables are an inbox with retention: the normalizer keeps every accepted event once in its own store
// (workflow_index.events, normalizer/048-event-store.sql), and rebuild_normalized() replays that store, so deleting
// raw events never changes a served row, not at the next rebuild either, and a late event for a run whose raw
// events are gone is merged, never resets it. Finished runs deleted by instance retention stay deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { fluentBitInsertStatement, rawTableFor, TASK_EVENTS_TABLE } from '../src/fluent-bit-statement.js';
import { loadMigrations, loadNormalizer, migrate, type NormalizerResult } from '../src/migrator.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/test-database.js';
import { loadEvents, snapshot, type Event } from './support/load-events.js';
import { eventsByInstance, fixtureEvents } from '@workflow-index/testkit';
import { realFixture } from '@workflow-index/testkit';
import { reprintNumbers } from './support/forwarder-reprint.js';
import { rawFlushes } from './support/raw-statement.js';

const available = await postgresReachable();
const events = fixtureEvents();
const BASE_SECONDS = 1_800_000_000; // record times of the deliveries below: BASE + 0 … 1000 s
const PREVIOUS_RELEASE_NORMALIZER = fileURLToPath(new URL('./support/previous-release-normalizer', import.meta.url));

type Snapshot = Awaited<ReturnType<typeof snapshot>>;

/** A workflow event that finishes a run: workflow.completed/faulted/cancelled, or a status change to such a status. */
function isFinish(e: Event): boolean {
  const type = String(e['eventType']);
  return /\.workflow\.(completed|faulted|cancelled)\.v1$/.test(type)
    || (type.endsWith('.workflow.status-changed.v1') && ['COMPLETED', 'FAULTED', 'CANCELLED'].includes(String(e['status'])));
}

/** One Fluent Bit flush per table and batch, each event with its own record time and the forwarder's metadata. */
async function deliver(db: pg.Pool | pg.PoolClient, batch: readonly Event[], recordTime: (e: Event, i: number) => number, pod = 'pod-a'): Promise<void> {
  const byTable = new Map<string, { e: Event; t: number }[]>();
  batch.forEach((e, i) => {
    const table = rawTableFor(String(e['eventType']));
    byTable.set(table, [...(byTable.get(table) ?? []), { e: { ...e, kubernetes: { pod_name: pod }, stream: 'stdout' }, t: recordTime(e, i) }]);
  });
  for (const [table, rows] of byTable) {
    const times = rows.map((r) => r.t);
    await db.query(fluentBitInsertStatement(`workflow_raw.${table}`, table === TASK_EVENTS_TABLE ? 'workflow.task' : 'workflow.instance', rows.map((r) => r.e), (_r, i) => times[i]!));
  }
}

/** What `init-job prune` does for raw events: one prune_raw_batch per batch, walking each table's ids once. */
async function pruneRaw(db: pg.Pool, horizonSeconds: number, batchSize: number): Promise<number> {
  let deleted = 0;
  for (const table of ['workflow_events_raw', 'task_events_raw']) {
    let after = 0;
    for (;;) {
      const res = await db.query<{ deleted: string; last_id: string | null }>(
        'SELECT * FROM workflow_index.prune_raw_batch($1, to_timestamp($2), $3, $4)', [table, horizonSeconds, after, batchSize]);
      if (res.rows[0]?.last_id == null) break;
      deleted += Number(res.rows[0].deleted);
      after = Number(res.rows[0].last_id);
    }
  }
  return deleted;
}

// The event store: workflow events in workflow_index.events, task events in workflow_index.task_events (migration 0013).
const STORED_EVENTS = `(SELECT instance_id, raw_id, document FROM workflow_index.events
                        UNION ALL SELECT instance_id, raw_id, document FROM workflow_index.task_events) stored`;

async function rebuild(db: pg.Pool): Promise<number> {
  return Number((await db.query<{ n: string }>('SELECT workflow_index.rebuild_normalized() AS n')).rows[0]!.n);
}

async function count(db: pg.Pool, sql: string): Promise<number> {
  return Number(Object.values((await db.query(sql)).rows[0] as object)[0]);
}

async function reset(db: pg.Pool): Promise<void> {
  await db.query(`TRUNCATE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw, workflow_index.events, workflow_index.pruned_instances,
                  workflow_index.task_executions, workflow_index.task_events, workflow_index.workflow_instances, workflow_index.ingest_errors
                  RESTART IDENTITY`);
}

describe.skipIf(!available)('event store: raw events are an inbox with retention (real PostgreSQL)', () => {
  let db: TestDatabase;
  let canonical: Snapshot;
  beforeAll(async () => {
    db = await createTestDatabase();
    await loadEvents(db.pool, events);
    canonical = await snapshot(db.pool);
    expect(canonical.instances).toHaveLength(8);
    expect(canonical.tasks).toHaveLength(22);
  });
  afterAll(async () => db?.drop());

  it('stores each accepted event once, whatever the re-deliveries and forwarder metadata, and nothing a forwarder added', async () => {
    await reset(db.pool);
    await deliver(db.pool, events, (_e, i) => BASE_SECONDS + i);
    await deliver(db.pool, events, (_e, i) => BASE_SECONDS + 500 + i, 'pod-b'); // a backfill: other record times and pod
    await db.pool.query(`INSERT INTO workflow_raw.task_events_raw (tag, time, data) VALUES ('t', now(), '{"eventType": "nonsense"}')`);
    // Each event is stored once: workflow events in the event store, task events in task_events (with their documents).
    const stored = await db.pool.query<{ kind: string; n: string }>('SELECT kind, count(*) AS n FROM workflow_index.events GROUP BY kind ORDER BY kind');
    const taskEvents = events.filter((e) => String(e['eventType']).includes('.task.')).length;
    expect(stored.rows).toEqual([{ kind: 'workflow', n: String(events.length - taskEvents) }]);
    expect(await count(db.pool, 'SELECT count(*) FROM workflow_index.task_events')).toBe(taskEvents);
    expect(await count(db.pool, `SELECT count(*) FROM ${STORED_EVENTS}
                                 WHERE document ?| ARRAY['kubernetes', 'stream', 'wi_record_time']`)).toBe(0);
    // the first delivery is the one remembered
    expect(await count(db.pool, `SELECT max(raw_id) FROM ${STORED_EVENTS}`)).toBeLessThanOrEqual(events.length);
    expect(await snapshot(db.pool)).toEqual(canonical);
  });

  it('deleting every raw event changes no served row, and a rebuild afterwards gives the same rows', async () => {
    await reset(db.pool);
    await deliver(db.pool, events, (_e, i) => BASE_SECONDS + i);
    expect(await pruneRaw(db.pool, BASE_SECONDS + 10_000, 7)).toBe(events.length);
    expect(await count(db.pool, 'SELECT (SELECT count(*) FROM workflow_raw.workflow_events_raw) + (SELECT count(*) FROM workflow_raw.task_events_raw)')).toBe(0);
    expect(await snapshot(db.pool)).toEqual(canonical);
    expect(await rebuild(db.pool)).toBe(events.length); // the stored events, replayed
    expect(await snapshot(db.pool)).toEqual(canonical);
  });

  it('a late event for a run whose raw events are gone completes it; it does not reset it, not after a rebuild either', async () => {
    await reset(db.pool);
    const id = String(events.findLast((e) => String(e['eventType']).endsWith('workflow.completed.v1'))!['instanceId']);
    const late = events.filter((e) => e['instanceId'] === id && isFinish(e));
    await deliver(db.pool, events.filter((e) => !late.includes(e)), (_e, i) => BASE_SECONDS + i);
    await pruneRaw(db.pool, BASE_SECONDS + 10_000, 100);
    const before = (await snapshot(db.pool, [id])).instances[0]!;
    expect(before).toMatchObject({ status: 'RUNNING', end_time: null, name: canonical.instances.find((i) => i.id === id)!.name });
    await deliver(db.pool, late, () => BASE_SECONDS + 20_000);
    expect(await snapshot(db.pool)).toEqual(canonical);
    await rebuild(db.pool);
    expect(await snapshot(db.pool)).toEqual(canonical);
  });

  it('any delivery, retention horizon and batch size: pruning changes no row, late events merge, a rebuild gives the same rows (fast-check)', async () => {
    const n = events.length;
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        fc.array(fc.nat(n - 1), { maxLength: 20 }), // re-deliveries (another record time)
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: n, maxLength: n }), // record time of each event (s after BASE)
        fc.nat(n), // the last this-many events of the order arrive after the prune
        fc.integer({ min: 0, max: 1001 }), // horizon (s after BASE)
        fc.integer({ min: 1, max: 40 }), // prune batch size
        fc.integer({ min: 1, max: 30 }), // flush size
        async (order, replays, recordTimes, lateCount, horizon, batchSize, flushSize) => {
          await reset(db.pool);
          const stream = [...order.map((i) => ({ i, t: recordTimes[i]! })), ...replays.map((i) => ({ i, t: (recordTimes[i]! + 333) % 1001 }))];
          const early = stream.slice(0, Math.max(0, stream.length - lateCount));
          const late = stream.slice(early.length);
          for (let k = 0; k < early.length; k += flushSize) {
            const flush = early.slice(k, k + flushSize);
            await deliver(db.pool, flush.map((d) => events[d.i]!), (_e, j) => BASE_SECONDS + flush[j]!.t);
          }
          const before = await snapshot(db.pool);
          const expectedGone = early.filter((d) => BASE_SECONDS + d.t < BASE_SECONDS + horizon).length;
          expect(await pruneRaw(db.pool, BASE_SECONDS + horizon, batchSize)).toBe(expectedGone);
          expect(await pruneRaw(db.pool, BASE_SECONDS + horizon, batchSize)).toBe(0); // idempotent
          expect(await count(db.pool, 'SELECT (SELECT count(*) FROM workflow_raw.workflow_events_raw) + (SELECT count(*) FROM workflow_raw.task_events_raw)'))
            .toBe(early.length - expectedGone);
          expect(await snapshot(db.pool)).toEqual(before);
          for (let k = 0; k < late.length; k += flushSize) {
            const flush = late.slice(k, k + flushSize);
            await deliver(db.pool, flush.map((d) => events[d.i]!), (_e, j) => BASE_SECONDS + flush[j]!.t);
          }
          expect(await snapshot(db.pool)).toEqual(canonical);
          await rebuild(db.pool);
          expect(await snapshot(db.pool)).toEqual(canonical);
        },
      ),
      { numRuns: 20 },
    );
  }, 240_000);

  it('both spellings of every real event (the producer\'s and Fluent Bit\'s re-print), any order and split, pruned at any horizon: late events merge and a rebuild gives the same rows (fast-check)', async () => {
    // The store keeps one spelling per task event (the greater payload, as task_events does); the replay of that
    // one spelling must give what both gave.
    const lines = realFixture('epoch-seconds').eventLines;
    const spellings = [...lines, ...lines.map(reprintNumbers)];
    expect(spellings.filter((l, i) => i >= lines.length && l !== lines[i - lines.length]).length).toBeGreaterThan(0);
    const send = async (items: readonly { k: number; t: number }[], flushSize: number): Promise<void> => {
      for (const sql of rawFlushes(items.map((d) => ({ line: spellings[d.k]!, recordTime: String(BASE_SECONDS + d.t) })), [flushSize], true)) {
        // as the forwarder login runs it: workflow_raw first on the search_path (its json_array_elements repairs \u0000)
        await db.pool.query(`SET search_path = workflow_raw, pg_catalog; ${sql} RESET search_path;`);
      }
    };
    await reset(db.pool);
    await send(spellings.map((_l, k) => ({ k, t: 0 })), 50);
    const reference = await snapshot(db.pool);
    expect(reference.tasks.length).toBeGreaterThan(0);
    const n = spellings.length;
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: n, maxLength: n }),
        fc.nat(n),
        fc.integer({ min: 0, max: 1001 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 60 }),
        async (order, recordTimes, lateCount, horizon, batchSize, flushSize) => {
          await reset(db.pool);
          const stream = order.map((k) => ({ k, t: recordTimes[k]! }));
          const early = stream.slice(0, n - lateCount);
          await send(early, flushSize);
          const before = await snapshot(db.pool);
          expect(await pruneRaw(db.pool, BASE_SECONDS + horizon, batchSize)).toBe(early.filter((d) => d.t < horizon).length);
          expect(await snapshot(db.pool)).toEqual(before);
          await send(stream.slice(early.length), flushSize);
          expect(await snapshot(db.pool)).toEqual(reference);
          await rebuild(db.pool);
          expect(await snapshot(db.pool)).toEqual(reference);
        },
      ),
      { numRuns: 10 },
    );
  }, 240_000);

  it('a finished run deleted by instance retention stays deleted: late events for it are ignored, also by a rebuild; RUNNING runs are never deleted', async () => {
    await reset(db.pool);
    const running = events
      .filter((e) => String(e['instanceId']) === String(events[0]!['instanceId']) && !isFinish(e))
      .map((e) => ({ ...e, instanceId: `${String(e['instanceId'])}-running` }));
    await deliver(db.pool, [...events, ...running], (_e, i) => BASE_SECONDS + i);
    const res = await db.pool.query<{ instances: string }>(`SELECT * FROM workflow_index.prune_instances_batch('infinity', 3)`);
    const first = res.rows.reduce((s, r) => s + Number(r.instances), 0);
    expect(first).toBe(3);
    while ((await db.pool.query(`SELECT * FROM workflow_index.prune_instances_batch('infinity', 3)`)).rowCount! > 0);
    const left = await snapshot(db.pool);
    expect(left.instances.map((i) => [i.id, i.status])).toEqual([[String(running[0]!['instanceId']), 'RUNNING']]);
    expect(left.tasks.length).toBeGreaterThan(0);
    expect(await count(db.pool, 'SELECT count(*) FROM workflow_index.pruned_instances')).toBe(8);
    expect(await count(db.pool, `SELECT count(*) FROM ${STORED_EVENTS} WHERE instance_id NOT LIKE '%-running'`)).toBe(0);

    await deliver(db.pool, events, (_e, i) => BASE_SECONDS + 5000 + i); // Fluent Bit re-reads old logs
    expect(await snapshot(db.pool)).toEqual(left);
    await rebuild(db.pool);
    expect(await snapshot(db.pool)).toEqual(left);
  });
});

describe.skipIf(!available)('upgrade from the previous release with data (real PostgreSQL)', () => {
  let db: TestDatabase;
  let clean: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase({ migrated: false });
    clean = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
    await clean?.drop();
  });

  it('fills the event store from the raw rows in the same migrate, after which raw retention changes no row', async () => {
    const client = await db.pool.connect();
    try {
      // The previous release: migrations 0001–0003 and its normalizer (rebuilt from raw, no event store).
      await migrate(client, { migrations: loadMigrations().filter((m) => m.version <= 3), normalizer: loadNormalizer(PREVIOUS_RELEASE_NORMALIZER) });
      await deliver(client, events, (_e, i) => BASE_SECONDS + i);
      await deliver(client, events.slice(0, 30), (_e, i) => BASE_SECONDS + 900 + i, 'pod-b'); // a partial backfill
      expect(await count(db.pool, `SELECT to_regclass('workflow_index.events') IS NULL`)).toBe(1);
      const beforeUpgrade = await snapshot(db.pool, undefined, { olderSchema: true });
      await loadEvents(clean.pool, events);
      expect(beforeUpgrade).toEqual(await snapshot(clean.pool, undefined, { olderSchema: true }));
      // After the upgrade: the same rows, and the columns of later migrations as this release fills them.
      const upgraded = await snapshot(clean.pool);

      let normalizer: NormalizerResult | undefined;
      await migrate(client, { onNormalizer: (r) => (normalizer = r) });
      expect(normalizer).toMatchObject({ status: 'applied', rebuiltEvents: events.length + 30 });
      expect(await snapshot(db.pool)).toEqual(upgraded);
      expect(await count(db.pool, `SELECT count(*) FROM ${STORED_EVENTS}`)).toBe(events.length);

      expect(await pruneRaw(db.pool, BASE_SECONDS + 10_000, 50)).toBe(events.length + 30);
      expect(await snapshot(db.pool)).toEqual(upgraded);
      // The next release changes the definitions: its rebuild replays the store alone and gives the same rows.
      const next = loadNormalizer();
      await migrate(client, { normalizer: { files: [...next.files, { file: '999-next.sql', sql: 'SELECT 1;' }], checksum: `${next.checksum}-next` } });
      expect(await snapshot(db.pool)).toEqual(upgraded);
      const byInstance = eventsByInstance(events);
      expect((await snapshot(db.pool)).instances.map((i) => i.id)).toEqual([...byInstance.keys()].sort());
    } finally {
      client.release();
    }
  });
});

describe.skipIf(!available)('migration 0013: task events stored once (real PostgreSQL)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it('moves the task events of the event store into task_events; with the raw rows gone, a rebuild still gives the same rows', async () => {
    await deliver(db.pool, events, (_e, i) => BASE_SECONDS + i);
    const served = await snapshot(db.pool);
    const documents = (await db.pool.query('SELECT instance_id, raw_table, raw_id, document FROM workflow_index.task_events ORDER BY 1, 2, 3')).rows;
    expect(documents.length).toBeGreaterThan(0);
    // The store as the release before 0013 left it: task events in workflow_index.events under the identity hash that
    // release's apply_events gave them, task_events without their documents.
    await db.pool.query(`
      INSERT INTO workflow_index.events (instance_id, identity_hash, kind, raw_table, raw_id, document)
      SELECT t.instance_id,
             hashtextextended(jsonb_build_array('task', t.task_position, workflow_index.epoch_us(t.event_time), t.event_kind, t.content_hash)::TEXT, 0),
             'task', t.raw_table, t.raw_id, t.document
      FROM workflow_index.task_events t;
      ALTER TABLE workflow_index.task_events DROP COLUMN raw_table, DROP COLUMN document;
      DELETE FROM workflow_index.schema_migrations WHERE version = 13;`);
    expect(await pruneRaw(db.pool, BASE_SECONDS + 10_000, 50)).toBe(events.length);

    const client = await db.pool.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
    expect(await count(db.pool, `SELECT count(*) FROM workflow_index.events WHERE kind = 'task'`)).toBe(0);
    expect((await db.pool.query('SELECT instance_id, raw_table, raw_id, document FROM workflow_index.task_events ORDER BY 1, 2, 3')).rows).toEqual(documents);
    expect(await snapshot(db.pool)).toEqual(served);
    expect(await rebuild(db.pool)).toBe(events.length);
    expect(await snapshot(db.pool)).toEqual(served);
  });
});
