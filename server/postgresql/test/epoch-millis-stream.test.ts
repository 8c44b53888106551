// Long loops as a real producer prints them with `timestamp-format=epoch-millis` (one iteration's end and the next
// start in the same millisecond, fast tasks starting and ending in one millisecond), and the same runs in the
// producer's µs (epoch-seconds) and nanosecond (iso8601) precisions: the served executions must be the oracle's
// for every precision, from the events alone — through JSONL (no runtime time to break ties), CRI container logs,
// the Fluent Bit model and a filterless forwarder in any order.
import { afterAll, describe, expect } from 'vitest';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import type { TestDatabase } from './support/test-database.js';
import { canonicalJson, expectedIndex } from '@workflow-index/testkit';
import { criLog } from '@workflow-index/testkit';
import { rawFlushes } from './support/raw-statement.js';
import { seededRandom, shuffled } from '@workflow-index/testkit';
import { deliveryPaths, lineTimeNanos, printedLines, recordTimeText, withSuffix, type DeliveryPaths, type Snapshot } from './support/delivery-paths.js';
import { loopStream, uuidV3, type LoopStream, type ProducerTimeFormat } from '@workflow-index/testkit';
import { realFixture } from '@workflow-index/testkit';

const FORMATS: readonly ProducerTimeFormat[] = ['epoch-millis', 'epoch-seconds', 'iso8601'];

const keysByType = (lines: readonly string[]): Map<string, string> => {
  const map = new Map<string, string>();
  for (const l of lines) {
    const e = JSON.parse(l) as Record<string, unknown>;
    map.set(`${String(e['eventType'])} ${'input' in e || 'output' in e ? 'payload' : 'bare'}`, Object.keys(e).join(','));
  }
  return map;
};

