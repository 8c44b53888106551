// Normalizer replicas on the real node (normalizer-slots.ts, normalizer-lease.ts): two replicas split the slots by
// their fair share and each normalizes only its slots' runs; a dead replica's slots are taken over once its leases
// expire (an injected clock: the bound is the TTL plus a pass, whatever the machine's speed); the single lease and
// checkpoint of an earlier release hand over cleanly; and with real processes, a replica killed with SIGKILL has its
// runs normalized by the other (the time is printed, not asserted).
import { expect, vi } from 'vitest';
import { freePort, startNodeScript, stop, type ServerProcess } from '@workflow-index/testkit';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import { CHECKPOINT_ID, readCheckpoint, readSlotCheckpoints } from '../src/normalizer-checkpoint.js';
import { LeaseLostError, OpenSearchNormalizer } from '../src/normalizer-job.js';
import { LEGACY_LEASE_ID } from '../src/normalizer-lease.js';
import { COORDINATOR_SLOT, SLOT_COUNT, slotOfInstance, takeoverBoundMs } from '../src/normalizer-slots.js';
import { OPENSEARCH_URL, type TestNamespace } from './support/test-node.js';

const P = 'io.serverlessworkflow.';
const T = 1_778_577_243;
const NORMALIZER_MAIN = 'server/opensearch/src/normalizer-main.ts';
const ALL_SLOTS = Array.from({ length: SLOT_COUNT }, (_, i) => i);

/** A started run of `id`: one workflow event and one task. */
function run(id: string, n = 1): string[] {
  return [
    JSON.stringify({ instanceId: id, eventType: `${P}workflow.started.v1`, timestamp: T, startTime: T, workflowName: 'replicas', status: 'RUNNING' }),
    JSON.stringify({ instanceId: id, eventType: `${P}task.started.v1`, timestamp: T + n, taskPosition: `do/${n}/a`, input: { n } }),
  ];
}

/** Instance ids, `perSlot` of them in each of `slots`. */
function idsIn(slots: readonly number[], perSlot: number, tag: string): string[] {
  const ids: string[] = [];
  const count = new Map<number, number>();
  for (let i = 0; ids.length < slots.length * perSlot; i++) {
    const id = `${tag}-${i}`;
    const slot = slotOfInstance(id);
    if (!slots.includes(slot) || (count.get(slot) ?? 0) >= perSlot) continue;
    count.set(slot, (count.get(slot) ?? 0) + 1);
    ids.push(id);
  }
  return ids;
}

async function instanceIds(ns: TestNamespace, n: OpenSearchNormalizer): Promise<string[]> {
  await ns.refresh();
  const response = await ns.client.transport.request({ method: 'POST', path: `/${n.names.workflowInstances}/_search`, body: { size: 10_000, _source: false, docvalue_fields: ['id'] } });
  return (response.body as { hits: { hits: { _id: string }[] } }).hits.hits.map((h) => h._id).sort();
}

