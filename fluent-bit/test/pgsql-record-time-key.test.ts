// An event with its own top-level `wi_record_time` (the pgsql outputs' Timestamp_Key). Fluent Bit's JSON printer
// (src/flb_pack.c msgpack2json, v4.0.13 and v4.2.8) prints a repeated key once, with its LAST value, and out_pgsql
// packs its Timestamp_Key FIRST into one map with the record (flb_pack_msgpack_to_json_format): the statement holds
// the event's value instead of the record time. A non-number failed the statement's CAST, so Fluent Bit retried the
// chunk, good events included, for ever; a number silently became the raw row's time.
// Two defences, each tested alone: event-kubernetes.lua renames the event's member `wi_event_wi_record_time` before
// the parser (our configuration), and workflow_raw.json_array_elements (040-raw-json.sql) appends a usable record
// time to a record whose value there the statement would fail on (any forwarder configuration).
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarderDatabase, postgresReachable, type ForwarderDatabase } from '@workflow-index/postgresql/testing';
import { loadFluentBitConfig } from '../model/load-config.js';
import { FLUENT_BIT_VERSIONS } from '../model/flb-json-parser.js';
import { createPipeline } from '../model/pipeline.js';
import { flushStatements, pgsqlTargets, startupStatements } from '../model/pgsql-output.js';
import { printFluentDouble, printFluentString } from '../model/flb-json-printer.js';
import { type FluentValue, FluentMap } from '../model/fluent-value.js';
import { podLogPath, criTimestamp } from '@workflow-index/testkit';
import { deployedEnvironment } from './support/deployed-environment.js';

const available = await postgresReachable();
if (!available && process.env['CI'] === 'true') throw new Error('PostgreSQL is required in CI (WI_TEST_DATABASE_URL)');

/**
 * msgpack2json written from its source, independently of the model's printer: in every map an entry is printed only
 * if its key does not occur again later (key_exists_in_map(k, map, i + 1)). Only what these records hold.
 */
function msgpack2json(value: FluentValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return printFluentDouble(value);
  if (typeof value === 'string' || Buffer.isBuffer(value)) return printFluentString(value.toString());
  if (Array.isArray(value)) return `[${value.map(msgpack2json).join(',')}]`;
  const entries = value.entries;
  const printed = entries.filter(([k], i) => !entries.slice(i + 1).some(([later]) => later === k));
  return `{${printed.map(([k, v]) => `${printFluentString(k)}:${msgpack2json(v)}`).join(',')}}`;
}

const GOOD = '01KRDQDZBR7492YQWM736PEENJ';
const BAD = '01KRDQDZBS8TBDWA72Q1575QHY';
const wf = (kind: string, id: string, extra = ''): string =>
  `{"eventType":"io.serverlessworkflow.workflow.${kind}.v1","instanceId":"${id}","workflowNamespace":"com.acme","workflowName":"order","workflowVersion":"1.0.0","timestamp":1.778577243512337E9,"status":"RUNNING"${extra}}`;
const LINES = [
  wf('started', GOOD),
  wf('status-changed', BAD, ',"wi_record_time":"soon"'),
  wf('status-changed', BAD, ',"wi_record_time":1000'),
  wf('status-changed', BAD, ',"wi_record_time":{"at":1}'),
  wf('completed', GOOD, ',"output":{"ok":true}').replace('"RUNNING"', '"COMPLETED"'),
];
const FIRST_MICROS = 1_778_577_243_512_700;
const file = Buffer.from(LINES.map((l, i) => `${criTimestamp(FIRST_MICROS + i * 1000)} stdout F ${l}\n`).join(''));
const pod = () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' });
const WITHOUT_OUR_LUA = { 'repair-line.lua': () => () => ({ code: 0 as const }), 'event-kubernetes.lua': () => () => ({ code: 0 as const }) };

