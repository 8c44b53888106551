// Bare values Fluent Bit 4.0.13 (the pinned version) reads as numbers although JSON does not, or reads wrongly:
// jsmn (JSMN_STRICT) takes any run of printable ASCII starting with `-` or a digit as a primitive, and
// src/flb_pack.c pack_numeric_token() reads it with strtod when it holds a `.` or a signed exponent (`1.e999`,
// `-.5e999`, `1E999.` become ±inf, printed `inf`: OpenSearch refuses the document and the output retries the chunk,
// good events included, for ever), else with strtoll/strtoull, which stop at the `e` (`5e3` silently becomes 5).
// The line repair (R6: a bare value that is not a JSON number becomes a string of its text; R7: an unsigned exponent
// without a `.` gets a `+`) makes every reader read the line alike: 4.0.13, 4.2.8 and JSON.parse (init-job ingest).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRawSchema } from '@workflow-index/opensearch';
import { repairEventLine } from '@workflow-index/events';
import { loadFluentBitConfig } from '../model/load-config.js';
import { createPipeline } from '../model/pipeline.js';
import { FLUENT_BIT_VERSIONS, parseFluentJson } from '../model/flb-json-parser.js';
import { toPlain } from '../model/fluent-value.js';
import { type BulkAnswerItem, type BulkRequest, bulkRequests, outputRetries } from '../model/opensearch-output.js';
import { flushStatements, startupStatements } from '../model/pgsql-output.js';
import { podLogPath, criTimestamp } from '@workflow-index/testkit';
import { type TestNamespace, createTestNamespace, openSearchReachable } from '@workflow-index/opensearch/testing';
import { createForwarderDatabase, postgresReachable, type ForwarderDatabase } from '@workflow-index/postgresql/testing';
import { openSearchEnvironment } from './support/opensearch-environment.js';
import { deployedEnvironment } from './support/deployed-environment.js';

const osAvailable = await openSearchReachable();
const pgAvailable = await postgresReachable();
const ID = '01KRDQDZBR7492YQWM736PEENJ';
const BAD = '01KRDQDZBS8TBDWA72Q1575QHY';
const wf = (kind: string, id: string, extra: string): string =>
  `{"eventType":"io.serverlessworkflow.workflow.${kind}.v1","instanceId":"${id}","workflowNamespace":"com.acme","workflowName":"order","workflowVersion":"1.0.0","timestamp":1.778577243512337E9,"status":"RUNNING"${extra}}`;
const HOSTILE = ',"n":[1.e999,-.5e999,1E999.,1.0.0],"input":{"qty":5e3,"total":1E2,"delta":-2e1}';
const LINES = [wf('started', ID, ''), wf('status-changed', BAD, HOSTILE), wf('completed', ID, '').replace('"RUNNING"', '"COMPLETED"')];
const file = Buffer.from(LINES.map((l, i) => `${criTimestamp(1_778_577_243_512_700 + i * 1000)} stdout F ${l}\n`).join(''));
const pod = () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' });
const NO_REPAIR = { 'repair-line.lua': () => () => ({ code: 0 as const }) };

describe('Fluent Bit 4.0.13\'s JSON parser (model) on bare values', () => {
  it.each([
    ['1.e999', Infinity], ['-.5e999', -Infinity], ['1E999.', Infinity], ['1.0.0', 1], ['5e3', 5n], ['1E2', 1n], ['-2e1', -2n], ['1e999', 1n], ['5e+3', 5000],
    ['nope', null], ['tru', true], ['01', 1n], ['1x', 1n], ['-', 0n],
  ] as const)('reads %s as %s (4.2.8 and JSON refuse the line, or read another value)', (literal, value) => {
    expect(parseFluentJson(Buffer.from(`{"n":${literal}}`), '4.0.13')?.get('n')).toBe(value);
  });

  it('4.2.8 (yyjson) refuses what is not JSON', () => {
    for (const literal of ['1.e999', '1.0.0', 'nope', '01', '-']) expect(parseFluentJson(Buffer.from(`{"n":${literal}}`), '4.2.8')).toBeUndefined();
  });
});

