import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import {
  ingestEventLogs,
  IngestError,
  type IngestSummary,
  type SqlExecutor,
} from '../src/event-log-ingest.js';
import { fluentBitInsertStatementForTexts, withRecordTimeFirst } from '../src/fluent-bit-statement.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/test-database.js';
import { FIXTURE_PATH } from '@workflow-index/testkit';
import { snapshot } from './support/load-events.js';

const available = await postgresReachable();
const dir = mkdtempSync(join(tmpdir(), 'wi-ingest-'));

// ---- a CRI container log: a > 40 KiB event split by the runtime into P, P, F parts at byte offsets that fall
// inside multi-byte characters, interleaved with stderr lines, plain log lines and app JSON logs. ----
const BIG_ID = '01KRE0CRIBIGPAYLOAD000000001';
const bigInput = {
  orderId: 'ORD-BIG-01', // length chosen so both 16 KiB cuts fall inside a character
  text: `${'東'.repeat(6000)}é "quoted" \\ back\nslash ${'📦'.repeat(2000)}`,
  items: Array.from({ length: 300 }, (_, i) => ({ i, sku: `SKU-${i}`, note: 'ünïcödé "q" \\ ' + 'x'.repeat(i % 7) })),
};
const t0 = 1778578000;
const criEvents = {
  statusChanged: { instanceId: BIG_ID, eventType: 'io.serverlessworkflow.workflow.status-changed.v1', timestamp: t0 + 0.1, status: 'RUNNING', lastUpdateTime: t0 + 0.1 },
  started: {
    input: bigInput, instanceId: BIG_ID, workflowNamespace: 'com.acme.big', workflowName: 'big-payload', startTime: t0 + 0.2,
    eventType: 'io.serverlessworkflow.workflow.started.v1', workflowVersion: '1.0.0', timestamp: t0 + 0.2, status: 'RUNNING',
  },
  taskStarted: { instanceId: BIG_ID, taskExecutionId: 'a', taskPosition: 'do/0/load', taskName: 'load', startTime: t0 + 0.3, eventType: 'io.serverlessworkflow.task.started.v1', timestamp: t0 + 0.3, status: 'RUNNING' },
  taskCompleted: { instanceId: BIG_ID, taskExecutionId: 'b', taskPosition: 'do/0/load', taskName: 'load', endTime: t0 + 0.4, eventType: 'io.serverlessworkflow.task.completed.v1', timestamp: t0 + 0.4, status: 'COMPLETED' },
  completed: { output: { ok: true }, instanceId: BIG_ID, eventType: 'io.serverlessworkflow.workflow.completed.v1', endTime: t0 + 0.5, timestamp: t0 + 0.5, status: 'COMPLETED' },
};
const startedBytes = Buffer.from(JSON.stringify(criEvents.started), 'utf8');
const parts = [startedBytes.subarray(0, 16384), startedBytes.subarray(16384, 32768), startedBytes.subarray(32768)];
const criLine = (time: string, stream: 'stdout' | 'stderr', tag: 'P' | 'F', content: string | Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${time} ${stream} ${tag} `), typeof content === 'string' ? Buffer.from(content, 'utf8') : content, Buffer.from('\n')]);
const criLines: Buffer[] = [
  /* 1 */ criLine('2026-05-12T09:26:39.900000000Z', 'stdout', 'F', '2026-05-12 09:26:39,900 INFO  [io.quarkus] (main) big-app 1.0.0 started in 1.2s'),
  /* 2 */ criLine('2026-05-12T09:26:39.950000000Z', 'stdout', 'F', '{"timestamp":"2026-05-12T09:26:39.95Z","level":"INFO","loggerName":"app","message":"ready"}'),
  /* 3 */ criLine('2026-05-12T09:26:40.100000000Z', 'stdout', 'F', JSON.stringify(criEvents.statusChanged)),
  /* 4 */ criLine('2026-05-12T09:26:40.123456000Z', 'stdout', 'P', parts[0]!),
  /* 5 */ criLine('2026-05-12T09:26:40.123500000Z', 'stderr', 'F', 'WARN  [io.netty] (worker) connection reset by peer'),
  /* 6 */ criLine('2026-05-12T09:26:40.123456000Z', 'stdout', 'P', parts[1]!),
  /* 7 */ criLine('2026-05-12T09:26:40.123600000Z', 'stderr', 'F', '{"level":"WARN","message":"slow consumer"}'),
  /* 8 */ criLine('2026-05-12T09:26:40.123456000Z', 'stdout', 'F', parts[2]!),
  /* 9 */ criLine('2026-05-12T09:26:40.250000000Z', 'stdout', 'F', '{"eventType":"io.serverlessworkflow.task.started.v1","instanceId":"01KRE0CRIBIG'),
  /* 10 */ criLine('2026-05-12T09:26:40.300000000Z', 'stdout', 'F', JSON.stringify(criEvents.taskStarted)),
  /* 11 */ criLine('2026-05-12T09:26:40.350000000Z', 'stdout', 'F', '\tat io.serverlessworkflow.impl.WorkflowApplication.run(WorkflowApplication.java:88)'),
  /* 12 */ criLine('2026-05-12T09:26:40.400000000Z', 'stdout', 'F', JSON.stringify(criEvents.taskCompleted)),
  /* 13 */ criLine('2026-05-12T09:26:40.500000000Z', 'stdout', 'F', JSON.stringify(criEvents.completed)),
  /* 14 */ criLine('2026-05-12T09:26:40.600000000Z', 'stderr', 'F', 'Exception in thread "pool-1" java.lang.IllegalStateException'),
];
const CRI_PATH = join(dir, 'big-app_workflows_app-0123.log');
writeFileSync(CRI_PATH, Buffer.concat(criLines));

const fast = { retry: { initialDelayMs: 1, maxDelayMs: 2 } };

async function count(db: TestDatabase, sql: string): Promise<number> {
  const res = await db.pool.query<{ n: string }>(sql);
  return Number(res.rows[0]?.n);
}

describe('the Fluent Bit statement for pre-serialized records', () => {
  it('puts the record time key first and keeps the object text as it is', () => {
    expect(withRecordTimeFirst(' {"b":1.0, "a":12345678901234567890} ', 1778578000.25)).toBe('{"wi_record_time":1778578000.25,"b":1.0, "a":12345678901234567890}');
    expect(withRecordTimeFirst('{ }', 1)).toBe('{"wi_record_time":1}');
    expect(() => withRecordTimeFirst('[1]', 1)).toThrow('a record must be a JSON object');
    expect(() => withRecordTimeFirst('{}', Number.NaN)).toThrow('record time must be finite, got NaN');
  });

  it('is the pgsql output statement, escaped as libpq does', () => {
    expect(fluentBitInsertStatementForTexts('workflow_raw.task_events_raw', 'workflow.task', ['{"wi_record_time":1,"a":"it\'s \\u00e9"}', '{"wi_record_time":2}'])).toBe(
      `INSERT INTO workflow_raw.task_events_raw SELECT 'workflow.task', to_timestamp(CAST(value->>'wi_record_time' as FLOAT)), * FROM json_array_elements( E'[{"wi_record_time":1,"a":"it''s \\\\u00e9"},{"wi_record_time":2}]');`,
    );
  });
});

describe('the generated CRI file', () => {
  it('really splits the event inside multi-byte characters and is over 40 KiB', () => {
    expect(startedBytes.length).toBeGreaterThan(40 * 1024);
    expect(parts[0]!.toString('utf8')).toContain('\ufffd');
    expect(parts[1]!.toString('utf8')).toContain('\ufffd');
  });
});

describe.skipIf(!available)('ingestEventLogs (real PostgreSQL)', () => {
  const databases: TestDatabase[] = [];
  const fresh = async (migrated = true): Promise<TestDatabase> => {
    const db = await createTestDatabase({ migrated, prefix: 'wi_ingest' });
    databases.push(db);
    return db;
  };
  afterAll(async () => {
    await Promise.all(databases.map((d) => d.drop()));
  });

  describe('the fixture file', () => {
    let db: TestDatabase;
    let summary: IngestSummary;
    const progress: number[] = [];
    beforeAll(async () => {
      db = await fresh();
      summary = await ingestEventLogs(db.pool, [FIXTURE_PATH], { onProgress: (p) => progress.push(p.eventsWritten) });
    });

    it('writes 36 workflow and 44 task raw rows, tagged like the Fluent Bit routing', async () => {
      expect(summary).toMatchObject({
        sources: 1, linesRead: 80, eventsWritten: { workflow_events_raw: 36, task_events_raw: 44, total: 80 },
        batches: 2, retries: 0, skipped: 0, malformed: 0, malformedSamples: [], rejected: 0, rejectedSamples: [],
      });
      const tags = await db.pool.query(`SELECT 'workflow' AS t, tag, count(*)::int AS n FROM workflow_raw.workflow_events_raw GROUP BY tag
                                        UNION ALL SELECT 'task', tag, count(*)::int FROM workflow_raw.task_events_raw GROUP BY tag ORDER BY 1`);
      expect(tags.rows).toEqual([{ t: 'task', tag: 'workflow.task', n: 44 }, { t: 'workflow', tag: 'workflow.instance', n: 36 }]);
    });

    it('normalizes into 8 served instances and 22 task executions', async () => {
      expect(await count(db, 'SELECT count(*) AS n FROM workflow_index.workflow_instances WHERE started_event_time IS NOT NULL')).toBe(8);
      expect(await count(db, 'SELECT count(*) AS n FROM workflow_index.task_executions')).toBe(22);
      expect(await count(db, 'SELECT count(*) AS n FROM workflow_index.ingest_errors')).toBe(0);
    });

    it('uses the event timestamp as the record time when the line has no runtime time', async () => {
      const res = await db.pool.query(`SELECT to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS t FROM workflow_raw.workflow_events_raw ORDER BY id LIMIT 1`);
      expect(res.rows[0]).toEqual({ t: '2026-05-12T09:14:03.512337' }); // timestamp 1.778577243512337E9
      expect(progress.at(-1)).toBe(80);
    });
  });

  describe('a CRI log with a split event, noise and a malformed line', () => {
    let db: TestDatabase;
    let summary: IngestSummary;
    beforeAll(async () => {
      db = await fresh();
      summary = await ingestEventLogs(db.pool, [CRI_PATH]);
    });

    it('counts lines, events, skipped and malformed lines exactly and names the malformed line', () => {
      expect(summary).toMatchObject({
        linesRead: 14, eventsWritten: { workflow_events_raw: 3, task_events_raw: 2, total: 5 }, skipped: 6, malformed: 1, rejected: 0,
      });
      expect(summary.malformedSamples).toEqual([{ source: CRI_PATH, line: 9, reason: expect.stringMatching(/^invalid JSON: /) }]);
    });

    it('joins the P, P, F parts byte-exactly: the stored input equals the payload', async () => {
      const res = await db.pool.query('SELECT input, name, status FROM workflow_index.workflow_instances WHERE id = $1', [BIG_ID]);
      expect(res.rows).toHaveLength(1);
      expect(res.rows[0].input).toEqual(bigInput);
      expect([res.rows[0].name, res.rows[0].status]).toEqual(['big-payload', 'COMPLETED']);
      const raw = await db.pool.query(`SELECT data FROM workflow_raw.workflow_events_raw WHERE data->>'eventType' LIKE '%.started.v1'`);
      const { wi_record_time: _recordTime, ...stored } = raw.rows[0].data as Record<string, unknown>;
      expect(stored).toEqual(criEvents.started);
    });

    it('uses the runtime time of the first part as the record time', async () => {
      const res = await db.pool.query(
        `SELECT to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') AS t FROM workflow_raw.workflow_events_raw WHERE data->>'eventType' LIKE '%.started.v1'`,
      );
      expect(res.rows[0]).toEqual({ t: '2026-05-12T09:26:40.123456' });
    });

    it('normalizes the task execution of the CRI events', async () => {
      const res = await db.pool.query('SELECT id, status FROM workflow_index.task_executions WHERE instance_id = $1', [BIG_ID]);
      expect(res.rows).toEqual([{ id: `${BIG_ID}:do/0/load`, status: 'COMPLETED' }]);
    });
  });

  it('batch sizes 1 and 7 give the same normalized rows as 500', async () => {
    const results: Array<{ batches: number; state: Awaited<ReturnType<typeof snapshot>> }> = [];
    for (const batchSize of [500, 7, 1]) {
      const db = await fresh();
      const s = await ingestEventLogs(db.pool, [FIXTURE_PATH, CRI_PATH], { batchSize });
      expect(s.eventsWritten).toEqual({ workflow_events_raw: 39, task_events_raw: 46, total: 85 });
      results.push({ batches: s.batches, state: await snapshot(db.pool) });
    }
    expect(results.map((r) => r.batches)).toEqual([2, 6 + 7, 85]);
    expect(results[0]!.state.instances).toHaveLength(9);
    expect(results[0]!.state.tasks).toHaveLength(23);
    expect(results[1]!.state).toEqual(results[0]!.state);
    expect(results[2]!.state).toEqual(results[0]!.state);
  });

  it('reports events the normalizer rejects with their file and line, without failing', async () => {
    const db = await fresh();
    const file = join(dir, 'rejected.jsonl');
    const good = { instanceId: 'REJ-1', eventType: 'io.serverlessworkflow.workflow.status-changed.v1', timestamp: t0, status: 'RUNNING' };
    const bad = { instanceId: 'REJ-1', eventType: 'io.serverlessworkflow.workflow.started.v1', timestamp: 'yesterday', workflowName: 'w' };
    writeFileSync(file, ['plain text', JSON.stringify(good), JSON.stringify(bad), ''].join('\n'));
    const s = await ingestEventLogs(db.pool, [file]);
    expect(s.rejected).toBe(1);
    const rawId = await count(db, `SELECT id AS n FROM workflow_raw.workflow_events_raw WHERE data->>'timestamp' = 'yesterday'`);
    expect(s.rejectedSamples).toEqual([
      { table: 'workflow_events_raw', rawId, location: `${file}:3`, eventType: 'io.serverlessworkflow.workflow.started.v1', reason: 'timestamp "yesterday" is not a valid time' },
    ]);
    expect(s.eventsWritten.total).toBe(2);
    // A second run counts only its own rejections.
    const again = await ingestEventLogs(db.pool, [FIXTURE_PATH]);
    expect(again.rejected).toBe(0);
  });

  it('a NUL character in a payload (JSONB cannot hold it) becomes U+FFFD instead of failing the batch', async () => {
    const db = await fresh();
    const file = join(dir, 'nul.jsonl');
    const started = { instanceId: 'NUL-1', eventType: 'io.serverlessworkflow.workflow.started.v1', timestamp: t0, startTime: t0, status: 'RUNNING', workflowName: 'w', input: { note: 'a\u0000b', list: ['\u0000'] } };
    const other = { instanceId: 'NUL-2', eventType: 'io.serverlessworkflow.workflow.started.v1', timestamp: t0, startTime: t0, status: 'RUNNING', workflowName: 'w' };
    writeFileSync(file, [JSON.stringify(started), JSON.stringify(other), ''].join('\n'));
    expect(readFileSync(file, 'utf8')).toContain('\\u0000');
    const s = await ingestEventLogs(db.pool, [file]);
    expect(s.eventsWritten.total).toBe(2);
    const rows = await db.pool.query(`SELECT id, input FROM workflow_index.workflow_instances ORDER BY id`);
    expect(rows.rows).toEqual([{ id: 'NUL-1', input: { note: 'a\uFFFDb', list: ['\uFFFD'] } }, { id: 'NUL-2', input: null }]);
  });

  it('reads Docker json-file lines from stdin, joining partial records', async () => {
    const db = await fresh();
    const line = JSON.stringify(criEvents.started);
    const docker = [
      JSON.stringify({ log: 'starting\n', stream: 'stdout', time: '2026-05-12T09:26:39.000000001Z' }),
      JSON.stringify({ log: line.slice(0, 20000), stream: 'stdout', time: '2026-05-12T09:26:40.5Z' }),
      JSON.stringify({ log: 'oops\n', stream: 'stderr', time: '2026-05-12T09:26:40.6Z' }),
      JSON.stringify({ log: `${line.slice(20000)}\n`, stream: 'stdout', time: '2026-05-12T09:26:40.5Z' }),
      JSON.stringify({ log: `${JSON.stringify(criEvents.completed)}\n`, stream: 'stdout', time: '2026-05-12T09:26:41Z' }),
    ].join('\n');
    const s = await ingestEventLogs(db.pool, ['-'], { stdin: Readable.from([Buffer.from(docker, 'utf8')]) });
    expect(s).toMatchObject({ linesRead: 5, skipped: 2, malformed: 0, eventsWritten: { total: 2 } });
    const res = await db.pool.query(`SELECT input FROM workflow_index.workflow_instances WHERE id = $1`, [BIG_ID]);
    expect(res.rows[0].input).toEqual(bigInput);
    const raw = await db.pool.query(`SELECT to_char(time AT TIME ZONE 'UTC', 'HH24:MI:SS.US') AS t FROM workflow_raw.workflow_events_raw ORDER BY id`);
    expect(raw.rows).toEqual([{ t: '09:26:40.500000' }, { t: '09:26:41.000000' }]);
  });

  it('decompresses .gz files and honours the event type prefix', async () => {
    const db = await fresh();
    const gz = join(dir, 'events.jsonl.gz');
    writeFileSync(gz, gzipSync(readFileSync(FIXTURE_PATH)));
    const other = await ingestEventLogs(db.pool, [gz], { eventTypePrefix: 'io.example.' });
    expect(other).toMatchObject({ linesRead: 80, skipped: 80, batches: 0, eventsWritten: { total: 0 } });
    const s = await ingestEventLogs(db.pool, [gz]);
    expect(s.eventsWritten).toEqual({ workflow_events_raw: 36, task_events_raw: 44, total: 80 });
  });

  it('retries a batch after a deadlock and writes it once', async () => {
    const db = await fresh();
    let failures = 2;
    const flaky: SqlExecutor = {
      query: async (text, values) => {
        if (text.includes('INSERT INTO') && failures-- > 0) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        return db.pool.query(text, values);
      },
    };
    const retried: string[] = [];
    const s = await ingestEventLogs(flaky, [FIXTURE_PATH], { ...fast, onRetry: (r) => retried.push(`${r.attempt}: ${r.reason}`) });
    expect(s.retries).toBe(2);
    expect(retried).toEqual(['1: deadlock detected', '2: deadlock detected']);
    expect(await count(db, 'SELECT count(*) AS n FROM workflow_raw.workflow_events_raw')).toBe(36);
    expect(await count(db, 'SELECT count(*) AS n FROM workflow_index.workflow_instances WHERE started_event_time IS NOT NULL')).toBe(8);
  });

  it('gives up after the bounded retries, naming the file and line range', async () => {
    const db = await fresh();
    const down: SqlExecutor = {
      query: async (text, values) => {
        if (text.includes('INSERT INTO')) throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
        return db.pool.query(text, values);
      },
    };
    const error = await ingestEventLogs(down, [FIXTURE_PATH], { ...fast, retry: { attempts: 3, initialDelayMs: 1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestError);
    expect((error as IngestError).message).toBe(
      `writing 36 workflow event(s) from ${FIXTURE_PATH} lines 1–80 failed after 3 attempts: terminating connection due to administrator command`,
    );
    expect((error as IngestError).summary.retries).toBe(2);
  });

  it('aborts on other database errors with the file and line range, without retrying', async () => {
    const db = await fresh(false); // no raw tables
    const file = join(dir, 'three.jsonl');
    writeFileSync(file, ['noise', JSON.stringify(criEvents.statusChanged), JSON.stringify(criEvents.completed), '{}', JSON.stringify(criEvents.statusChanged)].join('\n'));
    const error = await ingestEventLogs(db.pool, [file], fast).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestError);
    expect((error as IngestError).message).toBe(`writing 3 workflow event(s) from ${file} lines 2–5 failed: relation "workflow_raw.workflow_events_raw" does not exist`);
    expect((error as IngestError).summary).toMatchObject({ retries: 0, rejected: null, eventsWritten: { total: 0 }, linesRead: 5 });
  });

  describe('bytes in, the same bytes out', () => {
    // Event lines as a producer prints them, spelled by hand: JSON.stringify would re-print their numbers.
    const T = '1778578000.25';
    const started = (id: string, input: string): string =>
      `{"instanceId":"${id}","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${T},"startTime":${T},"status":"RUNNING",` +
      `"workflowNamespace":"com.acme","workflowName":"exact","workflowVersion":"1.0.0","input":${input}}`;
    const completed = (id: string): string =>
      `{"instanceId":"${id}","eventType":"io.serverlessworkflow.workflow.completed.v1","timestamp":1778578001.5,"endTime":1778578001.5,"status":"COMPLETED","output":{"ok":true}}`;
    const task = (id: string, kind: 'started' | 'completed', at: string): string =>
      `{"instanceId":"${id}","eventType":"io.serverlessworkflow.task.${kind}.v1","timestamp":${at},"${kind === 'started' ? 'startTime' : 'endTime'}":${at},` +
      `"taskPosition":"do/0/charge","taskName":"charge","status":"${kind === 'started' ? 'RUNNING' : 'COMPLETED'}"}`;
    const EXACT_INPUT = '{"big":12345678901234567890,"neg":-98765432109876543210,"d17":0.30000000000000004,"t":1.778577243512337E9,"one":1.0,"s":"\\u00e9\\/"}';

    const dataColumnType = async (db: TestDatabase): Promise<string> =>
      String((await db.pool.query(`SELECT data_type FROM information_schema.columns WHERE table_schema = 'workflow_raw' AND table_name = 'workflow_events_raw' AND column_name = 'data'`)).rows[0]?.data_type);

    it('stores big integers and 17-digit doubles exactly, in the raw row and the served input', async () => {
      const db = await fresh();
      const file = join(dir, 'exact.jsonl');
      const line = started('EXACT-1', EXACT_INPUT);
      writeFileSync(file, `${line}\n${completed('EXACT-1')}\n`);
      const s = await ingestEventLogs(db.pool, [file]);
      expect(s).toMatchObject({ eventsWritten: { total: 2 }, malformed: 0, rejected: 0 });
      const raw = await db.pool.query(`SELECT data::text AS t FROM workflow_raw.workflow_events_raw ORDER BY id LIMIT 1`);
      const rawText = String(raw.rows[0].t);
      for (const literal of ['12345678901234567890', '-98765432109876543210', '0.30000000000000004']) expect(rawText).toContain(literal);
      const served = await db.pool.query(`SELECT input->>'big' AS big, input->>'neg' AS neg, input->>'d17' AS d17, status FROM workflow_index.workflow_instances WHERE id = 'EXACT-1'`);
      expect(served.rows).toEqual([{ big: '12345678901234567890', neg: '-98765432109876543210', d17: '0.30000000000000004', status: 'COMPLETED' }]);
      // A json column keeps the line itself: the record time key first, then every byte of the line.
      if ((await dataColumnType(db)) === 'json') expect(rawText).toBe(`{"wi_record_time":${T},${line.slice(1)}`);
    });

    it('a replay writes identical raw records (the record time comes from the line, not the clock)', async () => {
      const file = join(dir, 'replay.jsonl');
      writeFileSync(file, `${started('REPLAY-1', EXACT_INPUT)}\n${task('REPLAY-1', 'started', '1778578000.5')}\n${completed('REPLAY-1')}\n`);
      const runs: unknown[] = [];
      for (const _ of [1, 2]) {
        const db = await fresh();
        await ingestEventLogs(db.pool, [file]);
        runs.push((await db.pool.query(`SELECT tag, time, data::text AS d FROM workflow_raw.workflow_events_raw UNION ALL SELECT tag, time, data::text FROM workflow_raw.task_events_raw ORDER BY 1, 3`)).rows);
      }
      expect(runs[1]).toEqual(runs[0]);
      expect((runs[0] as unknown[]).length).toBe(3);
    });

    it('every hostile line of the rule, beside good events in the same statements: all written, the good ones served', async () => {
      const db = await fresh();
      const file = join(dir, 'hostile.jsonl');
      const MB2 = 2 * 1024 * 1024;
      const deep = `${'['.repeat(19_999)}${']'.repeat(19_999)}`;
      const lines: Array<string | Buffer> = [
        started('GOOD-1', '{"n":1}'),
        task('GOOD-1', 'started', '1778578000.5'),
        started('H-NUL', '{"k\\u0000":"v\\u0000"}'),
        started('H-SURROGATE', '{"\\ud800":"x\\udc00y","pair":"\\uD83D\\uDE00"}'),
        Buffer.concat([Buffer.from(`${started('H-UTF8', '@').split('@')[0]}{"a":"`), Buffer.from([0xff]), Buffer.from('b'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')]),
        started('H-DEEP', deep),
        started('H-RANGE', '{"n":1e999,"m":-1e-400,"ok":1e308}'),
        started('H-2MB', `{"blob":"${'x'.repeat(MB2)}"}`),
        task('GOOD-1', 'completed', '1778578000.75'),
        completed('GOOD-1'),
        started('GOOD-2', EXACT_INPUT),
        completed('GOOD-2'),
      ];
      writeFileSync(file, Buffer.concat(lines.flatMap((l) => [typeof l === 'string' ? Buffer.from(l, 'utf8') : l, Buffer.from('\n')])));
      expect(Buffer.byteLength(started('H-DEEP', deep))).toBeGreaterThan(40_000);

      const s = await ingestEventLogs(db.pool, [file]);
      expect(s).toMatchObject({ linesRead: 12, eventsWritten: { workflow_events_raw: 10, task_events_raw: 2, total: 12 }, batches: 2, malformed: 0, skipped: 0 });
      // `"ok":1e308` is in range but its exponent has no sign: R7 writes `1e+308` (Fluent Bit 4.0.13 read `1e308` as 1).
      expect(s.repairs).toEqual({ 'invalid-utf8': 1, 'nul-escape': 1, 'lone-surrogate': 1, 'number-overflow': 1, 'nesting-depth': 1, 'number-token': 0, 'exponent-sign': 1 });

      const instances = await db.pool.query(`SELECT id, status FROM workflow_index.workflow_instances WHERE started_event_time IS NOT NULL ORDER BY id`);
      expect(instances.rows).toEqual([
        { id: 'GOOD-1', status: 'COMPLETED' },
        { id: 'GOOD-2', status: 'COMPLETED' },
        { id: 'H-2MB', status: 'RUNNING' },
        { id: 'H-DEEP', status: 'RUNNING' },
        { id: 'H-NUL', status: 'RUNNING' },
        { id: 'H-RANGE', status: 'RUNNING' },
        { id: 'H-SURROGATE', status: 'RUNNING' },
        { id: 'H-UTF8', status: 'RUNNING' },
      ]);
      const tasks = await db.pool.query(`SELECT id, status FROM workflow_index.task_executions ORDER BY id`);
      expect(tasks.rows).toEqual([{ id: 'GOOD-1:do/0/charge', status: 'COMPLETED' }]);
      const inputs = await db.pool.query(`SELECT id, input FROM workflow_index.workflow_instances WHERE id IN ('H-NUL', 'H-SURROGATE', 'H-UTF8', 'H-RANGE') ORDER BY id`);
      expect(inputs.rows).toEqual([
        { id: 'H-NUL', input: { 'k\uFFFD': 'v\uFFFD' } },
        { id: 'H-RANGE', input: { n: '1e999', m: '-1e-400', ok: 1e308 } },
        { id: 'H-SURROGATE', input: { '\uFFFD': 'x\uFFFDy', pair: '\u{1F600}' } },
        { id: 'H-UTF8', input: { a: '\uFFFDb\uFFFD\uFFFD\uFFFD' } },
      ]);
      const big = await db.pool.query(`SELECT length(input->>'blob') AS n FROM workflow_index.workflow_instances WHERE id = 'H-2MB'`);
      expect(big.rows).toEqual([{ n: MB2 }]);
      // 1000 levels stay JSON (the event object is level 1, its input level 2); the 1001st is the string of its text.
      const deepest = await db.pool.query(`SELECT jsonb_typeof(input #> $1) AS kind, length(input #>> $1) AS n FROM workflow_index.workflow_instances WHERE id = 'H-DEEP'`, [
        Array.from({ length: 999 }, () => '0'),
      ]);
      expect(deepest.rows).toEqual([{ kind: 'string', n: 2 * (19_999 - 999) }]);
      expect(await count(db, 'SELECT count(*) AS n FROM workflow_index.ingest_errors')).toBe(0);
    });

    it('joins CRI P/F parts byte-exactly before repairing: a NUL escape split across parts is repaired', async () => {
      const db = await fresh();
      const line = started('CRI-NUL', '{"note":"a\\u0000b"}');
      const cut = line.indexOf('\\u0000') + 4; // the part ends inside the escape: `\u00` | `00`
      const file = join(dir, 'cri-nul.log');
      writeFileSync(file, [
        `2026-05-12T09:26:40.123456789Z stdout P ${line.slice(0, cut)}`,
        `2026-05-12T09:26:40.123456789Z stdout F ${line.slice(cut)}`,
        `2026-05-12T09:26:41.000000000Z stdout F ${completed('CRI-NUL')}`,
        '',
      ].join('\n'));
      const s = await ingestEventLogs(db.pool, [file]);
      expect(s).toMatchObject({ linesRead: 3, eventsWritten: { total: 2 }, malformed: 0 });
      expect(s.repairs['nul-escape']).toBe(1);
      const res = await db.pool.query(`SELECT input, status FROM workflow_index.workflow_instances WHERE id = 'CRI-NUL'`);
      expect(res.rows).toEqual([{ input: { note: 'a\uFFFDb' }, status: 'COMPLETED' }]);
    });

    it('decodes Docker json-file lines from their JSON string, then repairs the event line', async () => {
      const db = await fresh();
      const docker = [
        JSON.stringify({ log: `${started('DOCKER-1', '{"n":1e999,"k":"\\u0000","big":12345678901234567890}')}\n`, stream: 'stdout', time: '2026-05-12T09:26:40.5Z' }),
        JSON.stringify({ log: `${completed('DOCKER-1')}\n`, stream: 'stdout', time: '2026-05-12T09:26:41Z' }),
      ].join('\n');
      const s = await ingestEventLogs(db.pool, ['-'], { stdin: Readable.from([Buffer.from(docker, 'utf8')]) });
      expect(s).toMatchObject({ eventsWritten: { total: 2 }, malformed: 0 });
      expect(s.repairs).toMatchObject({ 'nul-escape': 1, 'number-overflow': 1 });
      const res = await db.pool.query(`SELECT input->>'n' AS n, input->>'k' AS k, input->>'big' AS big FROM workflow_index.workflow_instances WHERE id = 'DOCKER-1'`);
      expect(res.rows).toEqual([{ n: '1e999', k: '\uFFFD', big: '12345678901234567890' }]);
    });

    it('runs each statement with search_path workflow_raw, and leaves the pooled connection as it was', async () => {
      const db = await fresh();
      const seen: string[] = [];
      const recording: SqlExecutor = {
        query: async (text, values) => {
          seen.push(text);
          return db.pool.query(text, values);
        },
      };
      const file = join(dir, 'path.jsonl');
      writeFileSync(file, `${started('PATH-1', '{}')}\n`);
      await ingestEventLogs(recording, [file]);
      const inserts = seen.filter((t) => t.includes('INSERT INTO'));
      expect(inserts).toHaveLength(1);
      expect(inserts[0]).toMatch(/^SET LOCAL search_path = workflow_raw; INSERT INTO workflow_raw\.workflow_events_raw SELECT 'workflow\.instance', /);
      const paths = await Promise.all([1, 2, 3, 4].map(async () => (await db.pool.query('SHOW search_path')).rows[0].search_path as string));
      expect(new Set(paths)).toEqual(new Set(['"$user", public']));
    });
  });

  it('names a missing file', async () => {
    const db = await fresh();
    const missing = join(dir, 'missing.jsonl');
    await expect(ingestEventLogs(db.pool, [missing])).rejects.toThrow(`cannot open ${missing}: ENOENT`);
  });
});
