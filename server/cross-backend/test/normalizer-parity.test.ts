// The OpenSearch normalizer against the reference: the same event lines, written by the Fluent Bit bulk writer into
// a real node and by Fluent Bit's pgsql statement into a real PostgreSQL, give the same instances, executions
// (ids, pairing, times to the µs, payload text to the digit, errors) and the same number of rejected events. Lines
// no parser reads reach each backend as Fluent Bit configured for it delivers them (the models of
// fluent-bit/postgresql and fluent-bit/opensearch, both versions): the same ingest-error reasons, each naming the
// fault of its line.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarderDatabase, createTestDatabase, postgresReachable, type ForwarderDatabase, type TestDatabase } from '@workflow-index/postgresql/testing';
import { REAL_FORMATS, realFixture, withRecordTimes } from '@workflow-index/testkit';
import { FIXTURE_PATH } from '@workflow-index/testkit';
import { loopStream } from '@workflow-index/testkit';
import { applyRawSchema } from '@workflow-index/opensearch';
import { writeEventLines } from '@workflow-index/opensearch';
import { OpenSearchNormalizer } from '@workflow-index/opensearch';
import { type TestNamespace, createTestNamespace, openSearchReachable } from '@workflow-index/opensearch/testing';
import { openSearchState } from '@workflow-index/opensearch/testing';
import { type Delivery, postgresqlState, writeToPostgreSQL } from './support/postgresql-twin.js';
import { loadFluentBitConfig } from '@workflow-index/fluent-bit';
import { FLUENT_BIT_VERSIONS } from '@workflow-index/fluent-bit';
import { createPipeline } from '@workflow-index/fluent-bit';
import { flushStatements, startupStatements } from '@workflow-index/fluent-bit';
import { bulkRequests } from '@workflow-index/fluent-bit';
import { deployedEnvironment } from '@workflow-index/fluent-bit/testing';
import { openSearchEnvironment } from '@workflow-index/fluent-bit/testing';
import { GOOD_INSTANCE, GOOD_LINES, UNPARSABLE_LINES } from '@workflow-index/fluent-bit/testing';
import { podLogPath, criLogFile } from '@workflow-index/testkit';

const available = (await openSearchReachable()) && (await postgresReachable());

const RECORD_TIME = Date.UTC(2026, 10, 23, 13, 45, 55);
// Execution ids beyond OpenSearch's 512-byte _id limit (a 255-byte instance id and a 1,000-byte position).
const longInstance = `long-${'i'.repeat(250)}`;
const longPosition = `do/0/${'p'.repeat(995)}`;
const longIdLines = [
  `{"instanceId":"${longInstance}","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1.7785772435E9,"workflowName":"long","status":"RUNNING"}`,
  ...[0, 1, 2].flatMap((i) => [
    `{"instanceId":"${longInstance}","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${1778577243.6 + i},"taskPosition":"${longPosition}","input":{"i":${i}}}`,
    `{"instanceId":"${longInstance}","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":${1778577243.7 + i},"taskPosition":"${longPosition}","output":{"i":${i}}}`,
  ]),
];

// Positions named like another execution's id (normalizer/072-execution-ids.sql): `p` run twice, `p@<µs of its
// second start>`, the same escaped once, and a `%`.
const collidingPositions = ((): string[] => {
  const id = 'ids-collide';
  const at = (ms: number): number => 1_778_577_243_000 + ms;
  const run = (position: string, ms: number): string[] => [
    `{"instanceId":"${id}","eventType":"io.serverlessworkflow.task.started.v1","timestamp":${at(ms)},"taskPosition":"${position}","input":{"ms":${ms}}}`,
    `{"instanceId":"${id}","eventType":"io.serverlessworkflow.task.completed.v1","timestamp":${at(ms + 1)},"taskPosition":"${position}","output":{"ms":${ms}}}`,
  ];
  return [
    `{"instanceId":"${id}","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${at(0)},"workflowName":"ids","status":"RUNNING"}`,
    ...run('p', 10), ...run('p', 20), ...run(`p@${at(20) * 1000}`, 30), ...run(`p%40${at(20) * 1000}`, 40), ...run('50%', 50),
  ];
})();

