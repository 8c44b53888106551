// Every hostile producer line printed by a workflow pod between good events, through the model of
// fluent-bit/postgresql (join, repair, parse, route; both Fluent Bit versions), flushed as ONE statement per
// table exactly as the pgsql output sends it, as the forwarder login into a migrated database: the statement
// succeeds, the good events are normalized, and every line that cannot be an event is recorded in
// ingest_errors instead of being lost.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarderDatabase, postgresReachable, type ForwarderDatabase, type TestDatabase } from '@workflow-index/postgresql/testing';
import { loadFluentBitConfig } from '../model/load-config.js';
import { FLUENT_BIT_VERSIONS } from '../model/flb-json-parser.js';
import { createPipeline } from '../model/pipeline.js';
import { flushStatements, startupStatements } from '../model/pgsql-output.js';
import { podLogPath, criTimestamp } from '@workflow-index/testkit';
import { deployedEnvironment } from './support/deployed-environment.js';

const available = await postgresReachable();

const GOOD = '01KRDQDZBR7492YQWM736PEENJ';
const HOSTILE = '01KRDQDZBS8TBDWA72Q1575QHY';
const WF = 'io.serverlessworkflow.workflow';
const TASK = 'io.serverlessworkflow.task';
const wf = (kind: string, extra: string, id = GOOD, ts = '1.778577243512337E9'): string =>
  `{"eventType":"${WF}.${kind}.v1","instanceId":"${id}","workflowNamespace":"com.acme","workflowName":"order","workflowVersion":"1.0.0","timestamp":${ts}${extra}}`;
const task = (kind: string, extra: string, ts: string): string =>
  `{"eventType":"${TASK}.${kind}.v1","instanceId":"${GOOD}","taskName":"validate","taskPosition":"do/0/validate","timestamp":${ts}${extra}}`;

/** The good events: one instance, started → task started/completed → completed. */
const GOOD_LINES = [
  wf('started', ',"input":{"orderId":"A-1","qty":2}'),
  task('started', ',"input":{"orderId":"A-1"}', '1.778577243512400E9'),
  task('completed', ',"output":{"ok":true}', '1.778577243512500E9'),
  wf('completed', ',"output":{"ok":true}', GOOD, '1.778577243512600E9'),
];

const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** The hostile lines (and their families), each as the raw bytes the pod prints. */
const HOSTILE_LINES: readonly [string, Buffer][] = [
  ['NUL escape in a key', Buffer.from(wf('status-changed', ',"status":"RUNNING","in\\u0000put":1', HOSTILE))],
  ['NUL escape in a value', Buffer.from(wf('status-changed', ',"status":"RUN\\u0000NING"', HOSTILE))],
  ['lone high surrogate escape', Buffer.from(wf('status-changed', ',"status":"\\ud800"', HOSTILE))],
  ['lone low surrogate escape in a key', Buffer.from(wf('status-changed', ',"\\udc00k":"x"', HOSTILE))],
  ['invalid UTF-8 bytes', Buffer.concat([Buffer.from(wf('status-changed', ',"status":"', HOSTILE).slice(0, -1)), Buffer.from([0xc3, 0x28, 0xff, 0xed, 0xa0, 0x80]), Buffer.from('"}')])],
  ['20,000 levels of nesting (40 KB)', Buffer.from(wf('status-changed', `,"status":"RUNNING","deep":${deep(20_000)}`, HOSTILE))],
  ['an own top-level date field', Buffer.from(wf('status-changed', ',"status":"RUNNING","date":"yesterday"', HOSTILE))],
  // Fluent Bit's printer keeps the last of a repeated key: the event's value is printed instead of the record time.
  ['an own wi_record_time field', Buffer.from(wf('status-changed', ',"status":"RUNNING","wi_record_time":"soon"', HOSTILE))],
  ['an own numeric wi_record_time field', Buffer.from(wf('status-changed', ',"status":"RUNNING","wi_record_time":1000', HOSTILE))],
  ['an own wi_record_time object', Buffer.from(wf('status-changed', ',"wi_record_time":{"at":"soon"},"status":"RUNNING"', HOSTILE))],
  ['own time/stream/_p fields', Buffer.from(wf('status-changed', ',"status":"RUNNING","time":"t","stream":"s","_p":"p"', HOSTILE))],
  ['numbers a double cannot hold', Buffer.from(wf('status-changed', ',"status":"RUNNING","n":[1e999,2e308,1.0e999,-1e+999,1e-400]', HOSTILE))],
  // 4.0.13 reads these as ±inf (printed `inf`: not JSON) or alters them (1.0.0 → 1, 5e3 → 5).
  ['numbers that are not JSON numbers', Buffer.from(wf('status-changed', ',"status":"RUNNING","n":[1.e999,-.5e999,1E999.,1.0.0,01]', HOSTILE))],
  ['an exponent without sign', Buffer.from(wf('status-changed', ',"status":"RUNNING","qty":5e3', HOSTILE))],
  ['an integer beyond uint64 and a 17-digit double', Buffer.from(wf('status-changed', ',"status":"RUNNING","n":[123456789012345678901234567890,0.30000000000000004]', HOSTILE))],
  ['a 2 MB payload', Buffer.from(wf('status-changed', `,"status":"RUNNING","blob":"${'z'.repeat(2 * 1024 * 1024)}"`, HOSTILE))],
  ['a truncated event line', Buffer.from(wf('started', ',"input":{"orderId":"A-2"', HOSTILE))],
  ['an eventType of an unknown kind', Buffer.from(`{"eventType":"${WF}.correlation-started.v1","instanceId":"${HOSTILE}"}`)],
];

