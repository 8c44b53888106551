// What a real Quarkus Flow application printed (../shared/fixtures/real), ingested every way it reaches the
// database in production — JSONL and `kubectl logs` output through `init-job ingest`, container logs as containerd
// writes them, the Fluent Bit pipeline model's statements, a platform forwarder's raw statements in any order,
// re-deliveries with other record times and metadata, and a backfill over a Fluent Bit delivery — must serve
// each instance's real final status (outcomes.jsonl, what the runtime itself reported) and exactly the
// executions, errors and payloads the oracle (support/expected-executions.ts) derives from the events alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dropLoginRoles, postgresReachable, type TestDatabase } from './support/test-database.js';
import { REAL_FORMATS, realFixture, type RealFixture } from '@workflow-index/testkit';
import { expectedIndex, tiedInstants, type ExpectedIndex } from '@workflow-index/testkit';
import { criLog, type PrintedLine } from '@workflow-index/testkit';
import { rawFlushes, type RawRecord } from './support/raw-statement.js';
import { seededRandom as seeded, shuffled } from '@workflow-index/testkit';
import {
  POD, deliveryPaths, lineTimeNanos, printedLines, recordTimeText, withSuffix as rename, type DeliveryPaths, type Snapshot,
} from './support/delivery-paths.js';

const available = await postgresReachable();
/** Each instance id gets the suffix, so many deliveries share one database without sharing instances. */
const withSuffix = (text: string, fixture: RealFixture, suffix: string): string => rename(text, fixture.instances.map((i) => i.instanceId), suffix);

type Served = Snapshot;
const outline = (index: ExpectedIndex | Served) => ({
  instances: index.instances.map((i) => [i.id, i.status, i.start_time, i.end_time, i.placeholder]),
  tasks: index.tasks.map((t) => [t.id, t.status, t.start_time, t.end_time, t.error_type]),
});