describe('the long-loop generator reproduces the real producer', () => {
  it('prints every event type with the real fixture\'s field names, order and status values', () => {
    const real = keysByType(realFixture('epoch-seconds').eventLines);
    const generated = keysByType(loopStream({ seed: 1, format: 'epoch-millis', items: 5 }).lines);
    expect(generated.size).toBeGreaterThanOrEqual(5);
    for (const [type, keys] of generated) expect([type, keys]).toEqual([type, real.get(type)]);
  });

  it('derives taskExecutionId as the producer does (UUIDv3 of instance:position:epoch millis) — checked on the real output', () => {
    for (const line of realFixture('epoch-seconds').eventLines) {
      const e = JSON.parse(line) as Record<string, unknown>;
      if (typeof e['taskExecutionId'] !== 'string') continue;
      const millis = lineTimeNanos(line) / 1_000_000n;
      expect(uuidV3(`${String(e['instanceId'])}:${String(e['taskPosition'])}:${millis}`)).toBe(e['taskExecutionId']);
    }
    const s = loopStream({ seed: 2, format: 'epoch-millis', items: 20 });
    for (const e of s.events.filter((x) => typeof x['taskExecutionId'] === 'string')) {
      expect(e['taskExecutionId']).toBe(uuidV3(`${String(e['instanceId'])}:${String(e['taskPosition'])}:${String(e['timestamp'])}`));
    }
  });

  it('prints the three precisions of one run: epoch millis, Java doubles, nine-digit ISO', () => {
    const [millis, seconds, iso] = FORMATS.map((format) => loopStream({ seed: 3, format, items: 10 }).lines[3]!);
    expect(millis).toMatch(/"startTime":\d{13},.*"timestamp":\d{13},/);
    expect(seconds).toMatch(/"startTime":1\.\d{8,16}E9,.*"timestamp":1\.\d{8,16}E9,/);
    expect(iso).toMatch(/"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"/);
    expect(loopStream({ seed: 3, format: 'iso8601', items: 10 }).lines.map((l) => l.replace(/"(timestamp|startTime|endTime|lastUpdateTime)":"[^"]*"/g, '')))
      .toEqual(loopStream({ seed: 3, format: 'epoch-millis', items: 10 }).lines.map((l) => l.replace(/"(timestamp|startTime|endTime|lastUpdateTime)":\d+/g, '')));
  });

  it('shares a millisecond between an end and the next start as often as the real 300-item loop (107), and within fast tasks', () => {
    const s = loopStream({ seed: 4, format: 'epoch-millis', items: 300 });
    expect(s.ties.endThenStart).toBeGreaterThanOrEqual(80);
    expect(s.ties.startAndEnd).toBeGreaterThanOrEqual(60);
    expect(expectedIndex(s.events).tasks).toHaveLength(302);
  });
});

describePostgres('long loops in every producer precision (real PostgreSQL)', () => {
  let db: TestDatabase;
  let paths: DeliveryPaths;
  let run = 0;
  it.beforeAll(async ({ database, loginRoles }) => {
    db = database;
    paths = await deliveryPaths(db, 'loops');
    loginRoles.dropAtEnd(paths.forwarderRole);
  }, 60_000);
  afterAll(async () => {
    await paths?.close();
  });

  /** Each path delivers the stream under its own suffix; returns what was served for it. */
  const deliver = async (stream: LoopStream, path: 'jsonl' | 'cri' | 'fluent-bit' | 'raw-shuffled', seed: number): Promise<Snapshot> => {
    const suffix = `~l${String(run++).padStart(3, '0')}`;
    const lines = stream.lines.map((l) => withSuffix(l, stream.instanceIds, suffix));
    const random = seededRandom(seed);
    switch (path) {
      case 'jsonl':
        await paths.ingestFile(`${lines.join('\n')}\n`);
        break;
      case 'cri':
        await paths.ingestFile(criLog(printedLines(lines, random)));
        break;
      case 'fluent-bit':
        expect(await paths.viaFluentBit(criLog(printedLines(lines, random)), 50)).toBe(lines.length);
        break;
      case 'raw-shuffled':
        await paths.asForwarder(rawFlushes(shuffled(lines.map((line) => ({ line, recordTime: recordTimeText(lineTimeNanos(line)) })), random), [1, 17, 64, 5]));
        break;
    }
    expect(await paths.ingestErrors(suffix)).toEqual([]);
    return paths.served(stream.instanceIds, suffix);
  };
  const outline = (s: Snapshot) => s.tasks.map((t) => [t.id, t.status, t.start_time, t.end_time]);

  for (const format of FORMATS) {
    for (const payloads of format === 'epoch-millis' ? [true, false] : [true]) {
      it(`${format}${payloads ? ', task payloads' : ', no payloads'}: every path serves the oracle's executions`, async () => {
        const stream = loopStream({ seed: 40 + FORMATS.indexOf(format), format, payloads, items: 300 });
        const expected = expectedIndex(stream.events);
        expect(expected.tasks).toHaveLength(302);
        for (const [i, path] of (['jsonl', 'cri', 'fluent-bit', 'raw-shuffled'] as const).entries()) {
          const got = await deliver(stream, path, 100 + i);
          expect([path, outline(got)]).toEqual([path, outline(expected)]);
          expect([path, got]).toEqual([path, expected]);
        }
      }, 120_000);
    }
  }

  it('epoch-millis without payloads, three events of one position in one millisecond: identical lines are one event, and the rows are the oracle\'s', async () => {
    const stream = loopStream({ seed: 50, format: 'epoch-millis', payloads: false, chains: true, items: 300 });
    const expected = expectedIndex(stream.events);
    // The producer cannot tell these iterations apart either: fewer executions than iterations.
    expect(expected.tasks.length).toBeLessThan(302);
    for (const [i, path] of (['jsonl', 'fluent-bit', 'raw-shuffled'] as const).entries()) {
      expect([path, outline(await deliver(stream, path, 200 + i))]).toEqual([path, outline(expected)]);
    }
  }, 120_000);

  it('epoch-millis with payloads and same-millisecond chains: every path gives the same rows, with the oracle\'s times and statuses', async () => {
    // Which start an end of such a chain belongs to is decided by the fixed content order, not by the events'
    // meaning, so payload pairing is not asserted against the oracle here; everything else is.
    const stream = loopStream({ seed: 60, format: 'epoch-millis', payloads: true, chains: true, items: 300 });
    const expected = expectedIndex(stream.events);
    const first = await deliver(stream, 'jsonl', 300);
    expect(outline(first)).toEqual(outline(expected));
    // Object key order is not significant (CONTRACT): compare payloads by their canonical JSON.
    const sorted = (values: unknown[]) => values.map((v) => canonicalJson(v)).sort();
    expect(sorted(first.tasks.map((t) => t.input))).toEqual(sorted(expected.tasks.map((t) => t.input)));
    expect(sorted(first.tasks.map((t) => t.output))).toEqual(sorted(expected.tasks.map((t) => t.output)));
    for (const [i, path] of (['cri', 'fluent-bit', 'raw-shuffled'] as const).entries()) {
      expect([path, await deliver(stream, path, 301 + i)]).toEqual([path, first]);
    }
  }, 120_000);
});
