// The node's hard limits, through the model of fluent-bit/opensearch (runtime's 16 KiB parts joined, line repair,
// document rule, parse, route; both Fluent Bit versions) to the REAL local node (raw templates and pipeline under a
// test prefix). Measured on OpenSearch 3.8.0:
//   - nesting: the parser refuses a document nested deeper than 1000 containers, the top-level object counted
//     (StreamReadConstraints maxNestingDepth); the raw indices' index.mapping.depth.limit (default 20) refuses a
//     top-level array nested deeper than 20, so the raw templates set it to 1000; repair-line.lua's R5 turns every
//     container deeper than 1000 into a string.
//   - member names: longer than 50,000 bytes of UTF-8 refused (maxNameLength); opensearch-document.lua's D3 keeps
//     such a member as text under `wi_event_long_name`.
// So every line below is created (no chunk retried for ever), the events are normalized, and without the two
// rules the node refuses exactly the lines beyond its limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRawSchema } from '@workflow-index/opensearch';
import { OpenSearchNormalizer } from '@workflow-index/opensearch';
import { loadFluentBitConfig } from '../model/load-config.js';
import { FLUENT_BIT_VERSIONS } from '../model/flb-json-parser.js';
import { createPipeline } from '../model/pipeline.js';
import type { LuaFunction } from '../model/lua-filter.js';
import { type BulkAnswerItem, type BulkRequest, bulkRequests, outputRetries } from '../model/opensearch-output.js';
import { podLogPath, criLogFile } from '@workflow-index/testkit';
import { type TestNamespace, createTestNamespace, openSearchReachable } from '@workflow-index/opensearch/testing';
import { openSearchEnvironment } from './support/opensearch-environment.js';

const available = await openSearchReachable();
if (!available && process.env['CI'] === 'true') throw new Error('the OpenSearch node is required in CI (npm run opensearch -- start)');

const WF = 'io.serverlessworkflow.workflow';
const id = (n: number): string => `01KRDQDZBR7492YQWM736PE${String(n).padStart(3, '0')}`;
const started = (n: number, extra: string): string =>
  `{"eventType":"${WF}.started.v1","instanceId":"${id(n)}","workflowNamespace":"com.acme","workflowName":"order","workflowVersion":"1.0.0","timestamp":1.778577243512337E9${extra}}`;
const arrays = (n: number): string => `${'['.repeat(n)}1${']'.repeat(n)}`;
const objects = (n: number): string => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const OVER = 'n'.repeat(50_001);

/** [what, extra members of a started event, refused by the node without the repair and document rules] */
const LINES: readonly [string, string, boolean][] = [
  ['a top-level array nested 999 deep (1000 with the event object)', `,"n":${arrays(999)}`, false],
  ['a top-level array nested 1200 deep', `,"n":${arrays(1200)}`, true],
  ['objects nested 999 deep in the input', `,"input":${objects(999)}`, false],
  ['objects nested 1500 deep in the input', `,"input":${objects(1500)}`, true],
  ['a top-level name of exactly 50,000 bytes', `,"${'n'.repeat(50_000)}":1`, false],
  ['a top-level name of 50,001 bytes', `,"${OVER}":{"kept":true}`, true],
  ['a name of 25,001 two-byte characters in the input', `,"input":{"${'é'.repeat(25_001)}":1,"qty":2}`, true],
];

async function post(ns: TestNamespace, request: BulkRequest): Promise<{ errors: boolean; items: BulkAnswerItem[] }> {
  const response = await ns.client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: request.body });
  const body = response.body as { errors: boolean; items: { create: { _index: string; _id: string; status: number; error?: unknown } }[] };
  return { errors: body.errors, items: body.items.map(({ create }) => ({ index: create._index, id: create._id, status: create.status, error: create.error })) };
}

