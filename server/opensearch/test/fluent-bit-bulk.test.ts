// The _bulk shape of Fluent Bit's opensearch output, and how the real node answers it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { fluentBitBulkBody, fluentBitTimestamp, logstashIndexName, sendFluentBitBulk, writeEventLines } from '../src/fluent-bit-bulk.js';
import { type TestNamespace, createTestNamespace, openSearchReachable } from './support/test-node.js';

const available = await openSearchReachable();
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

  it('lets an event field named @timestamp replace the record time, as Fluent Bit prints only the last duplicate', () => {
    const body = fluentBitBulkBody('p', [{ line: '{"a":1,"@timestamp":"mine"}', recordTimeMs: T }]);
    expect(body.split('\n')[1]).toBe('{"a":1,"@timestamp":"mine"}');
  });
});

describe.skipIf(!available)('Fluent Bit bulk against the real node', () => {
  let ns: TestNamespace;
  beforeAll(async () => {
    ns = createTestNamespace();
    await applyRawSchema(ns.client, { prefix: ns.prefix });
  });
  afterAll(async () => {
    await ns?.drop();
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
    // A top-level `_source` field is refused by the node for that document alone.
    const records = [event(1, '1778577243.5'), { ...event(2, '1778577243.6'), line: event(2, '1778577243.6').line.replace('}', ',"_source":{"a":1}}') }, event(3, '"2026-05-12T09:14Z"')];
    const first = await sendFluentBitBulk(ns.client, prefix, records);
    expect(first.errors).toBe(true);
    expect(first.items.map((i) => i.status)).toEqual([201, 400, 201]);
    expect(first.items[1]!.error?.type).toBe('mapper_parsing_exception');
    expect(await count(`${prefix}-2026.05.12`)).toBe(2);

    const again = await sendFluentBitBulk(ns.client, prefix, records);
    expect(again.items.map((i) => i.status)).toEqual([409, 400, 409]);
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
