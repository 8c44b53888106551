// Lines no JSON parser reads (a bare NaN or inf, a raw control character, nesting beyond every parser, a cut or
// prefixed event), printed between the events of a good run, reach PostgreSQL by every writer path: Fluent Bit as
// configured (the model, both versions, as the forwarder login), Fluent Bit without our Lua filters, and a
// forwarder without a parser that puts each line into the pgsql statement as printed. Every statement succeeds,
// the good run is served, and each line that cannot be an event is one ingest error whose reason names the fault of
// its text (json-text-fault.ts, normalizer/042-json-text-fault.sql) — not "missing eventType" (Fluent Bit's
// record of an unparsed line) nor "not a JSON object (got string)" (the text PostgreSQL's statement reader
// wrapped). The raw rows keep the text as printed, and a rebuild gives the same reasons.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarderDatabase, postgresReachable, type ForwarderDatabase } from '@workflow-index/postgresql/testing';
import { rawFlushes, rawRecordText, type RawRecord } from '@workflow-index/postgresql/testing';
import { loadFluentBitConfig } from '../model/load-config.js';
import { FLUENT_BIT_VERSIONS } from '../model/flb-json-parser.js';
import { createPipeline } from '../model/pipeline.js';
import type { LuaFunction } from '../model/lua-filter.js';
import { flushStatements, pgsqlChunkJson, startupStatements } from '../model/pgsql-output.js';
import { podLogPath, criLogFile } from '@workflow-index/testkit';
import { deployedEnvironment } from './support/deployed-environment.js';
import { GOOD_INSTANCE, GOOD_LINES, RAW_RECORD_TIME, UNPARSABLE_LINES } from './support/unparsable-lines.js';

const available = await postgresReachable();

/** The second half of the line cut by a raw newline: it names no eventType, so Fluent Bit drops it. */
const NEWLINE_TAIL = 'b"}';

const printed = [GOOD_LINES[0]!, ...UNPARSABLE_LINES.flatMap((u) => (u.what.includes('raw newline') ? [u.line, NEWLINE_TAIL] : [u.line])), ...GOOD_LINES.slice(1)];
const logFile = criLogFile(printed.map((text) => ({ stream: 'stdout' as const, text })));

const pipelineFor = (version: (typeof FLUENT_BIT_VERSIONS)[number], luaScripts: Record<string, () => LuaFunction> = {}) => {
  const { config, parsers } = loadFluentBitConfig('postgresql');
  return createPipeline({
    config, parsers, env: deployedEnvironment(), version, now: () => 1_900_000_000, luaScripts,
    podMetadata: () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
  });
};

async function servedRun(db: pg.Pool): Promise<unknown> {
  const run = await db.query(`SELECT status, input, output FROM workflow_index.workflow_instances WHERE id = $1`, [GOOD_INSTANCE]);
  const tasks = await db.query(`SELECT status, input, output FROM workflow_index.task_executions WHERE instance_id = $1`, [GOOD_INSTANCE]);
  return { run: run.rows, tasks: tasks.rows };
}

const SERVED = {
  run: [{ status: 'COMPLETED', input: { orderId: 'A-1', qty: 2 }, output: { ok: true } }],
  tasks: [{ status: 'COMPLETED', input: { orderId: 'A-1' }, output: { ok: true } }],
};

async function ingestErrors(db: pg.Pool): Promise<{ reason: string; instance_id: string | null; event_type: string | null }[]> {
  return (await db.query('SELECT reason, instance_id, event_type FROM workflow_index.ingest_errors ORDER BY reason COLLATE "C"')).rows;
}

const sorted = (reasons: readonly string[]): string[] => [...reasons].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