for (const format of REAL_FORMATS) {
  describe.skipIf(!available)(`real Quarkus Flow output, ${format} (real PostgreSQL)`, () => {
    const fixture = realFixture(format);
    const expected = expectedIndex(fixture.events);
    const instanceIds = fixture.instances.map((i) => i.instanceId);
    let db: TestDatabase;
    let paths: DeliveryPaths;
    let run = 0;

    const nextSuffix = (name: string): string => `~${name}${String(run++).padStart(2, '0')}`;
    const served = (suffix: string): Promise<Served> => paths.served(instanceIds, suffix);
    const asForwarder = (statements: readonly string[]): Promise<void> => paths.asForwarder(statements);
    const ingestText = (_name: string, content: string | Buffer): Promise<void> => paths.ingestFile(content);
    const printed = (suffix: string, seed: number): PrintedLine[] => {
      const lines = withSuffix(fixture.stdout.toString('utf8'), fixture, suffix).split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      return printedLines(lines, seeded(seed));
    };
    /** The event lines (suffixed) as a forwarder without filters would send them. */
    const rawRecords = (suffix: string, recordTime: (line: string, i: number) => string, metadata?: (i: number) => string): RawRecord[] =>
      fixture.eventLines.map((l, i) => {
        const line = withSuffix(l, fixture, suffix);
        return { line, recordTime: recordTime(line, i), ...(metadata ? { metadata: metadata(i) } : {}) };
      });
    const eventTimeText = (line: string): string => recordTimeText(lineTimeNanos(line));

    /** Every delivery must serve the runtime's own final statuses and exactly the oracle's rows. */
    const expectRealResult = async (suffix: string): Promise<void> => {
      const got = await served(suffix);
      expect(Object.fromEntries(got.instances.map((i) => [fixture.instances.find((x) => x.instanceId === i.id)?.label ?? i.id, i.status])))
        .toEqual(Object.fromEntries(fixture.outcomes.map((o) => [o.label, o.status])));
      expect(outline(got)).toEqual(outline(expected));
      expect(got).toEqual(expected);
      expect(await paths.ingestErrors(suffix)).toEqual([]);
    };

    beforeAll(async () => {
      db = await createTestDatabase();
      paths = await deliveryPaths(db, `real_${format.replace('-', '_')}`);
    }, 60_000);
    afterAll(async () => {
      await paths?.close();
      await db?.drop();
      if (paths) await dropLoginRoles(paths.forwarderRole);
    });

    it('the oracle agrees with the runtime on every final status, and the stream has no ties at one position', () => {
      expect(fixture.instances).toHaveLength(21);
      expect(fixture.events).toHaveLength(181);
      expect(Object.fromEntries(expected.instances.map((i) => [fixture.instances.find((x) => x.instanceId === i.id)!.label, i.status])))
        .toEqual(Object.fromEntries(fixture.outcomes.map((o) => [o.label, o.status])));
      expect(expected.tasks).toHaveLength(41);
      expect(tiedInstants(fixture.events)).toEqual([]);
    });

    it('serves what the workflows really did: loops, retries, forks, try/catch, nested faults, payloads', () => {
      const label = (l: string) => fixture.instances.find((i) => i.label === l)!.instanceId;
      const tasksOf = (l: string) => expected.tasks.filter((t) => t.instance_id === label(l));
      expect(tasksOf('c-for-loop').filter((t) => t.task_position.endsWith('handleItem')).map((t) => [t.execution_index, t.status, t.output]))
        .toEqual([[1, 'COMPLETED', { lastItem: 'alpha' }], [2, 'COMPLETED', { lastItem: 'beta' }], [3, 'COMPLETED', { lastItem: 'gamma' }]]);
      expect(tasksOf('f-retry-twice').filter((t) => t.task_position.endsWith('flakyCall')).map((t) => [t.execution_index, t.status, t.error_status]))
        .toEqual([[1, 'FAULTED', 503], [2, 'FAULTED', 503], [3, 'COMPLETED', null]]);
      expect(tasksOf('b3-nested-fault').map((t) => [t.task_position, t.status, t.error_instance]))
        .toEqual([['do/0/reserveStock/do', 'FAULTED', 'do/0/reserveStock/do/0/checkWarehouse'], ['do/0/reserveStock/do/0/checkWarehouse', 'FAULTED', 'do/0/reserveStock/do/0/checkWarehouse']]);
      expect(tasksOf('e-try-catch').map((t) => [t.task_position, t.status]).sort()).toEqual([
        ['do/0/guardedCharge/catch/do/0/useFallback', 'COMPLETED'], ['do/0/guardedCharge/try', 'COMPLETED'],
        ['do/0/guardedCharge/try/0/chargeCard', 'FAULTED'], ['do/1/confirm', 'COMPLETED']]);
      expect(tasksOf('d-fork').map((t) => t.task_position).sort()).toEqual([
        'do/0/notifyCustomer/branch', 'do/0/notifyCustomer/branch/0/emailCustomer', 'do/0/notifyCustomer/branch/1/smsCustomer']);
      expect(tasksOf('g4-cancel-during-wait').map((t) => [t.task_name, t.status])).toEqual([['holdOn', 'CANCELLED']]);
      const b2 = expected.instances.find((i) => i.id === label('b2-java-exception'))!;
      expect([b2.status, b2.error_type, b2.error_status, b2.error_instance]).toEqual(['FAULTED', 'java.lang.IllegalStateException', 500, null]);
      // The producer printed a NUL escape inside a payload: served with the line repair's U+FFFD.
      expect((expected.tasks.find((t) => t.instance_id === label('i-unicode'))!.input as Record<string, unknown>)['nul']).toBe('x\uFFFDy');
    });

    it('JSONL of the event lines through init-job ingest', async () => {
      const suffix = nextSuffix('jsonl');
      await ingestText('events', `${fixture.eventLines.map((l) => withSuffix(l, fixture, suffix)).join('\n')}\n`);
      await expectRealResult(suffix);
      // A replay tool writes the bytes it read: payload numbers keep every digit.
      const id = `${fixture.instances.find((i) => i.label === 'i-unicode')!.instanceId}${suffix}`;
      const numbers = await db.pool.query(`SELECT input->'numbers' #>> '{}' AS n FROM workflow_index.workflow_instances WHERE id = $1`, [id]);
      expect(JSON.parse(String(numbers.rows[0]?.n)).length).toBe(6);
      expect(String(numbers.rows[0]?.n)).toContain('12345678901234567890');
    }, 60_000);

    it('the whole stdout.log (banner, log lines, stack traces, a non-event JSON line) through init-job ingest', async () => {
      const suffix = nextSuffix('stdout');
      await ingestText('stdout', withSuffix(fixture.stdout.toString('utf8'), fixture, suffix));
      await expectRealResult(suffix);
    }, 60_000);

    it('a CRI container log as containerd writes it (16 KiB parts, RFC3339Nano times) through init-job ingest', async () => {
      const suffix = nextSuffix('cri');
      await ingestText('cri', criLog(printed(suffix, 11)));
      await expectRealResult(suffix);
    }, 60_000);

    it('a CRI log cut into 1 KiB parts (byte offsets inside UTF-8 characters) through init-job ingest', async () => {
      // No real line reaches 16 KiB (the longest is ~8.3 KB), so the runtime's P/F join is exercised on the real
      // bytes with a smaller part size.
      const suffix = nextSuffix('cri1k');
      await ingestText('cri1k', criLog(printed(suffix, 12), 1024));
      await expectRealResult(suffix);
    }, 60_000);

    it('the Fluent Bit pipeline model reading the CRI log, its pgsql statements sent as the forwarder login', async () => {
      const suffix = nextSuffix('fb');
      expect(await paths.viaFluentBit(criLog(printed(suffix, 13)), 10)).toBe(181);
      await expectRealResult(suffix);
    }, 60_000);

    it('a forwarder without filters: the printed bytes in a shuffled order and random flush sizes', async () => {
      const suffix = nextSuffix('raw');
      const random = seeded(14);
      const records = shuffled(rawRecords(suffix, eventTimeText), random);
      await asForwarder(rawFlushes(records, [1, 7, 30, 3, 64]));
      await expectRealResult(suffix);
    }, 60_000);

    it('replayed with shifted record times and other forwarder metadata changes nothing', async () => {
      const suffix = nextSuffix('replay');
      const random = seeded(15);
      await asForwarder(rawFlushes(rawRecords(suffix, eventTimeText), [40]));
      // Another node re-reads retained logs: record times an hour later, runtime metadata, another key order.
      const replay = rawRecords(suffix, (line) => (Number(eventTimeText(line)) + 3600.25).toPrecision(16), (i) =>
        `"time":"2026-11-23T14:45:2${i % 10}.${String(i).padStart(9, '1')}Z","stream":"stdout","_p":"F","logtag":"F","kubernetes":{"pod_name":"${POD}","namespace_name":"workflows","host":"node-${i % 3}"}`);
      await asForwarder(rawFlushes(shuffled(replay, random), [13, 5]));
      // And once more through init-job ingest (record time = the event's own timestamp).
      await ingestText('replay', `${fixture.eventLines.map((l) => withSuffix(l, fixture, suffix)).reverse().join('\n')}\n`);
      await expectRealResult(suffix);
    }, 60_000);

    it('backfill: a Fluent-Bit-shaped delivery, then init-job ingest of the same events (other record times), gives the rows of one clean delivery', async () => {
      const suffix = nextSuffix('backfill');
      await paths.viaFluentBit(criLog(printed(suffix, 16)), 25);
      const first = await served(suffix);
      await ingestText('backfill', `${fixture.eventLines.map((l) => withSuffix(l, fixture, suffix)).join('\n')}\n`);
      await ingestText('backfill-cri', criLog(printed(suffix, 17)));
      expect(outline(await served(suffix))).toEqual(outline(first));
      await expectRealResult(suffix);
    }, 60_000);

    it('every path gives identical rows', async () => {
      // Each test above compared its own delivery with the oracle; here one database holds two deliveries of each
      // kind side by side and their full snapshots are compared with each other.
      const a = nextSuffix('same');
      const b = nextSuffix('same');
      await ingestText('same-a', criLog(printed(a, 18)));
      await paths.viaFluentBit(criLog(printed(b, 19)), 7);
      expect(await served(b)).toEqual(await served(a));
    }, 60_000);
  });
}
