// Normalizer replicas over any interleaving: replicas start, run passes (several at once), die without giving their
// slots up, stop cleanly and start again, while the generated deliveries of normalizer-delivery-properties.test.ts
// (any order, re-deliveries under other record times, exact re-sends, bad lines) arrive in flushes, refreshed at once
// or only by the index's own refresh; two replicas are started before the generated steps. The lease clock is
// injected and moved past the TTL at generated moments, so leases of dead (and of slow) replicas expire without
// waiting. Once everything is delivered and the survivors hold
// every slot, the normalized documents are PostgreSQL's for one clean delivery of the same events; and every bulk each
// replica sent is recorded: a replica only ever wrote runs of slots it held, and no normalized document was written
// by two replicas with the same version and different contents.
import fc from 'fast-check';
import { expect } from 'vitest';
import { Client } from '@opensearch-project/opensearch';
import type { TestDatabase } from '@workflow-index/postgresql/testing';
import { crossTest as it, describeBoth } from './support/fixtures.js';
import { seededRandom } from '@workflow-index/testkit';
import { OpenSearchNormalizer, SLOT_COUNT, applyRawSchema, slotOfInstance, writeEventLines } from '@workflow-index/opensearch/admin';
import { OPENSEARCH_URL, type ComparableState, type TestNamespace, openSearchState } from '@workflow-index/opensearch/testing';
import { cleanDelivery, messyDelivery } from './support/generated-deliveries.js';
import { postgresqlState, writeToPostgreSQL } from './support/postgresql-twin.js';

const TTL = 20_000;
const REPLICAS = 3;

type Step =
  | { readonly kind: 'deliver'; readonly refresh: boolean }
  | { readonly kind: 'start'; readonly who: number }
  | { readonly kind: 'kill'; readonly who: number }
  | { readonly kind: 'stop'; readonly who: number }
  | { readonly kind: 'passes'; readonly who: readonly number[] }
  | { readonly kind: 'expire' };

const who = fc.integer({ min: 0, max: REPLICAS - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('deliver' as const), refresh: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('start' as const), who }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('kill' as const), who }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('stop' as const), who }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('passes' as const), who: fc.uniqueArray(who, { minLength: 1, maxLength: REPLICAS }) }), weight: 4 },
  { arbitrary: fc.constant({ kind: 'expire' as const }), weight: 1 },
);

/** A normalized document as one replica sent it. */
interface Write {
  readonly replica: string;
  readonly key: string;
  readonly version: number;
  readonly content: string;
  readonly slotHeld: boolean;
}

/** The bulks of normalized documents a client sends, recorded with the slots its replica held then. */
function recordWrites(client: Client, replica: string, indices: { instances: string; executions: string }, held: () => readonly number[], into: Write[]): void {
  const transport = client.transport as unknown as { request: (params: { path?: string; bulkBody?: string }, options?: unknown) => Promise<unknown> };
  const original = transport.request.bind(transport);
  transport.request = (params, options) => {
    if (params.path === '/_bulk' && typeof params.bulkBody === 'string') {
      const lines = params.bulkBody.split('\n').filter((l) => l !== '');
      const slots = held();
      for (let i = 0; i < lines.length; i++) {
        const action = JSON.parse(lines[i]!) as Record<string, { _index?: string; _id?: string; version?: number } | undefined>;
        const meta = action['index'] ?? action['create'] ?? action['update'];
        if (action['delete'] === undefined) i++; // every other action carries a document
        if (meta?._index !== indices.instances && meta?._index !== indices.executions) continue;
        if (action['index'] === undefined) continue; // task_states_complete updates after a refusal
        const { changed_at_ms: _stamp, ...doc } = JSON.parse(lines[i]!) as Record<string, unknown>;
        const instanceId = meta._index === indices.instances ? meta._id! : (doc['instance_id'] as string);
        into.push({ replica, key: `${meta._index}/${meta._id}`, version: meta.version ?? -1, content: JSON.stringify(doc), slotHeld: slots.includes(slotOfInstance(instanceId)) });
      }
    }
    return original(params, options);
  };
}

