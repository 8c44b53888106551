// The write path's side of live updates (normalizer/095-live-notify.sql): exactly one NOTIFY per Fluent Bit flush,
// naming the flush's runs; split only when the ids pass the payload limit; none from rebuild_normalized() replays.
// A LISTEN client of the test counts them; a marker the test sends after the statement arrives after every
// notification the statement caused (notifications are delivered in commit order), so "none more" is observable.
import pg from 'pg';
import { expect } from 'vitest';
import { runStarted, taskStarted } from '@workflow-index/testkit';
import { CHANGES_CHANNEL } from '../src/postgresql-change-feed.js';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import { loadEvents } from './support/load-events.js';
import type { TestDatabase } from './support/test-database.js';

const MARKER = 'test-marker';

/** The payloads `statement` made the database send, up to the marker sent after it. */
async function notificationsOf(database: TestDatabase, statement: () => Promise<unknown>): Promise<string[]> {
  const listener = new pg.Client({ connectionString: database.url });
  await listener.connect();
  try {
    const payloads: string[] = [];
    let marked: () => void = () => undefined;
    const markerSeen = new Promise<void>((resolve) => (marked = resolve));
    listener.on('notification', (message) => {
      if (message.payload === MARKER) marked();
      else payloads.push(message.payload ?? '');
    });
    await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
    await statement();
    await database.pool.query(`SELECT pg_notify($1, $2)`, [CHANGES_CHANNEL, MARKER]);
    await markerSeen;
    return payloads;
  } finally {
    await listener.end();
  }
}

describePostgres('live update notifications', () => {
  it('sends one notification per flush, naming each run of the flush once', async ({ database }) => {
    const events = ['n-b', 'n-a', 'n-c'].flatMap((id, i) => [runStarted(id, i), { ...runStarted(id, i), status: 'RUNNING' }]);
    const payloads = await notificationsOf(database, () => loadEvents(database.pool, events));
    expect(payloads).toHaveLength(1);
    expect(JSON.parse(payloads[0] ?? '')).toEqual(['n-a', 'n-b', 'n-c']);
    const tasks = await notificationsOf(database, () => loadEvents(database.pool, [taskStarted('n-a', 'do/0/x', 5), taskStarted('n-a', 'do/1/y', 6)]));
    expect(tasks.map((p) => JSON.parse(p) as unknown)).toEqual([['n-a']]);
  });

  it('splits only a flush whose ids pass the payload limit, every part under 8,000 bytes', async ({ database }) => {
    const ids = Array.from({ length: 400 }, (_, i) => `split-${String(i).padStart(4, '0')}-${'x'.repeat(30)}`);
    const payloads = await notificationsOf(database, () => loadEvents(database.pool, ids.map((id) => runStarted(id, 0))));
    expect(payloads.length).toBeGreaterThan(1);
    expect(payloads.length).toBeLessThanOrEqual(Math.ceil((ids.length * 45) / 7900) + 1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    expect(payloads.flatMap((p) => JSON.parse(p) as string[]).sort()).toEqual([...ids].sort());
  });

  it('sends nothing for a rebuild of every normalized row', async ({ database }) => {
    await loadEvents(database.pool, [runStarted('rebuilt', 0), taskStarted('rebuilt', 'do/0/x', 1)]);
    const payloads = await notificationsOf(database, () => database.pool.query('SELECT workflow_index.rebuild_normalized()'));
    expect(payloads).toEqual([]);
  });
});
