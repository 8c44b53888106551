// The continuous job around the pure normalizer: each slot of the runs held by one replica at a time (leases with
// optimistic concurrency; normalizer-replicas.test.ts has the rest of the replicas), a checkpoint that survives
// restarts (nothing skipped, nothing counted twice), failures retried with back-off without ever stopping, and a
// status document and metrics an operator can read.
import { readFileSync } from 'node:fs';
import { expect, vi } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { FIXTURE_PATH, withRecordTimes } from '@workflow-index/testkit';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import { readCheckpoint, readStatus } from '../src/normalizer-checkpoint.js';
import { LeaseLostError, OpenSearchNormalizer } from '../src/normalizer-job.js';
import { COORDINATOR_SLOT, SLOT_COUNT } from '../src/normalizer-slots.js';
import type { TestNamespace } from './support/test-node.js';
import { openSearchState } from './support/opensearch-state.js';

const lines = readFileSync(FIXTURE_PATH, 'utf8').split('\n').filter((l) => l.trim() !== '');
const RECORD_TIME = Date.UTC(2026, 4, 12, 9, 14, 3);
const deliveries = withRecordTimes(lines, RECORD_TIME);

async function metricValue(normalizer: OpenSearchNormalizer, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await normalizer.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x));
  return Number(value?.value ?? 0);
}

