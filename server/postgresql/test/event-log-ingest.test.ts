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
} from '@workflow-index/postgresql/event-log-ingest';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/test-database.js';
import { FIXTURE_PATH } from './support/fixtures.js';
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

  it('names a missing file', async () => {
    const db = await fresh();
    const missing = join(dir, 'missing.jsonl');
    await expect(ingestEventLogs(db.pool, [missing])).rejects.toThrow(`cannot open ${missing}: ENOENT`);
  });
});