describeBoth('OpenSearch normalizer replicas: any interleaving of starts, deaths and restarts', () => {
  let ns: TestNamespace;
  let expected: ComparableState;
  it.beforeAll(async ({ namespace, database }: { namespace: TestNamespace; database: TestDatabase }) => {
    ns = namespace;
    await writeToPostgreSQL(database, cleanDelivery());
    expected = await postgresqlState(database);
  });

  let run = 0;
  /** Runs in which more than one replica wrote normalized documents (the generator must produce some). */
  let shared = 0;
  it('give the documents of one clean normalization, and no run is written by two replicas with different results', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 1, max: 4 }), fc.array(step, { minLength: 3, maxLength: 9 }), async (seed, flushes, steps) => {
        const prefix = `${ns.prefix}p${run++}-`;
        await applyRawSchema(ns.client, { prefix });
        const all = messyDelivery(seededRandom(seed));
        const size = Math.ceil(all.length / flushes);
        const chunks = Array.from({ length: flushes }, (_, i) => all.slice(i * size, (i + 1) * size)).filter((c) => c.length > 0);
        let clock = 1_000_000;
        const writes: Write[] = [];
        const clients: Client[] = [];
        const live = new Map<number, OpenSearchNormalizer>();
        let generation = 0;
        const start = async (i: number): Promise<void> => {
          if (live.has(i)) return;
          const client = new Client({ node: OPENSEARCH_URL });
          clients.push(client);
          const holder = `r${i}-${generation++}`;
          const n: OpenSearchNormalizer = new OpenSearchNormalizer({ client, prefix, holder, refresh: true, leaseTtlMs: TTL, retentionIntervalMs: 0, now: () => clock });
          recordWrites(client, holder, { instances: n.names.workflowInstances, executions: n.names.taskExecutions }, () => n.slots, writes);
          await n.setup();
          live.set(i, n);
        };
        const deliver = async (refresh: boolean): Promise<void> => {
          const chunk = chunks.shift();
          if (chunk === undefined) return;
          const result = await writeEventLines(ns.client, chunk, prefix);
          expect(result.items.filter((item) => item.status !== 201 && item.status !== 409)).toEqual([]);
          if (refresh) await ns.refresh();
        };
        const passes = async (replicas: readonly OpenSearchNormalizer[]): Promise<void> => {
          await ns.refresh(); // heartbeats seen by the others (the state index refreshes each second anyway)
          await Promise.all(replicas.map((n) => n.step()));
        };
        try {
          await start(0);
          await start(1);
          for (const s of steps) {
            if (s.kind === 'deliver') await deliver(s.refresh);
            else if (s.kind === 'start') await start(s.who);
            else if (s.kind === 'kill') live.delete(s.who);
            else if (s.kind === 'stop') {
              await live.get(s.who)?.release();
              live.delete(s.who);
            } else if (s.kind === 'passes') await passes(s.who.map((i) => live.get(i)).filter((n): n is OpenSearchNormalizer => n !== undefined));
            else clock += TTL + 1;
          }
          while (chunks.length > 0) await deliver(false);
          await ns.refresh();
          if (live.size === 0) await start(0);
          clock += TTL + 1; // the dead replicas' leases expire
          // Until the survivors hold every slot, twice in a row with the same split, and one more round after.
          let previous = '';
          for (let round = 0, stable = 0; stable < 2; round++) {
            if (round > 20) throw new Error('the survivors did not settle on every slot in 20 rounds');
            await passes([...live.values()]);
            const split = JSON.stringify([...live.values()].map((n) => n.slots));
            const covered = [...live.values()].flatMap((n) => n.slots).length === SLOT_COUNT;
            stable = covered && split === previous ? stable + 1 : 0;
            previous = split;
          }
          const actual = await openSearchState(ns.client, [...live.values()][0]!.names);
          expect(actual.instances).toEqual(expected.instances);
          expect(actual.executions).toEqual(expected.executions);
          expect(actual.ingestErrors).toBe(expected.ingestErrors);
          expect(actual.ingestErrorReasons).toEqual(expected.ingestErrorReasons);
          expect(writes.filter((w) => !w.slotHeld)).toEqual([]);
          if (new Set(writes.map((w) => w.replica)).size > 1) shared++;
          const byVersion = new Map<string, Write>();
          for (const w of writes) {
            const key = `${w.key}@${w.version}`;
            const first = byVersion.get(key);
            if (first === undefined) byVersion.set(key, w);
            else if (first.replica !== w.replica) expect({ key, content: w.content }).toEqual({ key, content: first.content });
          }
        } finally {
          await Promise.all(clients.map((c) => c.close()));
        }
      }),
      { numRuns: 4 },
    );
    expect(shared).toBeGreaterThan(0);
  }, 900_000);
});