describe.skipIf(!available).each(FLUENT_BIT_VERSIONS)('lines no parser reads, Fluent Bit %s model → PostgreSQL as the forwarder login', (version) => {
  let forwarder: ForwarderDatabase;
  beforeAll(async () => {
    forwarder = await createForwarderDatabase('wi_fb_unparsable');
  });
  afterAll(async () => forwarder?.drop());

  it('every statement succeeds, the run is served, each unparsable line is one ingest error naming its fault', async () => {
    const pipeline = pipelineFor(version);
    const result = pipeline.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), logFile.content);
    // Only the newline's second half (no eventType) is dropped; every other line reaches a raw table.
    expect(result.dropped.map((d) => d.sourceLines)).toEqual([[logFile.lines.find((l) => l.source === printed.indexOf(NEWLINE_TAIL))!.line]]);
    for (const sql of startupStatements(pipeline)) await forwarder.client.query(sql);
    for (const flush of flushStatements(pipeline, result.delivered, 1000)) await forwarder.client.query(flush.sql);
    const { db } = forwarder;
    expect(await servedRun(db.pool)).toEqual(SERVED);
    // Each error names the instance its line's text names (a plain "instanceId":"…" member), if any.
    const expected = UNPARSABLE_LINES.filter((u) => u.viaFluentBit[version] !== 'accepted')
      .map((u) => ({ reason: u.viaFluentBit[version], instance_id: /"instanceId"[ \t\n\r]*:[ \t\n\r]*"([^"\\]{1,255})"/.exec(u.line)?.[1] ?? null, event_type: null }));
    const byReason = (rows: readonly { reason: string; instance_id: string | null }[]) => [...rows].sort((a, b) => (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : String(a.instance_id) < String(b.instance_id) ? -1 : 1));
    expect(byReason(await ingestErrors(db.pool))).toEqual(byReason(expected));
    // The lines this version reads after all are events like any other (status-changed only: placeholders).
    const accepted = UNPARSABLE_LINES.filter((u) => u.viaFluentBit[version] === 'accepted').map((u) => u.instanceId!);
    const stored = await db.pool.query(`SELECT id FROM workflow_index.workflow_instances WHERE id <> $1 ORDER BY id`, [GOOD_INSTANCE]);
    expect(stored.rows.map((r) => r.id)).toEqual([...accepted].sort());
    // The unparsed records keep the line under `log`, as printed.
    const logs = await db.pool.query(`SELECT data->>'log' AS log FROM workflow_raw.workflow_events_raw WHERE tag = 'workflow-index.unparsed'`);
    expect(logs.rows.map((r) => r.log).sort()).toEqual(UNPARSABLE_LINES.filter((u) => u.viaFluentBit[version] !== 'accepted').map((u) => u.line).sort());
    // A rebuild reads the raw rows again with the same rules.
    await db.pool.query('SELECT workflow_index.rebuild_normalized()');
    expect(byReason(await ingestErrors(db.pool))).toEqual(byReason(expected));
    expect(await servedRun(db.pool)).toEqual(SERVED);
  }, 120_000);

  it('without our Lua filters (no line repair), PostgreSQL cannot parse the 20,000-level line in the statement: its ingest error names the depth, and the raw row keeps the record as Fluent Bit printed it', async () => {
    const deep = UNPARSABLE_LINES.find((u) => u.what === '20,000 levels of nesting')!;
    const pipeline = pipelineFor(version, { 'repair-line.lua': () => () => ({ code: 0 }), 'event-kubernetes.lua': () => () => ({ code: 0 }) });
    const lines = [GOOD_LINES[0]!, deep.line, ...GOOD_LINES.slice(1)];
    const delivered = pipeline.readLogFile(podLogPath('order-app-2', 'workflows', 'app'), criLogFile(lines.map((text) => ({ stream: 'stdout' as const, text }))).content).delivered;
    const { db, client } = forwarder;
    await db.pool.query('TRUNCATE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw, workflow_index.ingest_errors');
    for (const flush of flushStatements(pipeline, delivered, 1000)) await client.query(flush.sql);
    expect(await servedRun(db.pool)).toEqual(SERVED);
    const rows = await db.pool.query(`SELECT data->'wi_unparsable'->>'text' AS text, e.reason
      FROM workflow_index.ingest_errors e JOIN workflow_raw.workflow_events_raw r ON r.id = e.raw_id AND e.raw_table = 'workflow_events_raw'`);
    const record = delivered.find((d) => d.sourceLines[0] === 2)!;
    const printedRecord = pgsqlChunkJson('wi_record_time', [record]).slice(1, -1);
    // the record's first bracket is level 2 (the record is level 1): the 1000th opens level 1001
    expect(rows.rows).toEqual([{ text: printedRecord, reason: `event is not valid JSON: nested deeper than 1000 levels at character ${printedRecord.indexOf('[') + 1000}` }]);
  }, 120_000);
});

