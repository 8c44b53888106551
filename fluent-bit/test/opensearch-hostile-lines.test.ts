// Hostile producer lines between good events, through the model of fluent-bit/opensearch (join, repair, document
// rule, parse, route; both Fluent Bit versions), sent as the opensearch outputs send them to the REAL local node
// (raw templates and pipeline under a test prefix): OpenSearch creates every document, so no chunk is retried for
// ever, the good events are normalized and what cannot be an event is recorded as an ingest error. Without
// opensearch-document.lua the node refuses such documents (some fail every item of the request, its good events
// included), which the output retries without end, or silently rewrites them: the cases below.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRawSchema } from '@workflow-index/opensearch';
import { OpenSearchNormalizer } from '@workflow-index/opensearch';
import { loadFluentBitConfig } from '../model/load-config.js';
import { FLUENT_BIT_VERSIONS } from '../model/flb-json-parser.js';
import { createPipeline } from '../model/pipeline.js';
import type { LuaFunction } from '../model/lua-filter.js';
import { type BulkAnswerItem, type BulkRequest, bulkRequests, outputRetries } from '../model/opensearch-output.js';
import { podLogPath, criTimestamp } from '@workflow-index/testkit';
import { type TestNamespace, createTestNamespace, openSearchReachable } from '@workflow-index/opensearch/testing';
import { openSearchEnvironment } from './support/opensearch-environment.js';

const available = await openSearchReachable();

const GOOD = '01KRDQDZBR7492YQWM736PEENJ';
const HOSTILE = '01KRDQDZBS8TBDWA72Q1575QHY';
const WF = 'io.serverlessworkflow.workflow';
const TASK = 'io.serverlessworkflow.task';
const wf = (kind: string, extra: string, id = GOOD, ts = '1.778577243512337E9'): string =>
  `{"eventType":"${WF}.${kind}.v1","instanceId":"${id}","workflowNamespace":"com.acme","workflowName":"order","workflowVersion":"1.0.0","timestamp":${ts}${extra}}`;
const task = (kind: string, extra: string, ts: string): string =>
  `{"eventType":"${TASK}.${kind}.v1","instanceId":"${GOOD}","taskName":"validate","taskPosition":"do/0/validate","timestamp":${ts}${extra}}`;
const status = (extra: string): string => wf('status-changed', `,"status":"RUNNING"${extra}`, HOSTILE);

const GOOD_LINES = [
  wf('started', ',"input":{"orderId":"A-1","qty":2}'),
  task('started', ',"input":{"orderId":"A-1"}', '1.778577243512400E9'),
  task('completed', ',"output":{"ok":true}', '1.778577243512500E9'),
  wf('completed', ',"output":{"ok":true}', GOOD, '1.778577243512600E9'),
];

/**
 * What the node does with each line when opensearch-document.lua (and event-kubernetes.lua, which renames the
 * event's own `kubernetes` first) are left out: `refused` (the item fails), `bulk
 * refused` (the whole request fails, its good events included: the ingest pipeline cannot read the document),
 * `rewritten` (created, but the event's own field is gone or has changed the document's routing), `dropped` (never
 * sent: the kubernetes filter appends a second `kubernetes`, the require_pod_metadata grep reads the event's own
 * one, finds no pod_id and drops the event as if its pod lookup had failed), `created`.
 */
type Outcome = 'created' | 'refused' | 'bulk refused' | 'rewritten' | 'dropped';

