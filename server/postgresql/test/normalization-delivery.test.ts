// Deliveries as production makes them: the same event lines arrive again with other record times and
// forwarder metadata (runtime `time`, `stream`, `_p`, `logtag`, `kubernetes`, another Timestamp_Key), with numbers
// re-printed the way Fluent Bit prints them and fields in another order, in any flush split and arrival order,
// and as `init-job ingest` backfills of JSONL or CRI logs; and a platform team's forwarder sends hostile lines
// inside good batches with no repair at all. The rows must always be those of one clean delivery, every good
// event served, every hostile line either served (repaired) or recorded in ingest_errors — never a failed flush.
// Base stream: the real Quarkus Flow output (epoch-seconds, 20 of its 21 instances) and a generated epoch-millis loop.
import fc from 'fast-check';
import { afterAll, expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import type { TestDatabase } from './support/test-database.js';
import { expectedIndex } from '@workflow-index/testkit';
import { criLog, rfc3339Nano } from '@workflow-index/testkit';
import { rawFlushes, type RawRecord } from './support/raw-statement.js';
import { seededRandom, shuffled } from '@workflow-index/testkit';
import { deliveryPaths, lineTimeNanos, POD, printedLines, withSuffix, type DeliveryPaths, type Snapshot } from './support/delivery-paths.js';
import { flbDouble, reprintNumbers, rotateMembers } from './support/forwarder-reprint.js';
import { loopStream } from '@workflow-index/testkit';
import { realFixture } from '@workflow-index/testkit';

const real = realFixture('epoch-seconds');
const loop = loopStream({ seed: 70, format: 'epoch-millis', items: 30, payloads: true });
// The real i-unicode instance printed a NUL escape; its delivery is the real-fixtures suite's, and NUL escapes are
// among the hostile lines here, so that a NUL failure cannot hide an identity failure (and vice versa).
const NUL_INSTANCE = real.instances.find((i) => i.label === 'i-unicode')!.instanceId;
const LINES: readonly string[] = [...real.eventLines.filter((l) => !l.includes(NUL_INSTANCE)), ...loop.lines];
const IDS: readonly string[] = [...real.instances.map((i) => i.instanceId).filter((id) => id !== NUL_INSTANCE), ...loop.instanceIds];
const EXPECTED = expectedIndex(LINES.map((l) => JSON.parse(l) as Record<string, unknown>));
const INDICES = [...LINES.keys()];

/** How one forwarder (or one configuration of it) prints a record. */
interface Variant {
  /** Record time: the event's own time shifted by this many ms (another node, another read). */
  readonly shiftMs: number;
  readonly metadata: 'none' | 'cri' | 'kubernetes';
  readonly timeKey: 'wi_record_time' | 'date';
  readonly reprint: boolean;
  readonly rotate: number;
}
const variantArb: fc.Arbitrary<Variant> = fc.record({
  shiftMs: fc.integer({ min: -3_600_000, max: 7_200_000 }),
  metadata: fc.constantFrom('none', 'cri', 'kubernetes'),
  timeKey: fc.constantFrom('wi_record_time', 'date'),
  reprint: fc.boolean(),
  rotate: fc.nat(9),
});
const sizesArb = fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 5 });

function forwarded(line: string, v: Variant, i: number): RawRecord {
  let text = v.reprint ? reprintNumbers(line) : line;
  if (v.rotate > 0) text = rotateMembers(text, v.rotate);
  const nanos = lineTimeNanos(line) + BigInt(v.shiftMs) * 1_000_000n + BigInt(i * 1337);
  const metadata = v.metadata === 'cri'
    ? `"time":"${rfc3339Nano(nanos)}","stream":"stdout","_p":"F","logtag":"F"`
    : v.metadata === 'kubernetes'
      ? `"stream":"stdout","_p":"F","kubernetes":{"pod_name":"${POD}","namespace_name":"workflows","labels":{"app":"capture-app"},"host":"node-${i % 3}","container_name":"app"}`
      : undefined;
  return { line: text, recordTime: flbDouble(Number(nanos) / 1e9), timeKey: v.timeKey, ...(metadata ? { metadata } : {}) };
}