describe.skipIf(!available)('lines no parser reads, put into the pgsql statement as printed (a forwarder without a parser) → PostgreSQL as the forwarder login', () => {
  let forwarder: ForwarderDatabase;
  beforeAll(async () => {
    forwarder = await createForwarderDatabase('wi_raw_unparsable');
  });
  afterAll(async () => forwarder?.drop());

  const hostile = UNPARSABLE_LINES.filter((u) => u.viaRawStatement !== undefined);
  // A producer's own member named like the marker is no marker: the record holds the forwarder's time key too.
  const lookalike = '{"wi_unparsable":{"text":"{\\"x\\":NaN}","error":"e","detail":"d"}}';
  const records: RawRecord[] = [GOOD_LINES[0]!, ...hostile.map((u) => u.line), lookalike, ...GOOD_LINES.slice(1)].map((line) => ({ line, recordTime: RAW_RECORD_TIME }));

  it('every statement succeeds, the run is served, each unparsable element is one ingest error naming its fault; raw rows keep every record\'s text', async () => {
    const { db, client } = forwarder;
    for (const sql of rawFlushes(records)) await client.query(sql);
    expect(await servedRun(db.pool)).toEqual(SERVED);
    const expected = sorted([...hostile.map((u) => u.viaRawStatement!), 'missing eventType']);
    expect((await ingestErrors(db.pool)).map((e) => e.reason)).toEqual(expected);
    // The elements PostgreSQL could not parse are markers holding their text exactly; every other row holds its
    // record's text as printed.
    const raw = await db.pool.query<{ data: string; text: string | null; error: string | null }>(
      `SELECT data::text AS data, m.text, m.error
       FROM (SELECT id, data FROM workflow_raw.workflow_events_raw UNION ALL SELECT id, data FROM workflow_raw.task_events_raw) r
       LEFT JOIN LATERAL (SELECT data->'wi_unparsable'->>'text' AS text, data->'wi_unparsable'->>'error' AS error
                          WHERE (SELECT array_agg(k) FROM json_object_keys(data) k) = '{wi_unparsable}') m ON true
       ORDER BY id`);
    const texts = records.map(rawRecordText);
    const unparsable = new Set(hostile.map((u) => rawRecordText({ line: u.line, recordTime: RAW_RECORD_TIME })));
    expect(raw.rows.filter((r) => r.text !== null).map((r) => r.text).sort()).toEqual([...unparsable].sort());
    expect(raw.rows.filter((r) => r.text !== null).every((r) => typeof r.error === 'string' && r.error !== '')).toBe(true);
    expect(raw.rows.filter((r) => r.text === null).map((r) => r.data).sort()).toEqual(texts.filter((t) => !unparsable.has(t)).sort());
    await db.pool.query('SELECT workflow_index.rebuild_normalized()');
    expect((await ingestErrors(db.pool)).map((e) => e.reason)).toEqual(expected);
  }, 120_000);

  it('a record that is a JSON string keeps "not a JSON object (got string)", whatever its content; a row that is the marker alone is read as the marker', async () => {
    const { db, client } = forwarder;
    await db.pool.query('TRUNCATE workflow_raw.workflow_events_raw, workflow_index.ingest_errors');
    await client.query(`INSERT INTO workflow_events_raw (tag, time, data) VALUES ('manual', now(), $1), ('manual', now(), $2)`,
      [JSON.stringify('{"x":NaN}'), JSON.stringify({ wi_unparsable: { text: '{"x":NaN}' } })]);
    const errors = await db.pool.query('SELECT reason FROM workflow_index.ingest_errors ORDER BY raw_id');
    expect(errors.rows.map((r) => r.reason)).toEqual(['event is not a JSON object (got string)', 'event is not valid JSON: invalid token "NaN" at character 6']);
  });
});
