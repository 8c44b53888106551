// Where every line a workflow pod prints ends up according to fluent-bit/opensearch run through the pipeline model,
// and the `_bulk` requests its opensearch outputs send, posted to the REAL local OpenSearch node under a test prefix
// (raw templates and pipeline applied first, as opensearch-setup does): every item is created, a re-sent chunk is
// answered 409 and so not retried, and the normalizer's view equals the PostgreSQL ingest of the same CRI log
// through fluent-bit/postgresql.
import type { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRawSchema } from '@workflow-index/opensearch';
import { OpenSearchNormalizer } from '@workflow-index/opensearch';
import { TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX } from '@workflow-index/opensearch';
import { loadFluentBitConfig } from '../model/load-config.js';
import { type PodMetadata, createPipeline } from '../model/pipeline.js';
import { parseRfc3339 } from '../model/builtin-multiline.js';
import { type BulkAnswerItem, type BulkRequest, bulkRequests, outputRetries } from '../model/opensearch-output.js';
import { flushStatements } from '../model/pgsql-output.js';
import { workflowAppOutput } from '../../e2e/support/workflow-app-output.js';
import { podLogPath, criLogFile, criTimestamp } from '@workflow-index/testkit';
import { EXPECTED_RAW_ROWS } from '../../e2e/support/expected-index.js';
import { type TestNamespace, createTestNamespace, openSearchReachable } from '@workflow-index/opensearch/testing';
import { openSearchState } from '@workflow-index/opensearch/testing';
import { postgresqlState } from '@workflow-index/cross-backend';
import { type ForwarderDatabase, createForwarderDatabase, postgresReachable } from '@workflow-index/postgresql/testing';
import { openSearchEnvironment } from './support/opensearch-environment.js';
import { deployedEnvironment } from './support/deployed-environment.js';

const POD = 'order-app-5d8f7c9b6-x2x7q';
const LOG_PATH = podLogPath(POD, 'workflows', 'app');
const METADATA: PodMetadata = { podId: '3f0c6a2e-7d1b-4e55-9a43-0c1d2e3f4a5b', labels: { app: 'order-app' }, host: 'kind-worker', containerImage: 'registry.example/acme/order-app:1.0.0' };
const opensearch = loadFluentBitConfig('opensearch');
const pipeline = createPipeline({ config: opensearch.config, parsers: opensearch.parsers, env: openSearchEnvironment(), podMetadata: () => METADATA, now: () => 1_900_000_000 });
const app = workflowAppOutput();
const file = criLogFile(app);
const result = pipeline.readLogFile(LOG_PATH, file.content);

describe('fluent-bit/opensearch routing and bulk requests (model)', () => {
  it('routes exactly as the PostgreSQL configuration: the same lines to the same outputs, the same lines dropped', () => {
    const postgresql = loadFluentBitConfig('postgresql');
    const reference = createPipeline({ config: postgresql.config, parsers: postgresql.parsers, env: deployedEnvironment(), podMetadata: () => METADATA, now: () => 1_900_000_000 })
      .readLogFile(LOG_PATH, file.content);
    const view = (r: typeof result) => [r.delivered.map((d) => [d.output, d.tag, d.sourceLines, d.record]), r.dropped.map((d) => [d.stage, d.sourceLines]), r.filterDrops];
    expect(view(result)).toEqual(view(reference));
    expect([result.delivered.filter((d) => d.output === 'workflow_events').length, result.delivered.filter((d) => d.output === 'task_events').length]).toEqual([EXPECTED_RAW_ROWS.workflow, EXPECTED_RAW_ROWS.task]);
  });

  it('sends create actions into the record day\'s index with a generated id and no _type, the time key first, one request per chunk of a tag', () => {
    const requests = bulkRequests(pipeline, result.delivered, { maxRecordsPerChunk: 10 });
    expect(requests.map((r) => [r.output, r.items.length])).toEqual([
      ['workflow_events', 10], ['task_events', 10], ['task_events', 10], ['workflow_events', 10],
      ['task_events', 10], ['workflow_events', 10], ['task_events', 10], ['workflow_events', 6], ['task_events', 4],
    ]);
    const first = requests[0]!;
    const lines = first.body.split('\n');
    expect(lines).toHaveLength(21);
    const action = JSON.parse(lines[0]!) as { create: { _index: string; _id: string } };
    expect(Object.keys(action)).toEqual(['create']);
    expect(Object.keys(action.create)).toEqual(['_index', '_id']);
    const time = first.items[0]!.record.record['time'] as string;
    expect(action.create._index).toBe(`${WORKFLOW_RAW_PREFIX}-${time.slice(0, 10).replace(/-/g, '.')}`);
    expect(action.create._id).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    // `{"@timestamp":"<record time, ms truncated>",<the record as printed>}`: non-ASCII as \u escapes.
    expect(lines[1]!.slice(0, 40)).toBe(`{"@timestamp":"${time.slice(0, 23)}Z",`.slice(0, 40));
    expect(JSON.parse(lines[1]!)).toMatchObject({ '@timestamp': `${time.slice(0, 23)}Z`, time, stream: 'stdout', _p: 'F', kubernetes: { pod_name: POD } });
    expect([...first.body].every((c) => c.charCodeAt(0) < 0x80)).toBe(true);
    expect(requests.filter((r) => r.output === 'task_events').every((r) => r.items.every((i) => i.index.startsWith(`${TASK_RAW_PREFIX}-`)))).toBe(true);
  });

  it('gives the same record and time the same id on every delivery, and another record time another id in that day\'s index', () => {
    const again = bulkRequests(pipeline, pipeline.readLogFile(LOG_PATH, file.content).delivered);
    expect(again.map((r) => r.body)).toEqual(bulkRequests(pipeline, result.delivered).map((r) => r.body));
    const line = `${criTimestamp(Date.UTC(2026, 4, 12, 23, 59, 59, 999) * 1000 + 999)} stdout F {"eventType":"io.serverlessworkflow.task.started.v1","instanceId":"X","timestamp":1}\n`;
    const later = `${criTimestamp(Date.UTC(2026, 4, 13, 0, 0, 0, 0) * 1000)} stdout F {"eventType":"io.serverlessworkflow.task.started.v1","instanceId":"X","timestamp":1}\n`;
    const [a] = bulkRequests(pipeline, pipeline.readLogFile(LOG_PATH, Buffer.from(line)).delivered);
    const [b] = bulkRequests(pipeline, pipeline.readLogFile(LOG_PATH, Buffer.from(later)).delivered);
    expect([a!.items[0]!.index, b!.items[0]!.index]).toEqual([`${TASK_RAW_PREFIX}-2026.05.12`, `${TASK_RAW_PREFIX}-2026.05.13`]);
    expect(a!.items[0]!.document.startsWith('{"@timestamp":"2026-05-12T23:59:59.999Z",')).toBe(true);
    expect(a!.items[0]!.id).not.toBe(b!.items[0]!.id);
    expect(parseRfc3339(a!.items[0]!.record.record['time'] as string)).toBe(a!.items[0]!.record.time);
  });
});