/** [what, line, what happens without opensearch-document.lua, the field that is rewritten] */
const HOSTILE_LINES: readonly [string, string, Outcome, string?][] = [
  ['a top-level _id', status(',"_id":"x"'), 'rewritten', '_id'],
  ['a top-level _routing', status(',"_routing":"r"'), 'rewritten', '_routing'],
  ['a top-level _source', status(',"_source":{"a":1}'), 'refused'],
  ['a top-level _seq_no', status(',"_seq_no":"s"'), 'refused'],
  ['a top-level _if_seq_no (500)', status(',"_if_seq_no":"s"'), 'bulk refused'],
  // Fluent Bit's printer (msgpack2json) prints a repeated name once, with its last value, at every depth: the event's
  // @timestamp replaces the output's, the kubernetes filter's `kubernetes` replaces the event's (its value is lost),
  // and OpenSearch never sees a repeated name. (These four used to expect 'bulk refused' / 'dropped': the model
  // printed every entry and read the first of a repeated key.)
  ['its own @timestamp (the output adds one more)', status(',"@timestamp":"2026-01-01T00:00:00Z"'), 'created'],
  ['its own kubernetes field', status(',"kubernetes":{"x":1}'), 'created'],
  ['a wi field (the raw pipeline writes there)', status(',"wi":"mine"'), 'rewritten', 'wi'],
  ['a repeated top-level name', status(',"n":1,"n":2'), 'created'],
  ['a repeated name in the payload', status(',"input":{"a":1,"b":{"c":1,"c":2}}'), 'created'],
  ['an empty top-level name', status(',"":1'), 'refused'],
  ['top-level names with empty dot segments', status(',".a":1,"b..c":2'), 'refused'],
  ['deep arrays inside a payload', status(`,"input":{"deep":${'['.repeat(900)}${']'.repeat(900)}}`), 'created'],
  ['numbers a double cannot hold (repaired by repair-line.lua)', status(',"n":[1e999,-1e+999]'), 'created'],
  ['a truncated event line (unparsed)', wf('started', ',"input":{"orderId":"A-2"', HOSTILE), 'created'],
];

function criFile(lines: readonly string[]): Buffer {
  return Buffer.concat(lines.map((line, i) => Buffer.from(`${criTimestamp(1_778_577_243_512_700 + i * 137)} stdout F ${line}\n`)));
}

const printed = [GOOD_LINES[0]!, ...HOSTILE_LINES.map(([, line]) => line), ...GOOD_LINES.slice(1)];

async function post(ns: TestNamespace, request: BulkRequest): Promise<{ errors: boolean; items: BulkAnswerItem[] }> {
  const response = await ns.client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: request.body });
  const body = response.body as { errors: boolean; items: { create: { _index: string; _id: string; status: number; error?: unknown } }[] };
  return { errors: body.errors, items: body.items.map(({ create }) => ({ index: create._index, id: create._id, status: create.status, error: create.error })) };
}

