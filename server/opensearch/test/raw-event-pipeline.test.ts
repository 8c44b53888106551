// Raw events through the real ingest pipeline, written exactly as Fluent Bit's opensearch output writes them.
import { expect } from 'vitest';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { applyRawSchema } from '../src/apply-raw-schema.js';
import { fluentBitDocument, writeEventLines } from '../src/fluent-bit-bulk.js';
import type { TestNamespace } from './support/test-node.js';

const RECORD_TIME_MS = Date.UTC(2026, 4, 12, 9, 14, 3, 600);

interface RawDocument {
  readonly wi: {
    readonly instance_id?: string;
    readonly event_type?: string;
    readonly timestamp_us?: number;
    readonly start_time_us?: number;
    readonly end_time_us?: number;
    readonly last_update_time_us?: number;
    readonly ingest_time?: string;
    readonly errors?: string[];
  };
  readonly [field: string]: unknown;
}

describeOpenSearch('raw event pipeline (real OpenSearch node)', () => {
  let ns: TestNamespace;
  it.beforeAll(async ({ namespace }) => {
    ns = namespace;
    await applyRawSchema(ns.client, { prefix: ns.prefix });
  });

  /** Indexes one workflow event line and returns the stored document. */
  async function ingest(fields: string): Promise<RawDocument> {
    const line = `{"instanceId":"i-1","eventType":"io.serverlessworkflow.workflow.started.v1",${fields}}`;
    const result = await writeEventLines(ns.client, [{ line, recordTimeMs: RECORD_TIME_MS }], ns.prefix);
    expect(result.items.map((i) => i.status)).toEqual([201]);
    const doc = fluentBitDocument(`${ns.prefix}workflow-instance-events-raw`, { line, recordTimeMs: RECORD_TIME_MS });
    const response = await ns.client.transport.request({ method: 'GET', path: `/${doc.index}/_doc/${doc.id}` });
    return (response.body as { _source: RawDocument })._source;
  }

  const cases: readonly (readonly [string, string, number])[] = [
    ['E-notation seconds (Quarkus Flow)', '1.778577243512337E9', 1778577243512337],
    ['plain seconds', '1778577243', 1778577243000000],
    ['seconds with a fraction', '1778577243.5', 1778577243500000],
    ['milliseconds', '1778577243512', 1778577243512000],
    ['milliseconds with a fraction', '1778577243512.25', 1778577243512250],
    ['microseconds', '1778577243512337', 1778577243512337],
    ['nanoseconds as a number', '1778577243512337123', 1778577243512337],
    ['nanoseconds as a string', '"1778577243512337123"', 1778577243512337],
    ['nanoseconds as a string, half to even (down)', '"1778577243512336500"', 1778577243512336],
    ['nanoseconds as a string, half to even (up)', '"1778577243512337500"', 1778577243512338],
    ['numeric string with spaces and exponent', '" 1.778577243512337e9 "', 1778577243512337],
    ['ISO with Z and nanoseconds', '"2026-05-12T09:14:03.512337123Z"', 1778577243512337],
    ['ISO with +02:00', '"2026-05-12T11:14:03.512337+02:00"', 1778577243512337],
    ['ISO with -0530', '"2026-05-12T03:44:03.512337-0530"', 1778577243512337],
    ['ISO with +01', '"2026-05-12T10:14:03.512337+01"', 1778577243512337],
    ['ISO without seconds', '"2026-05-12T09:14Z"', 1778577240000000],
    ['ISO with a comma and half to even', '"2026-05-12T09:14:03,5123365Z"', 1778577243512336],
    ['ISO lower-case t and z', '"2026-05-12t09:14:03.5z"', 1778577243500000],
  ];
  for (const [name, value, micros] of cases) {
    it(`timestamp: ${name} → ${micros} µs`, async () => {
      const doc = await ingest(`"timestamp":${value}`);
      expect(doc.wi.timestamp_us).toBe(micros);
      expect(doc.wi.errors).toBeUndefined();
    });
  }

  it('converts startTime, endTime and lastUpdateTime the same way and sets the ingest time', async () => {
    const before = Date.now();
    const doc = await ingest('"timestamp":1778577243.512337,"startTime":"2026-05-12T09:14:03.5Z","endTime":1778577243600,"lastUpdateTime":"1778577243700000"');
    expect(doc.wi).toMatchObject({ instance_id: 'i-1', event_type: 'io.serverlessworkflow.workflow.started.v1', timestamp_us: 1778577243512337, start_time_us: 1778577243500000, end_time_us: 1778577243600000, last_update_time_us: 1778577243700000 });
    const ingested = Date.parse(doc.wi.ingest_time!);
    expect(ingested).toBeGreaterThanOrEqual(before - 60_000); // the node's clock, not ours: only a sanity bound
  });

  it('keeps the event fields as sent (raw values unmapped) next to the derived ones', async () => {
    const doc = await ingest('"timestamp":"2026-05-12T09:14Z","input":{"n":1}');
    expect(doc['timestamp']).toBe('2026-05-12T09:14Z');
    expect(doc['@timestamp']).toBe('2026-05-12T09:14:03.600Z');
    expect(doc['input']).toEqual({ n: 1 });
  });

  it('stores a document with unreadable times with the reasons instead of rejecting it', async () => {
    const doc = await ingest('"timestamp":"yesterday","startTime":"2026-05-12T09:14:03","endTime":"2026-02-30T00:00:00Z","lastUpdateTime":1.0e30');
    expect(doc.wi.timestamp_us).toBeUndefined();
    expect(doc.wi.errors).toEqual([
      'timestamp yesterday: not a number or an ISO-8601 time with an offset',
      'startTime 2026-05-12T09:14:03: an ISO-8601 time needs an offset (Z or +hh:mm)',
      "endTime 2026-02-30T00:00:00Z: Invalid date 'FEBRUARY 30'",
      'lastUpdateTime 1.0E30: outside the supported time range',
    ]);
    expect(doc.wi.instance_id).toBe('i-1');
  });

  it('stores an event with a non-string instanceId, with the reason', async () => {
    const line = '{"instanceId":{"id":42},"eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":1778577243}';
    const result = await writeEventLines(ns.client, [{ line, recordTimeMs: RECORD_TIME_MS }], ns.prefix);
    expect(result.items.map((i) => i.status)).toEqual([201]);
    const { index, id } = result.items[0]!;
    const doc = ((await ns.client.transport.request({ method: 'GET', path: `/${index}/_doc/${id}` })).body as { _source: RawDocument })._source;
    expect(doc.wi.errors).toEqual(['instanceId must be a string, got object']);
    expect(doc.wi.instance_id).toBeUndefined();
    expect(doc.wi.timestamp_us).toBe(1778577243000000);
    expect(doc['instanceId']).toEqual({ id: 42 });
  });

  it('reads 1e30 as 1, because Fluent Bit reads a number token without "." or a signed exponent with strtoull', async () => {
    const doc = await ingest('"timestamp":1e30');
    expect(doc['timestamp']).toBe(1);
    expect(doc.wi.timestamp_us).toBe(1000000);
  });

  it('records a missing instanceId and a non-string eventType', async () => {
    const line = '{"eventType":7,"timestamp":1778577243}';
    const result = await writeEventLines(ns.client, [{ line, recordTimeMs: RECORD_TIME_MS }], ns.prefix);
    expect(result.items.map((i) => i.status)).toEqual([201]);
    const { index, id } = result.items[0]!;
    const doc = ((await ns.client.transport.request({ method: 'GET', path: `/${index}/_doc/${id}` })).body as { _source: RawDocument })._source;
    expect(doc.wi.errors).toEqual(['missing instanceId', 'eventType must be a string, got number']);
  });
});