/** CRI lines as containerd writes them (16 KiB parts: the 2 MB line and the 40 KB one are split). */
function criFile(lines: readonly Buffer[]): Buffer {
  const out: Buffer[] = [];
  lines.forEach((line, i) => {
    const time = criTimestamp(1_778_577_243_512_700 + i * 137);
    for (let offset = 0; offset < line.length || offset === 0; offset += 16 * 1024) {
      const last = offset + 16 * 1024 >= line.length;
      out.push(Buffer.from(`${time} stdout ${last ? 'F' : 'P'} `), line.subarray(offset, offset + 16 * 1024), Buffer.from('\n'));
      if (last) break;
    }
  });
  return Buffer.concat(out);
}

describe.skipIf(!available).each(FLUENT_BIT_VERSIONS)('hostile lines among good events, Fluent Bit %s model → PostgreSQL as the forwarder', (version) => {
  const { config, parsers } = loadFluentBitConfig('postgresql');
  const pipeline = createPipeline({
    config, parsers, env: deployedEnvironment(), version, now: () => 1_900_000_000,
    podMetadata: () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
  });
  // Good events around every hostile line, so each statement mixes them.
  const printed = [GOOD_LINES[0]!, ...HOSTILE_LINES.flatMap(([, line], i) => (i === 3 ? [line, Buffer.from(GOOD_LINES[1]!)] : i === 8 ? [line, Buffer.from(GOOD_LINES[2]!)] : [line])), GOOD_LINES[3]!]
    .map((l) => (typeof l === 'string' ? Buffer.from(l) : l));
  const result = pipeline.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), criFile(printed));
  let forwarder: ForwarderDatabase;
  let db: TestDatabase;
  let client: pg.Client;

  beforeAll(async () => {
    forwarder = await createForwarderDatabase('wi_fb_hostile');
    ({ db, client } = forwarder);
  });
  afterAll(async () => forwarder?.drop());

  it('delivers every printed line to a raw table (none vanishes), in one chunk per table', () => {
    expect(result.dropped).toEqual([]);
    expect(result.held).toEqual([]);
    expect(result.delivered.length).toBe(printed.length);
    // Fluent Bit chunks per tag: the unparsed (truncated) line travels in a chunk of its own tag.
    expect(flushStatements(pipeline, result.delivered, 1000).map((f) => [f.table, f.tag, f.records.length])).toEqual([
      ['workflow_events_raw', 'workflow-index.workflow', printed.length - 3],
      ['task_events_raw', 'workflow-index.task', 2],
      ['workflow_events_raw', 'workflow-index.unparsed', 1],
    ]);
  });

  it('each statement succeeds; the good events are normalized; the lines that are not events are recorded in ingest_errors', async () => {
    for (const sql of startupStatements(pipeline)) await client.query(sql);
    for (const flush of flushStatements(pipeline, result.delivered, 1000)) await client.query(flush.sql);
    const good = await db.pool.query(`SELECT status, input, output FROM workflow_index.workflow_instances WHERE id = $1`, [GOOD]);
    expect(good.rows).toEqual([{ status: 'COMPLETED', input: { orderId: 'A-1', qty: 2 }, output: { ok: true } }]);
    const tasks = await db.pool.query(`SELECT status FROM workflow_index.task_executions WHERE instance_id = $1`, [GOOD]);
    expect(tasks.rows).toEqual([{ status: 'COMPLETED' }]);
    const raw = await db.pool.query(`SELECT (SELECT count(*) FROM workflow_raw.workflow_events_raw)::int + (SELECT count(*) FROM workflow_raw.task_events_raw)::int AS n`);
    expect(raw.rows[0].n).toBe(printed.length);
    // Every raw row's time is its line's container runtime time: no event's own wi_record_time became one.
    const times = await db.pool.query(`SELECT count(*)::int AS n FROM (SELECT time FROM workflow_raw.workflow_events_raw UNION ALL SELECT time FROM workflow_raw.task_events_raw) r
      WHERE time BETWEEN to_timestamp(1778577243.5127) AND to_timestamp(1778577243.5127 + $1 * 0.000137)`, [printed.length]);
    expect(times.rows[0].n).toBe(printed.length);
    // The event's values reach the raw rows: renamed, or as strings of their text, with an unsigned exponent signed.
    const values = await db.pool.query(`SELECT data->'wi_event_wi_record_time' AS own, data->'n' AS n, data->'qty' AS qty FROM workflow_raw.workflow_events_raw
      WHERE data->'wi_event_wi_record_time' IS NOT NULL OR json_typeof(data->'n') = 'array' OR data->'qty' IS NOT NULL ORDER BY time`);
    expect(values.rows).toEqual([
      { own: 'soon', n: null, qty: null },
      { own: 1000, n: null, qty: null },
      { own: { at: 'soon' }, n: null, qty: null },
      { own: null, n: ['1e999', '2e308', '1.0e999', '-1e+999', '1e-400'], qty: null },
      { own: null, n: ['1.e999', '-.5e999', '1E999.', '1.0.0', '01'], qty: null },
      { own: null, n: null, qty: 5000 },
      { own: null, n: [1.234567890123457e+29, 0.3], qty: null }, // re-printed with %.16g
    ]);
    // The truncated line (unparsed) and the unknown kind cannot be events: recorded, not lost.
    // A status repaired to U+FFFD is no status, the unknown kind has no timestamp, the truncated line is no JSON.
    const errors = await db.pool.query(`SELECT event_type, reason FROM workflow_index.ingest_errors ORDER BY id`);
    expect(errors.rows).toEqual([
      { event_type: `${WF}.status-changed.v1`, reason: expect.stringMatching(/status/) },
      { event_type: `${WF}.correlation-started.v1`, reason: expect.any(String) },
      { event_type: null, reason: 'event is not valid JSON: ends before the JSON text is complete' },
    ]);
  }, 120_000);

  it('without our Lua (a platform team\'s own forwarder: no line repair, no rename), the same statements still succeed and the good events are normalized', async () => {
    const unrepaired = createPipeline({
      config, parsers, env: deployedEnvironment(), version, now: () => 1_900_000_000,
      podMetadata: () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
      luaScripts: { 'repair-line.lua': () => () => ({ code: 0 }), 'event-kubernetes.lua': () => () => ({ code: 0 }) },
    });
    const delivered = unrepaired.readLogFile(podLogPath('order-app-2', 'workflows', 'app'), criFile(printed)).delivered;
    await db.pool.query('TRUNCATE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw, workflow_index.ingest_errors');
    for (const flush of flushStatements(unrepaired, delivered, 1000)) await client.query(flush.sql);
    const good = await db.pool.query(`SELECT status FROM workflow_index.workflow_instances WHERE id = $1`, [GOOD]);
    expect(good.rows).toEqual([{ status: 'COMPLETED' }]);
  }, 120_000);
});