describeOpenSearch('OpenSearch normalizer job', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  it('a restart continues from the persisted checkpoint: nothing skipped, nothing counted twice', async () => {
    const prefix = `${ns.prefix}restart-`;
    await applyRawSchema(ns.client, { prefix });
    const first = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'first' });
    await first.setup();
    await writeEventLines(ns.client, deliveries.slice(0, 40), prefix);
    await ns.refresh();
    expect(await first.acquire()).toBe(true);
    await first.cycle();
    expect(await metricValue(first, 'workflow_index_normalizer_raw_events_total')).toBe(40);
    const checkpoint = await readCheckpoint(ns.client, first.names.normalizerState);
    expect(checkpoint.highWaterMs).toBeGreaterThan(0);

    // "restart": a new process with the same holder name, which finds the checkpoint
    const second = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'first' });
    await writeEventLines(ns.client, deliveries.slice(40), prefix);
    await ns.refresh();
    expect(await second.acquire()).toBe(true);
    const cycle = await second.cycle();
    expect(await metricValue(second, 'workflow_index_normalizer_raw_events_total')).toBe(lines.length - 40);
    expect(cycle.checkpointMs).toBeGreaterThanOrEqual(checkpoint.highWaterMs);
    const state = await openSearchState(ns.client, second.names);
    expect(state.instances.filter((i) => !i.placeholder)).toHaveLength(8);
    // an idle cycle afterwards finds nothing new
    expect((await second.cycle()).newRawEvents).toBe(0);
    expect(await metricValue(second, 'workflow_index_normalizer_raw_events_total')).toBe(lines.length - 40);
  });

  it('replicas racing for the slots: each slot goes to exactly one; one that stops gives its slots to the others', async () => {
    const prefix = `${ns.prefix}lease-`;
    const all = Array.from({ length: SLOT_COUNT }, (_, i) => i);
    const replicas = ['a', 'b', 'c', 'd'].map((holder) => new OpenSearchNormalizer({ client: ns.client, prefix, holder, leaseTtlMs: 60_000 }));
    await replicas[0]!.setup();
    await replicas[0]!.recordRulesIfFresh(); // no re-normalization pending, which would give every slot to one replica
    await Promise.all(replicas.map((r) => r.acquire()));
    expect(replicas.flatMap((r) => r.slots).sort((x, y) => x - y)).toEqual(all);
    const leader = replicas.find((r) => r.slots.includes(COORDINATOR_SLOT))!;
    const others = replicas.filter((r) => r !== leader);
    const controller = new AbortController();
    controller.abort();
    await leader.run(controller.signal); // an aborted run only releases its slots and heartbeat
    expect(leader.slots).toEqual([]);
    await ns.refresh();
    for (const r of others) await r.acquire(); // three live replicas: their share is 11 slots
    expect(others.flatMap((r) => r.slots).sort((x, y) => x - y)).toEqual(all);
    for (const r of others) await r.releaseExcess(); // what a replica does after its cycle
    expect(others.every((r) => r.slots.length <= 11)).toBe(true);
    for (const r of others) await r.acquire();
    expect(others.flatMap((r) => r.slots).sort((x, y) => x - y)).toEqual(all);
    expect(await leader.acquire()).toBe(false); // back, it finds nothing free
  });

  it('an expired lease is taken over, and the old holder cannot move the checkpoint any more', async () => {
    const prefix = `${ns.prefix}expiry-`;
    await applyRawSchema(ns.client, { prefix });
    const old = new OpenSearchNormalizer({ client: ns.client, prefix, holder: 'old', leaseTtlMs: 1, refresh: true });
    await old.setup();
    expect(await old.acquire()).toBe(true);
    await old.cycle(); // reads the (empty) checkpoint
    const fresh = new OpenSearchNormalizer({ client: ns.client, prefix, holder: 'new', refresh: true });
    await vi.waitFor(async () => expect(await fresh.acquire()).toBe(true), { timeout: 10_000, interval: 20 });
    await writeEventLines(ns.client, deliveries.slice(0, 10), prefix);
    await ns.refresh();
    await fresh.cycle();
    await writeEventLines(ns.client, deliveries.slice(10, 20), prefix);
    await ns.refresh();
    await expect(old.cycle()).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('never stops: a failing cycle is retried with back-off, counted, reported, and the job recovers', async () => {
    const prefix = `${ns.prefix}retry-`;
    await applyRawSchema(ns.client, { prefix });
    const normalizer = new OpenSearchNormalizer({ client: ns.client, prefix, holder: 'retry', intervalMs: 50, maxBackoffMs: 200, refresh: true });
    await normalizer.setup();
    // a transient failure: the execution index is closed, so writes fail
    await ns.client.transport.request({ method: 'POST', path: `/${normalizer.names.taskExecutions}/_close` });
    await writeEventLines(ns.client, deliveries, prefix);
    await ns.refresh();
    const controller = new AbortController();
    const running = normalizer.run(controller.signal);
    try {
      await vi.waitFor(async () => expect(await metricValue(normalizer, 'workflow_index_normalizer_failed_cycles_total')).toBeGreaterThanOrEqual(2), { timeout: 60_000, interval: 50 });
      // a stuck normalizer's lag grows, so the lag alert fires
      await vi.waitFor(async () => expect(await metricValue(normalizer, 'workflow_index_normalizer_lag_seconds')).toBeGreaterThan(0), { timeout: 60_000, interval: 50 });
      const failing = await readStatus(ns.client, normalizer.names.normalizerState);
      expect(failing?.jobs['task-execution-transform'].state).toBe('failing');
      expect(failing?.jobs['task-execution-transform'].last_error).toMatch(/closed|index_closed/);
      await ns.client.transport.request({ method: 'POST', path: `/${normalizer.names.taskExecutions}/_open`, querystring: { wait_for_active_shards: '1' } });
      await vi.waitFor(async () => expect((await readStatus(ns.client, normalizer.names.normalizerState))?.jobs['workflow-instance-transform'].state).toBe('started'), { timeout: 60_000, interval: 50 });
    } finally {
      controller.abort();
      await running;
    }
    const status = (await readStatus(ns.client, normalizer.names.normalizerState))!;
    expect(Object.keys(status.jobs).sort()).toEqual(['task-execution-transform', 'workflow-instance-transform']);
    expect(status.raw_events_processed).toBe(lines.length);
    expect(status.checkpoint_ms).toBeGreaterThan(0);
    expect(status.jobs['task-execution-transform'].documents_written).toBeGreaterThan(0);
    const state = await openSearchState(ns.client, normalizer.names);
    expect(state.instances.filter((i) => !i.placeholder)).toHaveLength(8);
    expect(await metricValue(normalizer, 'workflow_index_normalizer_consecutive_failures')).toBe(0);
    expect(await metricValue(normalizer, 'workflow_index_normalizer_documents_written_total', { transform: 'workflow-instance-transform' })).toBeGreaterThan(0);
    const text = await normalizer.metrics.registry.metrics();
    for (const name of ['cycle_seconds', 'lag_seconds', 'raw_events_total', 'rejected_events_total', 'failed_cycles_total', 'checkpoint_timestamp_seconds', 'active']) {
      expect(text).toContain(`workflow_index_normalizer_${name}`);
    }
  });
});
