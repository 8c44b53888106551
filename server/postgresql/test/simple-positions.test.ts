// Positions with one to three task events, in every shape, and loops (starts and closing events in turn, ties at any
// step): the recomputation takes a shortcut for a position with a single start or closing event, or starts and
// closing events that alternate in time (normalizer/070-task-executions.sql), and sweeps the others. Whatever the kinds, instants (ties included), payloads and flush splits, the served
// executions are the oracle's (support/expected-executions.ts, written from the contract's rules, not from the SQL).
import { expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import fc from 'fast-check';
import type { TestDatabase } from './support/test-database.js';
import { expectedIndex } from '@workflow-index/testkit';
import { loadEvents, snapshot, type Event } from './support/load-events.js';

const it = postgresTest({ prefix: 'wi_simple' });

const P = 'io.serverlessworkflow.';
const T0 = 1_778_577_243;
const KINDS = ['started', 'retried', 'completed', 'faulted', 'cancelled', 'suspended', 'resumed'] as const;

const taskEvent = fc.record({
  kind: fc.oneof({ arbitrary: fc.constantFrom('started', 'completed', 'faulted'), weight: 3 }, { arbitrary: fc.constantFrom(...KINDS), weight: 2 }),
  instant: fc.integer({ min: 0, max: 3 }),  // few instants: ties between starts and closings are common
  at: fc.integer({ min: 0, max: 5 }),
  status: fc.constantFrom(undefined, 'COMPLETED', 'FAILED', 'CANCELED', 'RUNNING'),
  name: fc.constantFrom(undefined, 'a', 'b'),
  input: fc.constantFrom(undefined, null, { i: 1 }, { i: 2 }, { i: 3 }),
  output: fc.constantFrom(undefined, null, { o: 1 }),
  error: fc.constantFrom(undefined, { type: 'x', title: 'boom', status: 500 }),
});
const role = (kind: string): string => (kind === 'started' || kind === 'retried' ? 'open' : kind === 'suspended' || kind === 'resumed' ? 'pause' : 'close');
// Not two events of one role at one instant: which of them gets `#1` follows a hash of their content in the SQL (as the
// contract says) and their identity text in the oracle, so the two name such executions differently (a known gap of
// the oracle, not of this shortcut: the sweep alone gives the same).
const distinctRoleInstants = (list: readonly TaskEvent[]): boolean => new Set(list.map((e) => `${role(e.kind)}@${e.instant}`)).size === list.length;
const fewEvents = fc.array(taskEvent, { minLength: 1, maxLength: 3 }).filter(distinctRoleInstants);
// A loop: start, closing event, start, … (the last start may stay open; now and then a pause or a stray event), each
// at or after the one before (0: the same instant).
const loop = fc.array(fc.tuple(taskEvent, fc.integer({ min: 0, max: 2 })), { minLength: 2, maxLength: 9 })
  .map((steps) => {
    let instant = 0;
    return steps.map(([e, gap], i) => {
      instant += gap;
      const kind = e.kind === 'suspended' || e.kind === 'resumed' ? e.kind : i % 2 === 0 ? (e.kind === 'retried' ? 'retried' : 'started') : (role(e.kind) === 'close' ? e.kind : 'completed');
      return { ...e, kind, instant };
    });
  })
  .filter(distinctRoleInstants);
const position = fc.oneof(fewEvents, loop);

type TaskEvent = typeof taskEvent extends fc.Arbitrary<infer T> ? T : never;

function streamOf(positions: ReadonlyArray<readonly TaskEvent[]>, instanceId: string): Event[] {
  const events: Event[] = [{
    eventType: `${P}workflow.started.v1`, instanceId, timestamp: T0, startTime: T0, status: 'RUNNING',
    workflowName: 'wf', workflowNamespace: 'ns', workflowVersion: '1',
  }];
  positions.forEach((list, p) => {
    for (const e of list) {
      const time = T0 + 1 + e.instant * 0.001;
      const at = T0 + 1 + e.at * 0.001;
      const event: Event = { eventType: `${P}task.${e.kind}.v1`, instanceId, taskPosition: `do/${p}/t`, timestamp: time };
      if (e.kind === 'started' || e.kind === 'retried') event['startTime'] = at;
      if (e.kind === 'completed' || e.kind === 'faulted' || e.kind === 'cancelled') event['endTime'] = at;
      if (e.status !== undefined) event['status'] = e.status;
      if (e.name !== undefined) event['taskName'] = e.name;
      if (e.input !== undefined) event['input'] = e.input;
      if (e.output !== undefined) event['output'] = e.output;
      if (e.error !== undefined && (e.kind === 'faulted' || e.kind === 'completed' || e.kind === 'cancelled')) event['error'] = e.error;
      events.push(event);
    }
  });
  return events;
}

describePostgres('positions with few events (real PostgreSQL, fast-check)', () => {
  let db: TestDatabase;
  it.beforeAll(async ({ database }) => {
    db = database;
  });

  it('serve the oracle\'s executions, in any flush split and order', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(position, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 6 }), fc.boolean(),
        async (positions, flush, reversed) => {
          const instanceId = `simple-${run++}`;
          const events = streamOf(positions, instanceId);
          const ordered = reversed ? [events[0]!, ...events.slice(1).reverse()] : events;
          await loadEvents(db.pool, ordered, { batchSizes: [flush] });
          const served = await snapshot(db.pool, [instanceId]);
          expect(served.tasks).toEqual(expectedIndex(events).tasks);
        }),
      { numRuns: 80 },
    );
  });
});