// The error object of completed and cancelled task events (served like a fault's) beyond its bounds: a title over
// Lucene's 32,766-byte term limit, one just over the 8,192-byte bound, a numeric type; and one within them.
const taskErrors = ((): string[] => {
  const id = 'task-errors';
  const t = (s: number): string => `"timestamp":${1_778_577_243 + s}`;
  const task = (kind: string, position: string, s: number, extra = ''): string =>
    `{"instanceId":"${id}","eventType":"io.serverlessworkflow.task.${kind}.v1",${t(s)},"taskPosition":"${position}"${extra}}`;
  return [
    `{"instanceId":"${id}","eventType":"io.serverlessworkflow.workflow.started.v1",${t(0)},"workflowName":"errors","status":"RUNNING"}`,
    task('started', 'do/0/a', 1), task('completed', 'do/0/a', 2, `,"error":{"title":"${'T'.repeat(40_000)}","status":500}`),
    task('started', 'do/1/b', 3), task('cancelled', 'do/1/b', 4, `,"error":{"type":"${'y'.repeat(8193)}"}`),
    task('started', 'do/2/c', 5), task('completed', 'do/2/c', 6, `,"error":{"type":5}`),
    task('started', 'do/3/d', 7), task('completed', 'do/3/d', 8, `,"error":{"title":"${'t'.repeat(8192)}","status":409}`),
  ];
})();

const sets: [string, string[]][] = [
  ['errors of completed and cancelled tasks beyond their bounds', taskErrors],
  ['positions named like repeat ids', collidingPositions],
  ['execution ids longer than an OpenSearch _id', longIdLines],
  ['reference fixtures', readFileSync(FIXTURE_PATH, 'utf8').split('\n').filter((l) => l.trim() !== '')],
  ...REAL_FORMATS.map((f): [string, string[]] => [`real ${f}`, [...realFixture(f).eventLines]]),
  // Same-millisecond ends and starts of loop iterations (the tie rule), with and without payloads; with `chains`,
  // start-end-start within one millisecond, where the pairing follows the content hash order.
  ['epoch-millis loops', loopStream({ seed: 7, format: 'epoch-millis', items: 120, instances: 2 }).lines],
  ['epoch-millis loops without payloads', loopStream({ seed: 8, format: 'epoch-millis', items: 120, instances: 2, payloads: false }).lines],
  ['epoch-millis loops with same-millisecond chains', loopStream({ seed: 9, format: 'epoch-millis', items: 150, instances: 2, chains: true }).lines],
];

describe.skipIf(!available)('OpenSearch normalizer = PostgreSQL normalizer', () => {
  let ns: TestNamespace;
  beforeAll(() => {
    ns = createTestNamespace();
  });
  afterAll(async () => {
    await ns?.drop();
  });

  sets.forEach(([label, lines], n) => {
    it(`${label}: every instance and execution field by field`, async () => {
      const prefix = `${ns.prefix}p${n}-`;
      const deliveries: Delivery[] = withRecordTimes(lines, RECORD_TIME);
      let db: TestDatabase | undefined;
      try {
        db = await createTestDatabase();
        await writeToPostgreSQL(db, deliveries);
        await applyRawSchema(ns.client, { prefix });
        const written = await writeEventLines(ns.client, deliveries, prefix);
        expect(written.items.filter((i) => i.status !== 201)).toEqual([]);
        await ns.refresh();
        const normalizer = new OpenSearchNormalizer({ client: ns.client, prefix, refresh: true });
        await normalizer.setup();
        expect(await normalizer.acquire()).toBe(true);
        const cycle = await normalizer.cycle();
        expect(cycle.newRawEvents).toBe(lines.length);
        const expected = await postgresqlState(db);
        const actual = await openSearchState(ns.client, normalizer.names);
        expect(expected.instances.length).toBeGreaterThan(0);
        expect(actual.instances).toEqual(expected.instances);
        expect(actual.executions).toEqual(expected.executions);
        expect(actual.ingestErrors).toBe(expected.ingestErrors);
        if (lines === taskErrors) {
          // the three beyond the bounds refused with their reason on both; the one within them served with its error
          for (const state of [expected, actual]) {
            expect(state.ingestErrorReasons).toHaveLength(3);
            expect(state.ingestErrorReasons).toEqual(expect.arrayContaining([
              expect.stringMatching(/^error\.title .*8192/), expect.stringMatching(/^error\.type .*8192/), expect.stringMatching(/^error\.type must be a string/),
            ]));
            expect(state.executions.map((e) => [e.task_position, e.status])).toEqual([['do/0/a', 'RUNNING'], ['do/1/b', 'RUNNING'], ['do/2/c', 'RUNNING'], ['do/3/d', 'COMPLETED']]);
          }
        }
      } finally {
        await db?.drop();
      }
    });
  });
});