describe.each(FLUENT_BIT_VERSIONS)('an event with its own top-level wi_record_time, Fluent Bit %s model', (version) => {
  const { config, parsers } = loadFluentBitConfig('postgresql');
  const pipelineWith = (luaScripts = {}) => createPipeline({ config, parsers, env: deployedEnvironment(), version, now: () => 1_900_000_000, podMetadata: pod, luaScripts });
  const read = (luaScripts = {}) => {
    const pipeline = pipelineWith(luaScripts);
    const delivered = pipeline.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), file).delivered;
    return { pipeline, flush: flushStatements(pipeline, delivered, 1000).find((f) => f.table === 'workflow_events_raw')! };
  };

  it('the model prints the statement as msgpack2json does: the forwarder\'s key is dropped when the record repeats it', () => {
    const { pipeline, flush } = read(WITHOUT_OUR_LUA);
    const target = pgsqlTargets(pipeline).find((t) => t.table === 'workflow_events_raw')!;
    const json = `[${flush.records.map((r) => msgpack2json(new FluentMap([[target.timestampKey, r.time], ...r.value.entries]))).join(',')}]`;
    expect(flush.records.length).toBe(LINES.length);
    expect(flush.sql).toContain(json.replace(/\\/g, '\\\\').replace(/'/g, "''"));
    expect(flush.sql).toContain('"status":"RUNNING","wi_record_time":"soon","time":');
    expect(flush.sql).not.toMatch(/"wi_record_time":1778577243\.51[0-9]*,"eventType":"io\.serverlessworkflow\.workflow\.status-changed/);
  });

  it('with event-kubernetes.lua the event\'s member is renamed, so every record starts with the record time', () => {
    const { flush } = read();
    expect(flush.sql.match(/"wi_record_time":/g)).toHaveLength(LINES.length);
    expect(flush.sql.match(/\{"wi_record_time":1778577243\.51[0-9]*,"eventType"/g)).toHaveLength(LINES.length);
    expect(flush.sql).toContain('"wi_event_wi_record_time":"soon"');
  });

  describe.skipIf(!available)('as the forwarder login, in a migrated database', () => {
    let forwarder: ForwarderDatabase;
    let client: pg.Client;
    beforeAll(async () => {
      forwarder = await createForwarderDatabase('wi_fb_record_time_key');
      client = forwarder.client;
      for (const sql of startupStatements(pipelineWith())) await client.query(sql);
    });
    afterAll(async () => forwarder?.drop());
    const rawTimes = async (): Promise<number[]> =>
      (await forwarder.db.pool.query(`SELECT extract(epoch FROM time)::float8 AS t FROM workflow_raw.workflow_events_raw ORDER BY id`)).rows.map((r: { t: number }) => r.t);
    const expectedTimes = LINES.map((_, i) => (FIRST_MICROS + i * 1000) / 1e6);

    it('our configuration: the statement succeeds, the good events are applied, every raw row keeps its line\'s time', async () => {
      const { flush } = read();
      await client.query(flush.sql);
      const good = await forwarder.db.pool.query(`SELECT status FROM workflow_index.workflow_instances WHERE id = $1`, [GOOD]);
      expect(good.rows).toEqual([{ status: 'COMPLETED' }]);
      expect((await rawTimes()).map((t) => Math.round(t * 1e6))).toEqual(expectedTimes.map((t) => Math.round(t * 1e6)));
      const own = await forwarder.db.pool.query(`SELECT data->'wi_event_wi_record_time' AS own FROM workflow_raw.workflow_events_raw WHERE data->>'instanceId' = $1 ORDER BY id`, [BAD]);
      expect(own.rows).toEqual([{ own: 'soon' }, { own: 1000 }, { own: { at: 1 } }]);
    });

    it('a forwarder without our Lua: the database replaces a value the statement would fail on with the runtime time; good events applied', async () => {
      await forwarder.db.pool.query('TRUNCATE workflow_raw.workflow_events_raw, workflow_index.ingest_errors');
      const { flush } = read(WITHOUT_OUR_LUA);
      await client.query(flush.sql);
      const good = await forwarder.db.pool.query(`SELECT status FROM workflow_index.workflow_instances WHERE id = $1`, [GOOD]);
      expect(good.rows).toEqual([{ status: 'COMPLETED' }]);
      // Only the rename keeps a numeric own value (the third line) from becoming the record time: documented.
      expect((await rawTimes()).map((t) => Math.round(t * 1e6))).toEqual(expectedTimes.map((t, i) => Math.round((i === 2 ? 1000 : t) * 1e6)));
      const own = await forwarder.db.pool.query(`SELECT data::text AS text FROM workflow_raw.workflow_events_raw WHERE data->>'instanceId' = $1 ORDER BY id`, [BAD]);
      expect(own.rows.map((r: { text: string }) => r.text.match(/"wi_record_time":[^,}]*/g))).toEqual([
        ['"wi_record_time":"soon"', expect.stringMatching(/^"wi_record_time":1778577243\.51[0-9]+$/)],
        ['"wi_record_time":1000'],
        ['"wi_record_time":{"at":1', expect.stringMatching(/^"wi_record_time":1778577243\.51[0-9]+$/)],
      ]);
      const errors = await forwarder.db.pool.query(`SELECT count(*)::int AS n FROM workflow_index.ingest_errors`);
      expect(errors.rows[0].n).toBe(0);
    });
  });
});