/** Hostile lines a producer can print (each its own instance, as a workflow.started event). */
const HOSTILE_KINDS = ['nul-key', 'nul-value', 'lone-high', 'lone-low-key', 'deep', 'huge-number', 'big-payload', 'app-time-key', 'app-date'] as const;
type HostileKind = (typeof HOSTILE_KINDS)[number];
function hostileLine(kind: HostileKind, id: string): string {
  const extra: Record<HostileKind, string> = {
    'nul-key': '"input":{"a\\u0000b":"x"}',
    'nul-value': '"input":{"v":"x\\u0000y","w":"\\u0000"}',
    'lone-high': '"input":{"v":"a\\ud800b","pair":"\\ud83d\\ude80"}',
    'lone-low-key': '"input":{"\\udc00k":1}',
    deep: `"input":${'['.repeat(20_000)}${']'.repeat(20_000)}`,
    'huge-number': '"input":{"n":1e999,"m":-2e308}',
    'big-payload': `"input":{"blob":"${'x'.repeat(2 * 1024 * 1024)}"}`,
    'app-time-key': '"wi_record_time":"yesterday"',
    'app-date': '"date":"2026-11-23 not a number"',
  };
  const t = '1.7954415239E9';
  return `{${extra[kind]},"instanceId":"${id}","workflowNamespace":"hostile","workflowName":"${kind}","startTime":${t},"eventType":"io.serverlessworkflow.workflow.started.v1","workflowVersion":"1.0.0","timestamp":${t},"status":"RUNNING"}`;
}

