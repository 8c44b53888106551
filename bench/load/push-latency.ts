// Push latency of live updates, the same way on both backends: one subscription (over real HTTP), then run after run
// a change is delivered through the backend's write path and timed from the start of the delivery to
//  - served: the delivery has returned (committed, or normalized and refreshed) and a plain query round trip that
//    follows it sees the new state: the floor, what a client polling at once would get;
//  - pushed: the subscription received the run with its new state.
// Deliveries are one at a time, so these are latencies, not throughput.
import { liveSubscription, openSse, postGraphQL, runCompleted, runStarted } from '@workflow-index/testkit';
import type { Event, GraphQLResponseBody } from '@workflow-index/testkit';
import { percentile, round } from './http-load.js';

export interface PushTarget {
  readonly baseUrl: string;
  deliver(events: readonly Event[]): Promise<void>;
}

export interface PushLatency {
  readonly runs: number;
  readonly deliveredP50Ms: number;
  readonly servedP50Ms: number;
  readonly servedP99Ms: number;
  readonly pushedP50Ms: number;
  readonly pushedP99Ms: number;
  /** pushed / served at the median: how far behind a plain query round trip the push arrives. */
  readonly ratioP50: number;
}

type Push = { workflowInstanceChanged: { id: string; status: string } };

export async function measurePushLatency(target: PushTarget, runs: number, prefix: string): Promise<PushLatency> {
  const stream = await openSse(target.baseUrl, liveSubscription('id status'), { filter: { name: 'bench-push' } });
  const delivered: number[] = [];
  const served: number[] = [];
  const pushed: number[] = [];
  const pushOf = (id: string, status: string) => (r: GraphQLResponseBody<Push>) => r.data?.workflowInstanceChanged.id === id && r.data.workflowInstanceChanged.status === status;
  try {
    for (let i = 0; i < runs; i++) {
      const id = `${prefix}-${i}`;
      await target.deliver([runStarted(id, i * 10, { name: 'bench-push' })]);
      await stream.resultWhere(pushOf(id, 'RUNNING'), 30_000);
      const started = performance.now();
      const push = stream.resultWhere(pushOf(id, 'COMPLETED'), 30_000).then(() => performance.now() - started);
      await target.deliver([runCompleted(id, i * 10 + 5)]);
      delivered.push(performance.now() - started);
      const answer = await postGraphQL<{ getWorkflowInstance: { status: string } }>(target.baseUrl, 'query($id: ID!) { getWorkflowInstance(id: $id) { status } }', { id });
      if (answer.body.data?.getWorkflowInstance.status !== 'COMPLETED') throw new Error(`run ${id} not served as COMPLETED after its delivery`);
      served.push(performance.now() - started);
      pushed.push(await push);
    }
  } finally {
    stream.close();
  }
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const [d, s, p] = [sorted(delivered), sorted(served), sorted(pushed)];
  return {
    runs,
    deliveredP50Ms: round(percentile(d, 50)),
    servedP50Ms: round(percentile(s, 50)),
    servedP99Ms: round(percentile(s, 99)),
    pushedP50Ms: round(percentile(p, 50)),
    pushedP99Ms: round(percentile(p, 99)),
    ratioP50: round(percentile(p, 50) / percentile(s, 50)),
  };
}

export function printPushLatency(backend: string, result: PushLatency): void {
  console.log(`push latency, ${backend}, ${result.runs} runs one at a time (ms from the start of the delivery)`);
  console.log(`  delivery returned     p50 ${result.deliveredP50Ms}`);
  console.log(`  served (floor: delivery + one query round trip)  p50 ${result.servedP50Ms}  p99 ${result.servedP99Ms}`);
  console.log(`  pushed                p50 ${result.pushedP50Ms}  p99 ${result.pushedP99Ms}  (pushed/served at p50: ${result.ratioP50})`);
  console.log(JSON.stringify({ bench: 'push', backend, ...result }));
}