describe('the repaired line is read alike by every reader', () => {
  const repaired = repairEventLine(Buffer.from(LINES[1]!));

  it('non-JSON numbers become strings of their text (R6), unsigned exponents get a + (R7)', () => {
    expect(repaired.repairs).toEqual(['number-token', 'exponent-sign']);
    expect(repaired.text).toContain('"n":["1.e999","-.5e999","1E999.","1.0.0"],"input":{"qty":5e+3,"total":1E+2,"delta":-2e+1}');
  });

  it.each(FLUENT_BIT_VERSIONS)('Fluent Bit %s reads what JSON.parse reads', (version) => {
    expect(toPlain(parseFluentJson(Buffer.from(repaired.text), version)!)).toEqual(JSON.parse(repaired.text));
    expect((JSON.parse(repaired.text) as { input: unknown }).input).toEqual({ qty: 5000, total: 100, delta: -20 });
  });
});

describe.skipIf(!osAvailable)('the chunk the 4.0.13 binary sends to the real OpenSearch node', () => {
  const { config, parsers } = loadFluentBitConfig('opensearch');
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = createTestNamespace();
    await applyRawSchema(ns.client, { prefix: ns.prefix });
  });
  afterAll(async () => ns?.drop());

  const send = async (request: BulkRequest): Promise<{ errors: boolean; items: BulkAnswerItem[] }> => {
    const response = await ns.client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: request.body });
    const body = response.body as { errors: boolean; items: { create: { _index: string; _id: string; status: number; error?: unknown } }[] };
    return { errors: body.errors, items: body.items.map(({ create }) => ({ index: create._index, id: create._id, status: create.status, error: create.error })) };
  };
  const requestWith = (luaScripts = {}): BulkRequest => {
    const pipeline = createPipeline({ config, parsers, env: openSearchEnvironment(), now: () => 1_900_000_000, version: '4.0.13', podMetadata: pod, luaScripts });
    const delivered = pipeline.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), file).delivered;
    const [request] = bulkRequests(pipeline, delivered, { maxRecordsPerChunk: 1000, indexPrefix: ns.prefix });
    expect(request!.items.length).toBe(LINES.length);
    return request!;
  };

  it('without the line repair the document holds `inf` and the node refuses it: the output would retry the chunk for ever', async () => {
    const request = requestWith(NO_REPAIR);
    expect(request.body).toContain('"n":[inf,-inf,inf,1.0],"input":{"qty":5,"total":1,"delta":-2}');
    expect(outputRetries(await send(request))).toBe(true);
  });

  it('with our configuration every item is created, with the values every reader reads', async () => {
    const request = requestWith();
    expect(request.body).toContain('"n":["1.e999","-.5e999","1E999.","1.0.0"],"input":{"qty":5000.0,"total":100.0,"delta":-20.0}');
    const answer = await send(request);
    expect(answer.items.filter((i) => i.status !== 201)).toEqual([]);
    expect(outputRetries(answer)).toBe(false);
  });
});

describe.skipIf(!pgAvailable)('the statement the 4.0.13 binary sends to PostgreSQL', () => {
  const { config, parsers } = loadFluentBitConfig('postgresql');
  let forwarder: ForwarderDatabase;
  beforeAll(async () => {
    forwarder = await createForwarderDatabase('wi_fb_number_tokens');
  });
  afterAll(async () => forwarder?.drop());

  it('stores the values every reader reads (5e3 is 5000, not 5) and applies the good events', async () => {
    const pipeline = createPipeline({ config, parsers, env: deployedEnvironment(), now: () => 1_900_000_000, version: '4.0.13', podMetadata: pod });
    const delivered = pipeline.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), file).delivered;
    for (const sql of startupStatements(pipeline)) await forwarder.client.query(sql);
    for (const flush of flushStatements(pipeline, delivered, 1000)) await forwarder.client.query(flush.sql);
    const good = await forwarder.db.pool.query(`SELECT status FROM workflow_index.workflow_instances WHERE id = $1`, [ID]);
    expect(good.rows).toEqual([{ status: 'COMPLETED' }]);
    const raw = await forwarder.db.pool.query(`SELECT data->'n' AS n, data->'input' AS input FROM workflow_raw.workflow_events_raw WHERE data->>'instanceId' = $1`, [BAD]);
    expect(raw.rows).toEqual([{ n: ['1.e999', '-.5e999', '1E999.', '1.0.0'], input: { qty: 5000, total: 100, delta: -20 } }]);
  });
});
