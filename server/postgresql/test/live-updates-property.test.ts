// Property (fast-check): for any interleaving of deliveries (Fluent Bit flushes of any events of a few runs) and
// subscribes, every subscriber's last push of a run equals the run's final state as queried, and a run that is never
// served is never pushed. Reads are serial per subscriber and start after the change they serve, so no interleaving
// may leave a subscriber with a stale state.
import fc from 'fast-check';
import { expect } from 'vitest';
import { liveSubscription, openSse, postGraphQL, runCompleted, runFaulted, runStarted, taskCompleted, taskStarted } from '@workflow-index/testkit';
import type { Event, LiveRun, SseStream } from '@workflow-index/testkit';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import { startLiveServer } from './support/live-server.js';
import { loadEvents } from './support/load-events.js';

type Push = { workflowInstanceChanged: LiveRun };
type Step = { readonly kind: 'deliver'; readonly events: readonly { readonly run: number; readonly what: number; readonly at: number }[] } | { readonly kind: 'subscribe' };

const RUNS = 3;
const KINDS = 5;

function eventOf(id: string, what: number, at: number): Event {
  switch (what) {
    case 0:
      return runStarted(id, at);
    case 1:
      return taskStarted(id, 'do/0/a', at);
    case 2:
      return taskCompleted(id, 'do/0/a', at);
    case 3:
      return runCompleted(id, at);
    default:
      return runFaulted(id, at);
  }
}

const steps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('deliver' as const), events: fc.array(fc.record({ run: fc.nat(RUNS - 1), what: fc.nat(KINDS - 1), at: fc.nat(1000) }), { minLength: 1, maxLength: 4 }) }),
    fc.constant({ kind: 'subscribe' as const }),
  ),
  { minLength: 1, maxLength: 8 },
);

/** The last state of each run a stream was pushed, by id. */
function lastPushes(stream: SseStream, all: Map<string, LiveRun>): Map<string, LiveRun> {
  for (const result of stream.drain<Push>()) {
    const run = result.data?.workflowInstanceChanged;
    if (run !== undefined) all.set(run.id, run);
  }
  return all;
}

describePostgres('live updates: property', () => {
  it('the last push of every run equals its final queried state, for any interleaving of deliveries and subscribes', async ({ database }) => {
    const server = await startLiveServer(database);
    let iteration = 0;
    try {
      await fc.assert(
        fc.asyncProperty(steps, async (plan: readonly Step[]) => {
          iteration += 1;
          const ids = Array.from({ length: RUNS }, (_, i) => `prop-${iteration}-${i}`);
          const streams: SseStream[] = [];
          try {
            for (const step of plan) {
              if (step.kind === 'subscribe') streams.push(await openSse(server.baseUrl, liveSubscription(), { filter: { id: { in: ids } } }));
              else await loadEvents(database.pool, step.events.map((e) => eventOf(ids[e.run] as string, e.what, e.at)));
            }
            const fields = liveSubscription().replace(/^.*workflowInstanceChanged\(filter: \$filter\) \{ (.*) \} \}$/, '$1');
            const queried = await postGraphQL<{ getWorkflowInstances: LiveRun[] }>(server.baseUrl, `query($ids: [String!]) { getWorkflowInstances(filter: { id: { in: $ids } }) { ${fields} } }`, { ids });
            const expected = new Map((queried.body.data?.getWorkflowInstances ?? []).map((run) => [run.id, run]));
            for (const stream of streams) {
              const seen = new Map<string, LiveRun>();
              const settled = (): boolean => {
                lastPushes(stream, seen);
                return [...expected].every(([id, run]) => JSON.stringify(seen.get(id)) === JSON.stringify(run));
              };
              await stream.until(settled, 15_000).catch(() => undefined);
              expect(Object.fromEntries(seen)).toEqual(Object.fromEntries(expected));
            }
          } finally {
            for (const stream of streams) stream.close();
          }
        }),
        { numRuns: 25, endOnFailure: true },
      );
    } finally {
      await server.close();
    }
  });
});