describePostgres('deliveries as production makes them (real PostgreSQL, fast-check)', () => {
  let db: TestDatabase;
  let paths: DeliveryPaths;
  let clean: Snapshot;
  let run = 0;
  const suffixed = (suffix: string, indices: readonly number[]): string[] => indices.map((i) => withSuffix(LINES[i]!, IDS, suffix));
  const errorCount = async (): Promise<number> => (await db.pool.query('SELECT count(*)::int AS n FROM workflow_index.ingest_errors')).rows[0].n as number;

  it.beforeAll(async ({ database, loginRoles }) => {
    db = database;
    paths = await deliveryPaths(db, 'delivery');
    loginRoles.dropAtEnd(paths.forwarderRole);
    // One clean delivery: the printed lines in printed order, record time = the event's own time, no metadata.
    await paths.asForwarder(rawFlushes(suffixed('~clean', INDICES).map((line) => forwarded(line, { shiftMs: 0, metadata: 'none', timeKey: 'wi_record_time', reprint: false, rotate: 0 }, 0))));
    clean = await paths.served(IDS, '~clean');
  }, 60_000);
  afterAll(async () => {
    await paths?.close();
  });

  it('a clean delivery serves the oracle\'s rows', () => {
    expect(clean).toEqual(EXPECTED);
  });

  it('re-deliveries of random subsets with other record times, metadata, number printing, key order, paths, splits and orders give the rows of one clean delivery', async () => {
    const redelivery = fc.record({
      subset: fc.subarray(INDICES, { minLength: 1 }),
      via: fc.constantFrom('forwarder', 'forwarder', 'jsonl', 'cri-backfill'),
      variant: variantArb,
      sizes: sizesArb,
      seed: fc.integer(),
    });
    await fc.assert(
      fc.asyncProperty(variantArb, sizesArb, fc.integer(), fc.array(redelivery, { minLength: 1, maxLength: 3 }), async (firstVariant, firstSizes, firstSeed, again) => {
        const suffix = `~d${String(run++).padStart(3, '0')}`;
        const deliver = async (indices: readonly number[], via: string, v: Variant, sizes: readonly number[], seed: number): Promise<void> => {
          const random = seededRandom(seed);
          const lines = suffixed(suffix, shuffled(indices, random));
          if (via === 'jsonl') await paths.ingestFile(`${lines.join('\n')}\n`);
          else if (via === 'cri-backfill') await paths.ingestFile(criLog(printedLines(suffixed(suffix, [...indices].sort((a, b) => a - b)), random)));
          else await paths.asForwarder(rawFlushes(lines.map((l, i) => forwarded(l, v, i)), sizes, false, v.timeKey));
        };
        await deliver(INDICES, 'forwarder', firstVariant, firstSizes, firstSeed);
        for (const r of again) await deliver(r.subset, r.via, r.variant, r.sizes, r.seed);
        expect(await paths.ingestErrors(suffix)).toEqual([]);
        expect(await paths.served(IDS, suffix)).toEqual(clean);
      }),
      { numRuns: 8, endOnFailure: true },
    );
  }, 180_000);

  it('hostile lines inside good batches, sent raw as a filterless forwarder would: every statement succeeds, good rows are a clean delivery\'s, every hostile line is served or recorded', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...HOSTILE_KINDS], { minLength: 1 }),
        fc.array(fc.nat(), { minLength: HOSTILE_KINDS.length, maxLength: HOSTILE_KINDS.length }),
        variantArb.filter((v) => v.timeKey === 'wi_record_time'),
        sizesArb,
        fc.integer(),
        async (kinds, positions, variant, sizes, seed) => {
          const n = run++;
          const suffix = `~h${String(n).padStart(3, '0')}`;
          const random = seededRandom(seed);
          const records = suffixed(suffix, shuffled(INDICES, random)).map((l, i) => forwarded(l, variant, i));
          const hostileIds = kinds.map((k) => `HOSTILE-${n}-${k}`);
          kinds.forEach((kind, k) => {
            const at = positions[k]! % (records.length + 1);
            records.splice(at, 0, { line: hostileLine(kind, hostileIds[k]!), recordTime: flbDouble(1795441523.9 + k) });
          });
          const errorsBefore = await errorCount();
          await paths.asForwarder(rawFlushes(records, sizes));
          expect(await paths.served(IDS, suffix)).toEqual(clean);
          const servedHostile = (await db.pool.query(
            `SELECT id FROM workflow_index.workflow_instances WHERE id = ANY($1) AND started_event_time IS NOT NULL`, [hostileIds])).rows.length;
          expect(servedHostile + (await errorCount()) - errorsBefore).toBe(kinds.length);
        },
      ),
      { numRuns: 8, endOnFailure: true },
    );
  }, 180_000);

  it('each hostile line alone beside good events: the statement succeeds and the good events are served', async () => {
    const outcomes: Array<[HostileKind, string, boolean, string]> = [];
    for (const kind of HOSTILE_KINDS) {
      const suffix = `~x${kind}`;
      const id = `HOSTILE-alone-${kind}`;
      const good = suffixed(suffix, INDICES).map((l, i) => forwarded(l, { shiftMs: 5, metadata: 'cri', timeKey: 'wi_record_time', reprint: false, rotate: 0 }, i));
      const records = [...good.slice(0, 90), { line: hostileLine(kind, id), recordTime: '1795441523.9' }, ...good.slice(90)];
      const errorsBefore = await errorCount();
      const outcome = await paths.asForwarder(rawFlushes(records)).then(() => 'ok', (error: Error) => error.message);
      const servedHostile = (await db.pool.query('SELECT 1 FROM workflow_index.workflow_instances WHERE id = $1 AND started_event_time IS NOT NULL', [id])).rows.length === 1;
      const fate = servedHostile ? 'served' : (await errorCount()) > errorsBefore ? 'recorded' : 'lost';
      outcomes.push([kind, outcome, JSON.stringify(await paths.served(IDS, suffix)) === JSON.stringify(clean), fate]);
    }
    // Every kind at once, so one failing kind does not hide the others.
    expect(outcomes.map(([kind, outcome, same, fate]) => [kind, outcome, same, fate === 'lost' ? 'lost' : 'kept'])).toEqual(HOSTILE_KINDS.map((k) => [k, 'ok', true, 'kept']));
    console.info(`hostile lines alone: ${outcomes.map(([kind, , , fate]) => `${kind} ${fate}`).join(', ')}`);
  }, 180_000);
});