describe.skipIf(!available).each(FLUENT_BIT_VERSIONS)('lines no parser reads among a good run, Fluent Bit %s as configured for each backend', (version) => {
  const printed = [GOOD_LINES[0]!, ...UNPARSABLE_LINES.map((u) => u.line), ...GOOD_LINES.slice(1)];
  const logFile = criLogFile(printed.map((text) => ({ stream: 'stdout' as const, text }))).content;
  const pipeline = (backend: 'postgresql' | 'opensearch') => {
    const { config, parsers } = loadFluentBitConfig(backend);
    return createPipeline({
      config, parsers, env: backend === 'postgresql' ? deployedEnvironment() : openSearchEnvironment(), version, now: () => 1_900_000_000,
      podMetadata: () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
    });
  };
  let ns: TestNamespace;
  let forwarder: ForwarderDatabase | undefined;
  beforeAll(() => {
    ns = createTestNamespace();
  });
  afterAll(async () => {
    await forwarder?.drop();
    await ns?.drop();
  });

  it('the good run is served on both; each line is one ingest error, with the same reason on both, naming its fault', async () => {
    forwarder = await createForwarderDatabase('wi_parity_unparsable');
    const toPostgreSQL = pipeline('postgresql');
    const pgDelivered = toPostgreSQL.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), logFile).delivered;
    for (const sql of startupStatements(toPostgreSQL)) await forwarder.client.query(sql);
    for (const flush of flushStatements(toPostgreSQL, pgDelivered, 1000)) await forwarder.client.query(flush.sql);

    const toOpenSearch = pipeline('opensearch');
    const osDelivered = toOpenSearch.readLogFile(podLogPath('order-app-1', 'workflows', 'app'), logFile).delivered;
    await applyRawSchema(ns.client, { prefix: ns.prefix });
    for (const request of bulkRequests(toOpenSearch, osDelivered, { maxRecordsPerChunk: 1000, indexPrefix: ns.prefix })) {
      const answer = await ns.client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: request.body });
      const items = (answer.body as { items: { create: { status: number } }[] }).items;
      expect(items.map((i) => i.create.status)).toEqual(request.items.map(() => 201));
    }
    await ns.refresh();
    const normalizer = new OpenSearchNormalizer({ client: ns.client, prefix: ns.prefix, refresh: true });
    await normalizer.setup();
    expect(await normalizer.acquire()).toBe(true);
    expect((await normalizer.cycle()).newRawEvents).toBe(printed.length);

    const expected = await postgresqlState(forwarder.db);
    const actual = await openSearchState(ns.client, normalizer.names);
    expect(expected.instances.find((i) => i.id === GOOD_INSTANCE)).toMatchObject({ status: 'COMPLETED', input_json: '{"qty": 2, "orderId": "A-1"}', output_json: '{"ok": true}', placeholder: false });
    expect(expected.executions.map((e) => [e.instance_id, e.status])).toEqual([[GOOD_INSTANCE, 'COMPLETED']]);
    const reasons = UNPARSABLE_LINES.map((u) => u.viaFluentBit[version]).filter((r) => r !== 'accepted');
    expect(expected.ingestErrorReasons).toEqual(reasons.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(actual).toEqual(expected);
  }, 120_000);
});
