// Task execution ids never collide (normalizer/072-execution-ids.sql). The contract's format, taken literally, gives
// two executions one id when a position holds `@` (position `p` run again at T, and position `p@T`); PostgreSQL then
// refused the second execution's flush (its event went to ingest_errors) and OpenSearch overwrote one document with
// the other. The position is escaped, so every execution is served under its own id, and ids whose position has no
// `%` or `@` are the contract's exactly. (An instance id holding `:` would collide too — instance `a:b` at `c`,
// instance `a` at `b:c` —; its task events are refused, as before.)
import fc from 'fast-check';
import { expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import type { TestDatabase } from './support/test-database.js';
import { expectedIndex } from '@workflow-index/testkit';
import { loadEvents, snapshot, type Event } from './support/load-events.js';

const it = postgresTest({ prefix: 'wi_exec_ids' });

const P = 'io.serverlessworkflow.';
const T0_MS = 1_778_577_243_000;

function started(instanceId: string): Event {
  return { eventType: `${P}workflow.started.v1`, instanceId, timestamp: T0_MS, startTime: T0_MS, status: 'RUNNING', workflowName: 'ids', workflowNamespace: 'ns' };
}

/** One execution at `position`: started at T0 + `ms`, completed 1 ms later (times in epoch milliseconds). */
function execution(instanceId: string, position: string, ms: number): Event[] {
  return [
    { eventType: `${P}task.started.v1`, instanceId, taskPosition: position, timestamp: T0_MS + ms, startTime: T0_MS + ms, input: { ms } },
    { eventType: `${P}task.completed.v1`, instanceId, taskPosition: position, timestamp: T0_MS + ms + 1, endTime: T0_MS + ms + 1, output: { ms } },
  ];
}

/** The µs start of an execution begun `ms` after T0, as a repeat id prints it. */
const micros = (ms: number): string => ((BigInt(T0_MS) + BigInt(ms)) * 1000n).toString();

async function ingestErrors(db: TestDatabase): Promise<string[]> {
  const { rows } = await db.pool.query<{ reason: string }>('SELECT reason FROM workflow_index.ingest_errors ORDER BY id');
  return rows.map((r) => r.reason);
}

describePostgres('task execution ids (real PostgreSQL)', () => {
  let db: TestDatabase;
  it.beforeAll(async ({ database }) => {
    db = database;
  });

  it('give each of the colliding shapes its own id, and keep plain ids as the contract prints them', async () => {
    const events: Event[] = [
      started('a'), ...execution('a', 'b:c', 20),
      started('I'), ...execution('I', 'p', 30), ...execution('I', 'p', 40), ...execution('I', `p@${micros(40)}`, 50),
      ...execution('I', '50%', 60), ...execution('I', 'do/0/plain', 70), ...execution('I', 'do/0/plain', 80),
      ...execution('a', 'b:c@x%40y', 90),
    ];
    await loadEvents(db.pool, events, { batchSizes: [events.length] });
    const ids = (await snapshot(db.pool, ['a', 'I'])).tasks.map((t) => t.id);
    expect(ids.sort()).toEqual([
      'I:50%25',
      'I:do/0/plain',
      `I:do/0/plain@${micros(80)}`,
      'I:p',
      `I:p%40${micros(40)}`,
      `I:p@${micros(40)}`,
      'a:b:c',
      'a:b:c%40x%2540y',
    ].sort());
    expect(await ingestErrors(db)).toEqual([]);
  });

  // Names from characters that build ids, and for every generated position run more than once, the position named
  // like its repeat id (and like that id escaped once).
  const piece = fc.constantFrom('a', 'b', ':', '@', '%', '#', '3', '/', '%40', '%25');
  const instancePiece = fc.constantFrom('a', 'b', '@', '%', '#', '3', '/', '%40', '%25');
  const name = fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
  const positionArb = fc.record({ name, runs: fc.integer({ min: 1, max: 3 }) });
  const instanceArb = fc.record({ id: fc.array(instancePiece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('')), positions: fc.uniqueArray(positionArb, { minLength: 1, maxLength: 4, selector: (p) => p.name }) });

  it('never share an id, in any flush split, whatever the names (fast-check)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(instanceArb, { minLength: 1, maxLength: 3, selector: (i) => i.id }), fc.integer({ min: 1, max: 12 }), fc.boolean(),
        async (instances, flush, reversed) => {
          const prefix = `r${run++}-`;
          const plan = new Map<string, Map<string, number[]>>(); // instance → position → start offsets (ms)
          const add = (instance: string, position: string, ms: number): void => {
            const positions = plan.get(instance) ?? new Map<string, number[]>();
            plan.set(instance, positions);
            positions.set(position, [...(positions.get(position) ?? []), ms]);
          };
          let ms = 0;
          for (const instance of instances) {
            const id = prefix + instance.id;
            for (const position of instance.positions) {
              for (let r = 0; r < position.runs; r++) add(id, position.name, (ms += 10));
              // Literally the id of this position's second execution, as a position of its own.
              if (position.runs > 1) {
                const repeat = `${position.name}@${micros(plan.get(id)!.get(position.name)![1]!)}`;
                add(id, repeat, (ms += 10));
                add(id, repeat.replaceAll('%', '%25').replaceAll('@', '%40'), (ms += 10));
              }
            }
          }
          const events: Event[] = [];
          for (const [instance, positions] of plan) {
            events.push(started(instance));
            for (const [position, starts] of positions) for (const at of starts) events.push(...execution(instance, position, at));
          }
          const ordered = reversed ? [...events].reverse() : events;
          await loadEvents(db.pool, ordered, { batchSizes: [flush] });
          const served = await snapshot(db.pool, [...plan.keys()]);
          const executions = [...plan.values()].flatMap((positions) => [...positions.values()]).flat().length;
          expect(served.tasks).toHaveLength(executions);
          expect(new Set(served.tasks.map((t) => t.id)).size).toBe(executions);
          expect(served.tasks).toEqual(expectedIndex(events).tasks.filter((t) => plan.has(t.instance_id)));
          expect(await ingestErrors(db)).toEqual([]);
        }),
      { numRuns: 60 },
    );
  });
});