const available = (await openSearchReachable()) && (await postgresReachable());

async function post(client: Client, request: BulkRequest): Promise<{ errors: boolean; items: BulkAnswerItem[] }> {
  const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: request.body });
  const body = response.body as { errors: boolean; items: { create: { _index: string; _id: string; status: number; error?: unknown } }[] };
  return { errors: body.errors, items: body.items.map(({ create }) => ({ index: create._index, id: create._id, status: create.status, error: create.error })) };
}

describe.skipIf(!available)('fluent-bit/opensearch bulk requests against the real OpenSearch node', () => {
  let ns: TestNamespace;
  let forwarder: ForwarderDatabase;
  beforeAll(async () => {
    ns = createTestNamespace();
    await applyRawSchema(ns.client, { prefix: ns.prefix });
    forwarder = await createForwarderDatabase('wi_fb_os_twin');
  });
  afterAll(async () => {
    await ns?.drop();
    await forwarder?.drop();
  });
  const requests = (): BulkRequest[] => bulkRequests(pipeline, result.delivered, { maxRecordsPerChunk: 7, indexPrefix: ns.prefix });

  it('creates every document (201), and a re-sent flush is answered 409 per item, which the output does not retry', async () => {
    for (const request of requests()) {
      const answer = await post(ns.client, request);
      expect(answer.items.filter((i) => i.status !== 201)).toEqual([]);
      expect(outputRetries(answer)).toBe(false);
    }
    for (const request of requests().slice(0, 3)) {
      const answer = await post(ns.client, request);
      expect([answer.errors, new Set(answer.items.map((i) => i.status))]).toEqual([true, new Set([409])]);
      expect(outputRetries(answer)).toBe(false);
    }
    await ns.refresh();
    const count = async (raw: string) => ((await ns.client.transport.request({ method: 'GET', path: `/${ns.prefix}${raw}-*/_count` })).body as { count: number }).count;
    expect([await count(WORKFLOW_RAW_PREFIX), await count(TASK_RAW_PREFIX)]).toEqual([EXPECTED_RAW_ROWS.workflow, EXPECTED_RAW_ROWS.task]);
  });

  it('normalizes into the same instances and executions, field by field, as the PostgreSQL ingest of the same log', async () => {
    const postgresql = loadFluentBitConfig('postgresql');
    const reference = createPipeline({ config: postgresql.config, parsers: postgresql.parsers, env: deployedEnvironment(), podMetadata: () => METADATA, now: () => 1_900_000_000 });
    for (const flush of flushStatements(reference, reference.readLogFile(LOG_PATH, file.content).delivered, 7)) await forwarder.client.query(flush.sql);
    const normalizer = new OpenSearchNormalizer({ client: ns.client, prefix: ns.prefix, refresh: true });
    await normalizer.setup();
    expect(await normalizer.acquire()).toBe(true);
    const cycle = await normalizer.cycle();
    expect(cycle.newRawEvents).toBe(EXPECTED_RAW_ROWS.workflow + EXPECTED_RAW_ROWS.task);
    const expected = await postgresqlState(forwarder.db);
    const actual = await openSearchState(ns.client, normalizer.names);
    expect([actual.instances.filter((i) => !i.placeholder).length, actual.executions.length]).toEqual([8, 22]);
    expect(actual.instances).toEqual(expected.instances);
    expect(actual.executions).toEqual(expected.executions);
    expect(actual.ingestErrorReasons).toEqual(expected.ingestErrorReasons);
  }, 120_000);
});
