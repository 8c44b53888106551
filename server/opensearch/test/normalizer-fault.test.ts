// A normalization that throws for one run (a bug of a new release, met first by the re-normalization after a rules
// change) must leave that run's documents as they were and record it, not withdraw its executions: the run keeps
// being served as last computed, and every other run is normalized. The fault is injected into our own pure function
// (normalize-instance.ts) for one instance id; OpenSearch is the real node.
import { expect, vi } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import type * as NormalizeInstance from '../src/normalize-instance.js';
import type { OpenSearchNormalizer } from '../src/normalizer-job.js';
import { DAY_ONE, DAY_TWO, leasedNormalizer, records } from './support/leased-normalizer.js';
import type { TestNamespace } from './support/test-node.js';

const failing = vi.hoisted(() => ({ instanceId: null as string | null }));
vi.mock('../src/normalize-instance.js', async (importOriginal) => {
  const original = await importOriginal<typeof NormalizeInstance>();
  return {
    ...original,
    normalizeInstance: (instanceId: string, ...rest: unknown[]) => {
      if (instanceId === failing.instanceId) throw new Error(`injected fault for ${instanceId}`);
      return (original.normalizeInstance as (id: string, ...r: unknown[]) => unknown)(instanceId, ...rest);
    },
  };
});

const P = 'io.serverlessworkflow.';
const T = 1_778_577_243;
const line = (o: Record<string, unknown>): string => JSON.stringify(o);
function run(id: string): string[] {
  return [
    line({ instanceId: id, eventType: `${P}workflow.started.v1`, timestamp: T, startTime: T, workflowName: 'fault', status: 'RUNNING' }),
    line({ instanceId: id, eventType: `${P}task.started.v1`, timestamp: T + 1, taskPosition: 'do/0/a', input: { n: 1 } }),
    line({ instanceId: id, eventType: `${P}task.completed.v1`, timestamp: T + 2, taskPosition: 'do/0/a', output: { n: 1 } }),
  ];
}

describeOpenSearch('a normalization that throws for one run (real OpenSearch node)', () => {
  let ns: TestNamespace;
  let n: OpenSearchNormalizer;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    n = await leasedNormalizer(ns.client, ns.prefix);
  });

  async function deliver(lines: readonly string[], recordTimeMs: number): Promise<void> {
    const written = await writeEventLines(ns.client, records(lines, recordTimeMs), ns.prefix);
    expect(written.items.filter((i) => i.status !== 201)).toEqual([]);
    await ns.refresh();
    for (let guard = 0; guard < 10; guard++) if ((await n.cycle()).newRawEvents === 0) return;
    throw new Error('no quiescence in 10 cycles');
  }

  async function executionsOf(instanceId: string): Promise<unknown[]> {
    await ns.refresh();
    const response = await ns.client.transport.request({ method: 'POST', path: `/${n.names.taskExecutions}/_search`, body: { size: 100, query: { term: { instance_id: instanceId } }, sort: [{ id: 'asc' }] } });
    return (response.body as { hits: { hits: { _id: string; _source: unknown }[] } }).hits.hits.map((h) => [h._id, h._source]);
  }

  it('keeps the run\'s executions as they were, records the run, and normalizes the others', async () => {
    await deliver([...run('fault-a'), ...run('fault-b')], DAY_ONE);
    const before = await executionsOf('fault-a');
    expect(before).toHaveLength(1);

    failing.instanceId = 'fault-a';
    // A second iteration of the task for both runs: fault-a's computation throws, fault-b's goes through.
    const again = (id: string): string[] => [
      line({ instanceId: id, eventType: `${P}task.started.v1`, timestamp: T + 3, taskPosition: 'do/0/a', input: { n: 2 } }),
      line({ instanceId: id, eventType: `${P}task.completed.v1`, timestamp: T + 4, taskPosition: 'do/0/a', output: { n: 2 } }),
    ];
    await deliver([...again('fault-a'), ...again('fault-b')], DAY_TWO);
    failing.instanceId = null;

    expect(await executionsOf('fault-a')).toEqual(before);
    expect((await executionsOf('fault-b')).map((e) => (e as [string, { superseded?: boolean }])[1].superseded ?? false)).toEqual([false, false]);
    const error = await ns.client.transport.request({ method: 'GET', path: `/${n.names.ingestErrors}/_doc/${encodeURIComponent('normalizer/fault-a')}` });
    expect((error.body as { _source: { reason: string } })._source.reason).toBe('normalizer error: injected fault for fault-a');
  }, 120_000);
});
