// Normalizer helpers rewritten so that PostgreSQL inlines them (or runs them without a regular expression) give
// exactly the values of what they replace, for any input:
//  * the event type's suffix (normalizer/012-event-type.sql) is read with split_part instead of the regular
//    expression the normalizer used before (which cost about a tenth of its time per event): for any text, both
//    give the same {kind, action} or NULL;
//  * epoch_us (048-event-store.sql), which enters event identities, through `AT TIME ZONE 'UTC'` (immutable, so it
//    is inlined) gives extract(epoch …)'s value in any session time zone: stored identities do not change.
import { expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import fc from 'fast-check';
import type { TestDatabase } from './support/test-database.js';

const it = postgresTest({ prefix: 'wi_evtype' });

const REGEX = String.raw`(?:^|\.)(workflow|task)\.([a-z-]+)\.v[0-9]+$`;

// Dot-separated parts near the rule's edges: kinds, actions, versions, their look-alikes, empty and non-ASCII parts.
const part = fc.oneof(
  fc.constantFrom('workflow', 'task', 'started', 'status-changed', 'completed', '-', 'a-b', 'v1', 'v', 'v12', 'v0', 'v1x', 'vv1',
    '', 'io', 'serverlessworkflow', 'Task', 'TASK', 'task ', ' task', 'é', 'v١', 'started\n', 'v1\n', 'x_y', '1'),
  fc.string({ maxLength: 6 }),
  fc.stringMatching(/^[a-z-]{1,8}$/),
  fc.stringMatching(/^v[0-9]{1,3}$/),
);
const eventType = fc.oneof(
  fc.array(part, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.')),
  fc.tuple(fc.array(part, { maxLength: 3 }), fc.constantFrom('workflow', 'task'), fc.stringMatching(/^[a-z-]{0,8}$/), fc.stringMatching(/^v[0-9]{0,3}$/), fc.string({ maxLength: 2 }))
    .map(([prefix, kind, action, version, tail]) => [...prefix, kind, action, version].join('.') + tail),
  fc.string({ maxLength: 40 }),
);

describePostgres('normalizer helpers that inline (real PostgreSQL, fast-check)', () => {
  let db: TestDatabase;
  it.beforeAll(async ({ database }) => {
    db = database;
  });

  it('gives what the regular expression gave, for any text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(eventType, { minLength: 1, maxLength: 200 }), async (types) => {
        const texts = types.map((t) => t.replace(/\0/g, ''));
        const { rows } = await db.pool.query<{ t: string; old: string[] | null; now: string[] | null }>(
          `SELECT t, regexp_match(t, $2) AS old, workflow_index.event_type_suffix(t) AS now FROM unnest($1::TEXT[]) AS u(t)`,
          [texts, REGEX],
        );
        for (const row of rows) expect({ t: row.t, suffix: row.now }).toEqual({ t: row.t, suffix: row.old });
      }),
      { numRuns: 60 },
    );
  });

  it('matches the producer\'s event types and nothing that only looks like them', async () => {
    const { rows } = await db.pool.query<{ s: string[] | null }>(
      `SELECT workflow_index.event_type_suffix(t) AS s FROM unnest($1::TEXT[]) WITH ORDINALITY AS u(t, n) ORDER BY n`,
      [['io.serverlessworkflow.task.started.v1', 'io.serverlessworkflow.workflow.status-changed.v1', 'task.completed.v12',
        'io.serverlessworkflow.task.started.v', 'io.serverlessworkflow.task.Started.v1', 'io.serverlessworkflow.tasks.started.v1',
        'io.serverlessworkflow.task.started.v1\n', 'io.serverlessworkflow.task..v1', 'started.v1']],
    );
    expect(rows.map((r) => r.s)).toEqual([['task', 'started'], ['workflow', 'status-changed'], ['task', 'completed'], null, null, null, null, null, null]);
  });

  it('epoch_us gives extract(epoch …) in microseconds for any time, in any session time zone', async () => {
    const micros = fc.oneof(
      fc.bigInt({ min: -210_866_803_200_000_000n, max: 9_223_000_000_000_000_000n }),  // PostgreSQL's timestamptz range (to what a bigint holds)
      fc.bigInt({ min: 1_700_000_000_000_000n, max: 1_900_000_000_000_000n }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(micros, { minLength: 1, maxLength: 100 }), fc.constantFrom('UTC', 'America/Sao_Paulo', 'Asia/Kolkata', 'Pacific/Chatham'),
        async (values, zone) => {
          const client = await db.pool.connect();
          try {
            await client.query(`SET TimeZone = '${zone}'`);
            const { rows } = await client.query<{ now: string | null; old: string | null }>(
              `SELECT workflow_index.epoch_us(t) AS now, trunc(extract(epoch FROM t) * 1000000)::TEXT AS old
               FROM (SELECT to_timestamp(0) + u.us * INTERVAL '1 microsecond' AS t FROM unnest($1::BIGINT[]) AS u(us)
                     UNION ALL VALUES ('infinity'::TIMESTAMPTZ), ('-infinity'), (NULL)) x`,
              [values.map(String)],
            );
            for (const row of rows) expect(row.now === null ? null : String(row.now)).toBe(row.old);
          } finally {
            await client.query('RESET TimeZone');
            client.release();
          }
        }),
      { numRuns: 30 },
    );
  });
});