describeOpenSearch('normalizer replicas (real OpenSearch node)', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
  });

  it('two replicas split the slots fairly and each normalizes only its runs; a dead one\'s slots are taken over after the TTL, not before', async () => {
    const prefix = `${ns.prefix}split-`;
    await applyRawSchema(ns.client, { prefix });
    let now = 1_000_000;
    const TTL = 20_000;
    const options = { client: ns.client, prefix, refresh: true, leaseTtlMs: TTL, retentionIntervalMs: 0, now: () => now };
    const a = new OpenSearchNormalizer({ ...options, holder: 'a' });
    const b = new OpenSearchNormalizer({ ...options, holder: 'b' });
    await a.setup();
    await a.recordRulesIfFresh();
    expect(await a.acquire()).toBe(true);
    expect(a.slots).toEqual(ALL_SLOTS);
    expect(await b.acquire()).toBe(false); // nothing free; its heartbeat tells a to give up half
    await ns.refresh();
    await a.acquire();
    expect(await a.releaseExcess()).toHaveLength(SLOT_COUNT / 2);
    expect(await b.acquire()).toBe(true);
    expect(a.slots).toHaveLength(SLOT_COUNT / 2);
    expect(b.slots).toHaveLength(SLOT_COUNT / 2);
    expect(a.slots).toContain(COORDINATOR_SLOT);
    expect([...a.slots, ...b.slots].sort((x, y) => x - y)).toEqual(ALL_SLOTS);

    const ofA = idsIn(a.slots, 2, 'split-a');
    const ofB = idsIn(b.slots, 2, 'split-b');
    await writeEventLines(ns.client, [...ofA, ...ofB].flatMap((id) => run(id)).map((line, i) => ({ line, recordTimeMs: Date.UTC(2026, 4, 12) + i })), prefix);
    await ns.refresh();
    expect((await a.cycle()).instances).toBe(ofA.length);
    expect(await instanceIds(ns, a)).toEqual([...ofA].sort());
    expect((await b.cycle()).instances).toBe(ofB.length);
    expect(await instanceIds(ns, a)).toEqual([...ofA, ...ofB].sort());

    // a dies (stops renewing) right after renewing; events keep coming for its runs
    now += 1000;
    await a.acquire();
    const diedAt = now;
    const late = idsIn(a.slots, 1, 'split-late');
    await writeEventLines(ns.client, late.flatMap((id) => run(id)).map((line, i) => ({ line, recordTimeMs: Date.UTC(2026, 4, 12) + i })), prefix);
    await ns.refresh();
    now = diedAt + TTL - 1;
    await b.acquire();
    expect(b.slots).toHaveLength(SLOT_COUNT / 2); // a's leases still stand
    now = diedAt + takeoverBoundMs(TTL, 1000);
    await b.acquire();
    expect(b.slots).toEqual(ALL_SLOTS);
    await b.cycle();
    expect(await instanceIds(ns, b)).toEqual([...ofA, ...ofB, ...late].sort());
    // a comes back mid-cycle with its old view: its writes are withheld and it cannot move a checkpoint
    await writeEventLines(ns.client, run(late[0]!, 2).map((line) => ({ line, recordTimeMs: Date.UTC(2026, 4, 13) })), prefix);
    await ns.refresh();
    await expect(a.cycle()).rejects.toBeInstanceOf(LeaseLostError);
  }, 180_000);

  it('the single lease and checkpoint of an earlier release: no slot is taken while that lease is held; then every slot starts from its checkpoint', async () => {
    const prefix = `${ns.prefix}legacy-`;
    await applyRawSchema(ns.client, { prefix });
    let now = 5_000_000;
    const n = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true, holder: 'new', retentionIntervalMs: 0, now: () => now });
    await n.setup();
    await n.recordRulesIfFresh();
    const done = idsIn(ALL_SLOTS, 1, 'legacy-done');
    await writeEventLines(ns.client, done.flatMap((id) => run(id)).map((line, i) => ({ line, recordTimeMs: Date.UTC(2026, 4, 12) + i })), prefix);
    await ns.refresh();
    const newest = await ns.client.transport.request({ method: 'POST', path: `/${prefix}*-raw-*/_search`, body: { size: 0, aggs: { t: { max: { field: 'wi.ingest_time' } } } } });
    const doneUpTo = (newest.body as { aggregations: { t: { value: number } } }).aggregations.t.value;
    const overlap = 10_000;
    // What the earlier release left: its checkpoint past every event above (plus the overlap), and its lease.
    const state = n.names.normalizerState;
    await ns.client.transport.request({ method: 'PUT', path: `/${state}/_doc/${CHECKPOINT_ID}`, querystring: { refresh: 'true' }, body: { kind: 'checkpoint', high_water_ms: doneUpTo + 1 + overlap, overlap_ms: overlap } });
    await ns.client.transport.request({ method: 'PUT', path: `/${state}/_doc/${LEGACY_LEASE_ID}`, querystring: { refresh: 'true' }, body: { kind: 'lease', holder: 'old-release', expires_at_ms: now + 30_000 } });
    expect(await n.acquire()).toBe(false);
    now += 30_001;
    expect(await n.acquire()).toBe(true);
    expect(n.slots).toEqual(ALL_SLOTS);
    const slotCheckpoints = await readSlotCheckpoints(ns.client, state, ALL_SLOTS);
    expect(new Set([...slotCheckpoints.values()].map((c) => c.highWaterMs))).toEqual(new Set([doneUpTo + 1 + overlap]));
    expect((await readCheckpoint(ns.client, state)).highWaterMs).toBe(doneUpTo + 1 + overlap);

    const fresh = idsIn(ALL_SLOTS, 1, 'legacy-fresh');
    await writeEventLines(ns.client, fresh.flatMap((id) => run(id)).map((line, i) => ({ line, recordTimeMs: Date.UTC(2026, 4, 13) + i })), prefix);
    await ns.refresh();
    const cycle = await n.cycle();
    expect(cycle.newRawEvents).toBe(fresh.length * 2); // nothing the earlier release normalized is read again
    expect(await instanceIds(ns, n)).toEqual([...fresh].sort());
    const after = await readCheckpoint(ns.client, state);
    expect(after.highWaterMs).toBeGreaterThanOrEqual(doneUpTo + 1 + overlap);
  }, 180_000);

  it('processes: a replica killed with SIGKILL has its runs normalized by the other once its leases expire', async () => {
    const prefix = `${ns.prefix}kill-`;
    await applyRawSchema(ns.client, { prefix });
    const setup = new OpenSearchNormalizer({ client: ns.client, prefix });
    await setup.setup();
    const TTL = 4000;
    const url = new URL(OPENSEARCH_URL);
    const processes: ServerProcess[] = [];
    const start = async (name: string): Promise<ServerProcess> => {
      const child = startNodeScript(NORMALIZER_MAIN, {
        OPENSEARCH_HOST: url.hostname, OPENSEARCH_PORT: url.port || '9200', WI_OPENSEARCH_INDEX_PREFIX: prefix, NORMALIZER_HTTP_PORT: String(await freePort()),
        NORMALIZER_INTERVAL_MS: '200', NORMALIZER_LEASE_TTL_MS: String(TTL), NORMALIZER_RENORMALIZE_SLICE_MS: '1000', NORMALIZER_RETENTION_INTERVAL_MS: '0', LOG_LEVEL: 'info',
      }, { defaultWaitMs: 90_000, killAfterMs: 170_000 });
      processes.push(child);
      await child.waitFor(/"holder":"([^"]+)"/);
      void name;
      return child;
    };
    const members = async (): Promise<Map<string, number[]>> => {
      await ns.refresh();
      const response = await ns.client.transport.request({ method: 'POST', path: `/${setup.names.normalizerState}/_search`, body: { size: 100, query: { term: { kind: 'slot-lease' } } } });
      const byHolder = new Map<string, number[]>();
      const nowMs = Date.now();
      for (const h of (response.body as { hits: { hits: { _source: { slot: number; holder: string | null; expires_at_ms: number } }[] } }).hits.hits) {
        if (h._source.holder === null || h._source.expires_at_ms <= nowMs) continue;
        byHolder.set(h._source.holder, [...(byHolder.get(h._source.holder) ?? []), h._source.slot].sort((x, y) => x - y));
      }
      return byHolder;
    };
    try {
      const first = await start('first');
      const second = await start('second');
      const holderOf = (p: ServerProcess): string => /"holder":"([^"]+)"/.exec(p.output())![1]!;
      await vi.waitFor(async () => {
        const m = await members();
        expect(m.get(holderOf(first))?.length ?? 0).toBeGreaterThan(0);
        expect(m.get(holderOf(second))?.length ?? 0).toBeGreaterThan(0);
        expect([...m.values()].flat()).toHaveLength(SLOT_COUNT);
      }, { timeout: 120_000, interval: 250 });
      const split = await members();
      const victim = split.get(holderOf(first))!.includes(COORDINATOR_SLOT) ? second : first;
      const survivor = victim === first ? second : first;
      const victimSlots = split.get(holderOf(victim))!;
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = Date.now();
      const orphans = idsIn(victimSlots, 1, 'orphan');
      await writeEventLines(ns.client, orphans.flatMap((id) => run(id)).map((line, i) => ({ line, recordTimeMs: Date.UTC(2026, 4, 12) + i })), prefix);
      await vi.waitFor(async () => {
        const found = await instanceIds(ns, setup);
        expect(orphans.filter((id) => !found.includes(id))).toEqual([]);
      }, { timeout: 120_000, interval: 250 });
      const tookMs = Date.now() - killedAt;
      console.info(`[normalizer-replicas] SIGKILLed replica's ${victimSlots.length} slots normalized by the other ${tookMs} ms after the kill (lease TTL ${TTL} ms, interval 200 ms, take-over bound ${takeoverBoundMs(TTL, 200)} ms + a pass)`);
      expect((await members()).get(holderOf(survivor))).toEqual(ALL_SLOTS);
      expect(await stop(survivor)).toBe(0);
    } finally {
      for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
      await Promise.all(processes.map((p) => p.exited));
    }
  }, 200_000);
});
