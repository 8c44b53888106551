// The _bulk shape of Fluent Bit's opensearch output, and how the real node answers it.
import { describe, expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import fc from 'fast-check';
import { documentRuleLine, fluentBitBulkBody, fluentBitDocument, fluentBitTimestamp, logstashIndexName, sendFluentBitBulk, writeEventLines } from '../src/fluent-bit-bulk.js';
import type { TestNamespace } from './support/test-node.js';

const T = Date.UTC(2026, 4, 12, 23, 59, 59, 999) + 0.9; // sub-millisecond part is truncated, as Fluent Bit does

describe('Fluent Bit bulk shape', () => {
  it('pairs a create action (daily index of the record time, generated id) with @timestamp first, then the event as printed', () => {
    const line = '{ "instanceId" : "i-1", "eventType":"io.serverlessworkflow.workflow.started.v1", "timestamp": 1.7954415230510702E9, "n": 1.0E3 }';
    const body = fluentBitBulkBody('workflow-instance-events-raw', [{ line, recordTimeMs: T }]);
    const [action, source, end] = body.split('\n');
    expect(end).toBe('');
    expect(action).toMatch(/^\{"create":\{"_index":"workflow-instance-events-raw-2026\.05\.12","_id":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"\}\}$/);
    expect(source).toBe('{"@timestamp":"2026-05-12T23:59:59.999Z","instanceId":"i-1","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1795441523.05107,"n":1000.0}');
  });

  it('gives the same id to the same record and time, another id for another record time', () => {
    const line = '{"instanceId":"i-1","eventType":"x","timestamp":1}';
    const id = (t: number) => /"_id":"([^"]+)"/.exec(fluentBitBulkBody('p', [{ line, recordTimeMs: t }]))![1];
    expect(id(T)).toBe(id(T));
    expect(id(T)).not.toBe(id(T + 1));
  });

  it('names indices and @timestamp in UTC', () => {
    expect(logstashIndexName('task-execution-events-raw', Date.UTC(2026, 0, 1, 0, 0, 0))).toBe('task-execution-events-raw-2026.01.01');
    expect(fluentBitTimestamp(Date.UTC(2026, 0, 1, 0, 0, 0, 7))).toBe('2026-01-01T00:00:00.007Z');
  });

  it('applies the OpenSearch document rule of our Fluent Bit configuration: the event\'s own @timestamp never replaces the record time, `_*` names are renamed, the last repeated name stays', () => {
    const line = '{"a":1,"@timestamp":"mine","_id":"x","_routing":"r","wi":2,"kubernetes":{},"b":{"c":1,"c":2},"a":3}';
    const body = fluentBitBulkBody('p', [{ line, recordTimeMs: T }]);
    expect(body.split('\n')[1]).toBe('{"@timestamp":"2026-05-12T23:59:59.999Z","wi_event_@timestamp":"mine","wi_event__id":"x","wi_event__routing":"r","wi_event_wi":2,"wi_event_kubernetes":{},"b":{"c":2},"a":3}');
    expect(documentRuleLine(line)).toBe('{"wi_event_@timestamp":"mine","wi_event__id":"x","wi_event__routing":"r","wi_event_wi":2,"wi_event_kubernetes":{},"b":{"c":2},"a":3}');
  });

  it('sends every line as the document rule leaves it (the one rule, not a copy): @timestamp is always the record time, no top-level name the node takes or refuses', () => {
    const name = fc.oneof(fc.constantFrom('a', '_id', '_source', '@timestamp', 'wi', 'kubernetes', '', '.a', 'a..b', 'wi_event__id', 'é', ' ..', 'a. .b', '\t.', 'a..', ' '), fc.string({ maxLength: 3 }));
    const lines = fc.array(fc.tuple(name, fc.jsonValue({ maxDepth: 2 })), { maxLength: 8 })
      .map((members) => `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
    fc.assert(fc.property(lines, fc.integer({ min: 0, max: 4_102_444_800_000 }), (line, recordTimeMs) => {
      const document = fluentBitDocument('p', { line, recordTimeMs });
      expect(document).toEqual(fluentBitDocument('p', { line: documentRuleLine(line), recordTimeMs }));
      const names = [...document.source.matchAll(/^\{"@timestamp":"([^"]+)"/g)].map((m) => m[1]);
      expect(names).toEqual([fluentBitTimestamp(recordTimeMs)]);
      const parsed = JSON.parse(document.source) as Record<string, unknown>;
      expect(parsed['@timestamp']).toBe(fluentBitTimestamp(recordTimeMs));
      expect(Object.keys(parsed).filter((k) => k.startsWith('_') || k === 'wi' || k === 'kubernetes' || k === '' || (k.includes('.') && k.replace(/\.+$/, '').split('.').some((part) => [...part].every((c) => c <= ' '))))).toEqual([]);
    }), { numRuns: 300 });
  });
});

describeOpenSearch('Fluent Bit bulk against the real node', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    await applyRawSchema(ns.client, { prefix: ns.prefix });
  });

  async function count(index: string): Promise<number> {
    await ns.refresh();
    const response = await ns.client.transport.request({ method: 'GET', path: `/${index}/_count` }, { ignore: [404] });
    return response.statusCode === 404 ? 0 : (response.body as { count: number }).count;
  }

  const event = (n: number, timestamp: string) => ({
    line: `{"instanceId":"i-${n}","eventType":"io.serverlessworkflow.workflow.status-changed.v1","status":"RUNNING","timestamp":${timestamp}}`,
    recordTimeMs: Date.UTC(2026, 4, 12, 9, 0, 0, n),
  });

  it('keeps the good items of a bulk when one item fails, and re-sending it creates nothing twice (409 per item)', async () => {
    const prefix = `${ns.prefix}workflow-instance-events-raw`;
    // An index with a write block refuses the item of that day alone (the document rule leaves no event the node
    // refuses for its own content, so the refusal comes from the index).
    await ns.client.transport.request({ method: 'PUT', path: `/${prefix}-2026.05.11`, body: { settings: { 'index.blocks.write': true } } });
    const records = [event(1, '1778577243.5'), { ...event(2, '1778577243.6'), recordTimeMs: Date.UTC(2026, 4, 11, 9) }, event(3, '"2026-05-12T09:14Z"')];
    const first = await sendFluentBitBulk(ns.client, prefix, records);
    expect(first.errors).toBe(true);
    expect(first.items.map((i) => i.status)).toEqual([201, 403, 201]);
    expect(first.items[1]!.error?.type).toBe('cluster_block_exception');
    expect(await count(`${prefix}-2026.05.12`)).toBe(2);

    const again = await sendFluentBitBulk(ns.client, prefix, records);
    expect(again.items.map((i) => i.status)).toEqual([409, 403, 409]);
    expect(again.items.map((i) => i.id)).toEqual(first.items.map((i) => i.id));
    expect(await count(`${prefix}-2026.05.12`)).toBe(2);
  });

  it('fails a whole flush when one document is not JSON (Fluent Bit prints an infinite double as inf): such values must be sanitized before the output', async () => {
    const prefix = `${ns.prefix}workflow-instance-events-raw`;
    const records = [event(11, '1778577243.5'), event(12, '1.5e999'), event(13, '1778577243.7')];
    expect(fluentBitBulkBody(prefix, records)).toContain('"timestamp":inf}');
    const result = await sendFluentBitBulk(ns.client, prefix, records);
    expect(result.items.map((i) => [i.status, i.error?.reason])).toEqual([
      [400, 'Failed to parse content to map'],
      [400, 'Failed to parse content to map'],
      [400, 'Failed to parse content to map'],
    ]);
  });

  it('creates events carrying names the node takes or refuses (the document rule renamed them): no routing, the record time as @timestamp, the values kept', async () => {
    const prefix = `${ns.prefix}workflow-instance-events-raw`;
    const line = event(21, '1778577243.5').line.replace('}', ',"_source":{"a":1},"_routing":"r","_id":"mine","@timestamp":"2020-01-01T00:00:00Z","s":1,"s":2}');
    const result = await sendFluentBitBulk(ns.client, prefix, [{ line, recordTimeMs: Date.UTC(2026, 4, 12, 9, 0, 0, 21) }]);
    expect(result.items.map((i) => [i.status, i.error])).toEqual([[201, undefined]]);
    await ns.refresh();
    const found = await ns.client.transport.request({ method: 'GET', path: `/${prefix}-2026.05.12/_doc/${result.items[0]!.id}` });
    const doc = found.body as { _routing?: string; _source: Record<string, unknown> };
    expect(doc._routing).toBeUndefined();
    expect(doc._source).toMatchObject({ '@timestamp': '2026-05-12T09:00:00.021Z', 'wi_event_@timestamp': '2020-01-01T00:00:00Z', wi_event__source: { a: 1 }, wi_event__routing: 'r', wi_event__id: 'mine', s: 2 });
  });

  it('routes task and workflow events to their daily raw indices by the record date', async () => {
    const result = await writeEventLines(
      ns.client,
      [
        { line: '{"instanceId":"r-1","eventType":"io.serverlessworkflow.task.started.v1","taskPosition":"do/0/a","timestamp":1778577243.1}', recordTimeMs: Date.UTC(2026, 4, 12, 23, 59, 59) },
        { line: '{"instanceId":"r-1","eventType":"io.serverlessworkflow.workflow.completed.v1","timestamp":1778577243.2}', recordTimeMs: Date.UTC(2026, 4, 13, 0, 0, 1) },
      ],
      ns.prefix,
    );
    expect(result.items.map((i) => [i.index, i.status])).toEqual([
      [`${ns.prefix}workflow-instance-events-raw-2026.05.13`, 201],
      [`${ns.prefix}task-execution-events-raw-2026.05.12`, 201],
    ]);
  });
});