describe.skipIf(!available).each(FLUENT_BIT_VERSIONS)('hostile lines among good events, Fluent Bit %s model → the real OpenSearch node', (version) => {
  const { config, parsers } = loadFluentBitConfig('opensearch');
  const pipelineWith = (luaScripts: Record<string, () => LuaFunction> = {}) => createPipeline({
    config, parsers, env: openSearchEnvironment(), version, now: () => 1_900_000_000, luaScripts,
    podMetadata: () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
  });
  const result = pipelineWith().readLogFile(podLogPath('order-app-1', 'workflows', 'app'), criFile(printed));
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = createTestNamespace();
    await applyRawSchema(ns.client, { prefix: ns.prefix });
  });
  afterAll(async () => ns?.drop());

  it('delivers every printed line (none vanishes), in one chunk per tag', () => {
    expect([result.dropped, result.held, result.delivered.length]).toEqual([[], [], printed.length]);
    expect(bulkRequests(pipelineWith(), result.delivered, { maxRecordsPerChunk: 1000 }).map((r) => [r.output, r.tag, r.items.length])).toEqual([
      ['workflow_events', 'workflow-index.workflow', printed.length - 3],
      ['workflow_events', 'workflow-index.unparsed', 1],
      ['task_events', 'workflow-index.task', 2],
    ]);
  });

  it('OpenSearch creates every document (no chunk retried for ever); the good events are normalized, the unparsed line is an ingest error', async () => {
    for (const request of bulkRequests(pipelineWith(), result.delivered, { maxRecordsPerChunk: 1000, indexPrefix: ns.prefix })) {
      const answer = await post(ns, request);
      expect(answer.items.filter((i) => i.status !== 201)).toEqual([]);
      expect(outputRetries(answer)).toBe(false);
    }
    // Renamed, not lost: the event's own values are in the raw document under wi_event_<name>.
    await ns.refresh();
    const raw = await ns.client.transport.request({ method: 'POST', path: `/${ns.prefix}workflow-instance-events-raw-*/_search`, body: { size: 100, query: { exists: { field: 'wi.instance_id' } } } });
    const sources = (raw.body as { hits: { hits: { _source: Record<string, unknown>; _routing?: string }[] } }).hits.hits;
    expect(sources.some((h) => h._source['wi_event__id'] === 'x')).toBe(true);
    expect(sources.some((h) => h._source['wi_event_@timestamp'] === '2026-01-01T00:00:00Z')).toBe(true);
    expect(sources.some((h) => h._source['wi_event_wi'] === 'mine')).toBe(true);
    expect(sources.every((h) => h._routing === undefined)).toBe(true);

    const normalizer = new OpenSearchNormalizer({ client: ns.client, prefix: ns.prefix, refresh: true });
    await normalizer.setup();
    expect(await normalizer.acquire()).toBe(true);
    const cycle = await normalizer.cycle();
    expect(cycle.newRawEvents).toBe(printed.length);
    const doc = await ns.client.transport.request({ method: 'GET', path: `/${normalizer.names.workflowInstances}/_doc/${GOOD}` });
    expect((doc.body as { _source: { status: string; input_json: string } })._source).toMatchObject({ status: 'COMPLETED', input_json: '{"qty": 2, "orderId": "A-1"}' });
    await ns.refresh();
    const errors = await ns.client.transport.request({ method: 'POST', path: `/${normalizer.names.ingestErrors}/_search`, body: { size: 100 } });
    // The truncated line is the one document that cannot be an event: the fault of its text is the reason.
    expect((errors.body as { hits: { hits: { _source: { reason: string } }[] } }).hits.hits.map((h) => h._source.reason)).toEqual(['event is not valid JSON: ends before the JSON text is complete']);
  }, 120_000);

  it('without opensearch-document.lua (and event-kubernetes.lua) the node refuses or rewrites exactly the documented lines (a refused item makes the output retry its chunk for ever)', async () => {
    const unsanitized = pipelineWith({ 'opensearch-document.lua': () => () => ({ code: 0 }), 'event-kubernetes.lua': () => () => ({ code: 0 }) });
    const outcomes: [string, Outcome][] = [];
    for (const [k, [what, line, , field]] of HOSTILE_LINES.entries()) {
      // One request per hostile line, with a good event beside it, into indices of their own.
      const prefix = `${ns.prefix}u${k}-`;
      await applyRawSchema(ns.client, { prefix });
      const delivered = unsanitized.readLogFile(podLogPath('order-app-2', 'workflows', 'app'), criFile([GOOD_LINES[0]!, line])).delivered;
      if (!delivered.some((d) => d.sourceLines[0] === 2)) {
        outcomes.push([what, 'dropped']);
        continue;
      }
      const statuses: number[] = [];
      const created: { index: string; id: string }[] = [];
      for (const request of bulkRequests(unsanitized, delivered, { indexPrefix: prefix })) {
        const answer = await post(ns, request);
        statuses.push(...answer.items.map((i) => i.status));
        created.push(...answer.items.filter((i) => i.status === 201 && request.items.some((r) => r.id === i.id && r.record.sourceLines[0] === 2)));
        expect(outputRetries(answer), what).toBe(answer.items.some((i) => i.status !== 201));
      }
      let outcome: Outcome = statuses.every((x) => x === 201) ? 'created' : statuses.every((x) => x >= 400) ? 'bulk refused' : 'refused';
      if (outcome === 'created' && field !== undefined) {
        await ns.client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh` });
        const found = await ns.client.transport.request({ method: 'POST', path: `/${prefix}*/_search`, body: { query: { ids: { values: created.map((c) => c.id) } } } });
        const source = (found.body as { hits: { hits: { _source: Record<string, unknown> }[] } }).hits.hits[0]!._source;
        const original = (JSON.parse(line) as Record<string, unknown>)[field];
        if (source[field] !== original) outcome = 'rewritten';
      }
      outcomes.push([what, outcome]);
    }
    expect(outcomes).toEqual(HOSTILE_LINES.map(([what, , outcome]) => [what, outcome]));
  }, 120_000);
});