describe.skipIf(!available).each(FLUENT_BIT_VERSIONS)('lines at and beyond the node\'s limits, Fluent Bit %s model → the real OpenSearch node', (version) => {
  const { config, parsers } = loadFluentBitConfig('opensearch');
  const pipelineWith = (luaScripts: Record<string, () => LuaFunction> = {}) => createPipeline({
    config, parsers, env: openSearchEnvironment(), version, now: () => 1_900_000_000, luaScripts,
    podMetadata: () => ({ podId: 'a1b2', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
  });
  // As the runtime writes them: lines over 16 KiB in P parts.
  const file = criLogFile(LINES.map(([, extra], n) => ({ stream: 'stdout' as const, text: started(n, extra) })), { startMicros: 1_778_577_243_512_700 });
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = createTestNamespace();
    await applyRawSchema(ns.client, { prefix: ns.prefix });
  });
  afterAll(async () => ns?.drop());

  it('OpenSearch creates every document (no chunk retried for ever) and the normalizer takes every event', async () => {
    const result = pipelineWith().readLogFile(podLogPath('order-app-1', 'workflows', 'app'), file.content);
    expect([result.dropped, result.held, result.delivered.length]).toEqual([[], [], LINES.length]);
    for (const request of bulkRequests(pipelineWith(), result.delivered, { indexPrefix: ns.prefix })) {
      const answer = await post(ns, request);
      expect(answer.items.filter((i) => i.status !== 201)).toEqual([]);
      expect(outputRetries(answer)).toBe(false);
    }
    await ns.refresh();
    const raw = await ns.client.transport.request({ method: 'POST', path: `/${ns.prefix}workflow-instance-events-raw-*/_search`, body: { size: 100 } });
    const sources = new Map((raw.body as { hits: { hits: { _source: Record<string, unknown> }[] } }).hits.hits.map((h) => [h._source['instanceId'], h._source]));
    // Beyond the limits, kept as text: the too deep container as a string, the long-named member whole.
    let value = sources.get(id(1))!['n'];
    for (let depth = 2; depth <= 1000; depth++) value = (value as unknown[])[0];
    expect(value).toBe(arrays(201)); // containers 1001 to 1201 deep, as text
    expect(JSON.parse(`{${sources.get(id(5))!['wi_event_long_name'] as string}}`)).toEqual({ [OVER]: { kept: true } });
    expect(sources.get(id(6))!['input']).toEqual({ wi_event_long_name: `"${'é'.repeat(25_001)}":1`, qty: 2 });

    const normalizer = new OpenSearchNormalizer({ client: ns.client, prefix: ns.prefix, refresh: true });
    await normalizer.setup();
    expect(await normalizer.acquire()).toBe(true);
    const cycle = await normalizer.cycle();
    expect(cycle.newRawEvents).toBe(LINES.length);
    await ns.refresh();
    const instances = await ns.client.transport.request({ method: 'POST', path: `/${normalizer.names.workflowInstances}/_search`, body: { size: 100, _source: ['status'] } });
    expect((instances.body as { hits: { hits: { _id: string; _source: { status: string } }[] } }).hits.hits.map((h) => [h._id, h._source.status]).sort())
      .toEqual(LINES.map((_, n) => [id(n), 'RUNNING']));
    const errors = await ns.client.transport.request({ method: 'POST', path: `/${normalizer.names.ingestErrors}/_search`, body: { size: 100 } });
    expect((errors.body as { hits: { total: { value: number } } }).hits.total.value).toBe(0);
  }, 180_000);

  it('without the line repair and the document rule the node refuses exactly the lines beyond its limits', async () => {
    const bare = pipelineWith({ 'repair-line.lua': () => () => ({ code: 0 }), 'opensearch-document.lua': () => () => ({ code: 0 }) });
    const result = bare.readLogFile(podLogPath('order-app-2', 'workflows', 'app'), file.content);
    const prefix = `${ns.prefix}bare-`;
    await applyRawSchema(ns.client, { prefix });
    const refused = new Set<number>();
    for (const request of bulkRequests(bare, result.delivered, { indexPrefix: prefix, maxRecordsPerChunk: 1 })) {
      const answer = await post(ns, request);
      if (answer.items.some((i) => i.status !== 201)) {
        expect(outputRetries(answer)).toBe(true);
        refused.add(request.items[0]!.record.sourceLines[0]!);
      }
    }
    const physical = (n: number): number => file.lines.find((l) => l.source === n && !l.partial)!.line;
    expect(LINES.map(([what], n) => [what, refused.has(physical(n)) || refused.has(file.lines.find((l) => l.source === n)!.line)]))
      .toEqual(LINES.map(([what, , refusedWithout]) => [what, refusedWithout]));
  }, 180_000);
});
