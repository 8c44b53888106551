// Any arrival order, any replay, any split into Fluent Bit flushes and any accepted timestamp representation of
// an instance's events gives the same normalized rows (DESIGN.md, Normalization rules).
import { expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import fc from 'fast-check';
import type { TestDatabase } from './support/test-database.js';
import { loadEvents, snapshot, type Event } from './support/load-events.js';
import { fixtureEvents } from '@workflow-index/testkit';

const events = fixtureEvents();
const TIME_KEYS = ['timestamp', 'startTime', 'endTime', 'lastUpdateTime'] as const;

/** Exact epoch microseconds of a fixture time value (JSON number in epoch seconds with ≤ 6 fraction digits). */
function micros(value: unknown): bigint {
  const text = String(value);
  const [whole, fraction = ''] = text.split('.');
  if (/e/i.test(text) || fraction.length > 6) throw new Error(`unexpected time literal ${text}`);
  return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
}

function iso(us: bigint, offsetMinutes: number): string {
  const ms = Number(us / 1000n);
  const sub = (us % 1000n).toString().padStart(3, '0');
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().replace('Z', '');
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  const off = offsetMinutes === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${local}${sub}${off}`;
}

/** The representations CONTRACT.md accepts for one instant. */
const REPRESENTATIONS: ReadonlyArray<(us: bigint, original: unknown) => unknown> = [
  (_us, original) => original, // epoch seconds, JSON number (from 1.778577243512337E9)
  (us) => `${us / 1_000_000n}.${(us % 1_000_000n).toString().padStart(6, '0')}`, // epoch seconds as a numeric string
  (us) => (Number(us) / 1e6).toExponential().toUpperCase(), // scientific notation as a string, e.g. "1.778577243512337E+9"
  (us) => Number(`${us / 1000n}.${(us % 1000n).toString().padStart(3, '0')}`), // epoch millis with fraction
  (us) => Number(us), // epoch micros
  (us) => `${us}000`, // epoch nanos as a string (a JSON number this large would lose precision)
  (us) => iso(us, 0),
  (us) => iso(us, 120),
  (us) => iso(us, -210),
];

function withRepresentation(event: Event, choice: number): Event {
  const copy: Event = { ...event };
  for (const key of TIME_KEYS) {
    if (key in copy) copy[key] = REPRESENTATIONS[choice % REPRESENTATIONS.length]!(micros(event[key]), event[key]);
  }
  return copy;
}

function suffixed(event: Event, suffix: string): Event {
  return { ...event, instanceId: `${String(event['instanceId'])}${suffix}` };
}

function strip<T>(value: T, suffix: string): T {
  return JSON.parse(JSON.stringify(value).split(suffix).join('')) as T;
}

const instanceIds = [...new Set(events.map((e) => String(e['instanceId'])))];

describePostgres('normalization is a pure function of the event set (real PostgreSQL, fast-check)', () => {
  let db: TestDatabase;
  let canonical: Awaited<ReturnType<typeof snapshot>>;
  let run = 0;
  it.beforeAll(async ({ database }) => {
    db = database;
    await loadEvents(db.pool, events.map((e) => suffixed(e, '~canon')));
    canonical = strip(await snapshot(db.pool, instanceIds.map((id) => `${id}~canon`)), '~canon');
    expect(canonical.instances).toHaveLength(8);
    expect(canonical.tasks).toHaveLength(22);
    // Every task row carries its run's namespace, name and version (none of the eight runs is a placeholder in the
    // end), so the properties below check those columns too, whatever order the run's start arrives in.
    const runs = new Map(canonical.instances.map((i) => [i.id, i]));
    for (const task of canonical.tasks) {
      const run = runs.get(task.instance_id)!;
      expect(run.placeholder).toBe(false);
      expect([task.workflow_namespace, task.workflow_name, task.workflow_version]).toEqual([run.namespace, run.name, run.version]);
    }
    expect(canonical.tasks.every((t) => t.workflow_name !== null)).toBe(true);
  });

  it('any permutation, duplication and batching of all eight instances gives the canonical rows', async () => {
    const n = events.length;
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n)), { maxLength: 30 }), // (event to replay, where to insert it)
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
        async (order, duplicates, batchSizes) => {
          const suffix = `~p${run++}`;
          const sequence = order.map((i) => events[i]!);
          for (const [which, at] of duplicates) sequence.splice(at % (sequence.length + 1), 0, events[which]!);
          await loadEvents(db.pool, sequence.map((e) => suffixed(e, suffix)), { batchSizes });
          const got = strip(await snapshot(db.pool, instanceIds.map((id) => `${id}${suffix}`)), suffix);
          expect(got).toEqual(canonical);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('any accepted timestamp representation (seconds, scientific, millis, micros, nanos, ISO with offsets) gives the canonical rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(REPRESENTATIONS.length - 1), { minLength: events.length, maxLength: events.length }),
        async (choices) => {
          const suffix = `~t${run++}`;
          await loadEvents(db.pool, events.map((e, i) => suffixed(withRepresentation(e, choices[i]!), suffix)), { batchSizes: [17] });
          const got = strip(await snapshot(db.pool, instanceIds.map((id) => `${id}${suffix}`)), suffix);
          expect(got).toEqual(canonical);
        },
      ),
      { numRuns: 25 },
    );
    const errors = await db.pool.query('SELECT count(*)::int AS n FROM workflow_index.ingest_errors');
    expect(errors.rows[0].n).toBe(0);
  });

  it('replaying the whole stream leaves the rows unchanged and stores nothing twice in the task event store', async () => {
    const suffix = '~replay';
    const stream = events.map((e) => suffixed(e, suffix));
    await loadEvents(db.pool, stream, { batchSizes: [9] });
    const before = await snapshot(db.pool, instanceIds.map((id) => `${id}${suffix}`));
    await loadEvents(db.pool, stream, { batchSizes: [13] });
    await loadEvents(db.pool, [...stream].reverse(), { batchSizes: [80] });
    expect(await snapshot(db.pool, instanceIds.map((id) => `${id}${suffix}`))).toEqual(before);
    const stored = await db.pool.query(`SELECT count(*)::int AS n FROM workflow_index.task_events WHERE instance_id LIKE '%~replay'`);
    expect(stored.rows[0].n).toBe(44);
  });
});
