// The exact statement Fluent Bit's pgsql output sends for one flush (plugins/out_pgsql, FLB_PGSQL_INSERT):
//   INSERT INTO <table> SELECT <tag literal>, to_timestamp(CAST(value->>'<Timestamp_Key>' as FLOAT)), * FROM json_array_elements(<json literal>);
// Literals are escaped the way libpq's PQescapeLiteral does it. Everything that stands in for Fluent Bit
// (init-job ingest, the dev-mode demo loader, tests, benchmarks) writes through this one function, so the
// triggers are exercised exactly as in production.

export const FLUENT_BIT_TIMESTAMP_KEY = 'wi_record_time';

/** libpq PQescapeLiteral: single quotes doubled; with any backslash, backslashes doubled and an ` E` prefix. */
export function escapeLiteral(text: string): string {
  const hasBackslash = text.includes('\\');
  let body = text.replace(/'/g, "''");
  if (hasBackslash) body = body.replace(/\\/g, '\\\\');
  return `${hasBackslash ? ' E' : ''}'${body}'`;
}

export interface FluentBitRecord {
  readonly [key: string]: unknown;
}

/**
 * Builds one flush statement. Each record gets the Timestamp_Key (`wi_record_time`, epoch seconds as a double) the way
 * Fluent Bit adds its record time; when `recordTime` is omitted the event's own `timestamp` is used if numeric.
 */
export function fluentBitInsertStatement(
  table: string,
  tag: string,
  records: readonly FluentBitRecord[],
  recordTime?: (record: FluentBitRecord, index: number) => number,
): string {
  const rows = records.map((record, index) => {
    const date = recordTime ? recordTime(record, index) : defaultRecordTime(record);
    return { ...record, [FLUENT_BIT_TIMESTAMP_KEY]: date };
  });
  return `INSERT INTO ${table} SELECT ${escapeLiteral(tag)}, to_timestamp(CAST(value->>'${FLUENT_BIT_TIMESTAMP_KEY}' as FLOAT)), * FROM json_array_elements(${escapeLiteral(JSON.stringify(rows))});`;
}

/**
 * A record as Fluent Bit prints it: the Timestamp_Key first, then the record's own object text exactly as given
 * (key order, number spelling and escapes untouched). `objectText` is one JSON object.
 */
export function withRecordTimeFirst(objectText: string, epochSeconds: number): string {
  if (!Number.isFinite(epochSeconds)) throw new RangeError(`record time must be finite, got ${epochSeconds}`);
  const text = objectText.trim();
  if (!text.startsWith('{')) throw new TypeError('a record must be a JSON object');
  const rest = text.slice(1).trimStart();
  return `{"${FLUENT_BIT_TIMESTAMP_KEY}":${String(epochSeconds)}${rest.startsWith('}') ? '' : ','}${rest}`;
}

/** The flush statement for records already serialized (see withRecordTimeFirst), so their bytes reach PostgreSQL unchanged. */
export function fluentBitInsertStatementForTexts(table: string, tag: string, recordTexts: readonly string[]): string {
  return `INSERT INTO ${table} SELECT ${escapeLiteral(tag)}, to_timestamp(CAST(value->>'${FLUENT_BIT_TIMESTAMP_KEY}' as FLOAT)), * FROM json_array_elements(${escapeLiteral(`[${recordTexts.join(',')}]`)});`;
}

function defaultRecordTime(record: FluentBitRecord): number {
  const ts = record['timestamp'];
  if (typeof ts === 'number' && Number.isFinite(ts)) {
    if (Math.abs(ts) < 1e11) return ts;
    if (Math.abs(ts) < 1e14) return ts / 1e3;
    if (Math.abs(ts) < 1e17) return ts / 1e6;
    return ts / 1e9;
  }
  return Date.now() / 1000;
}

export const WORKFLOW_EVENTS_TABLE = 'workflow_events_raw';
export const TASK_EVENTS_TABLE = 'task_events_raw';

/** The table Fluent Bit's routing sends an event to (by the `.task.` / `.workflow.` part of its eventType). */
export function rawTableFor(eventType: string): typeof WORKFLOW_EVENTS_TABLE | typeof TASK_EVENTS_TABLE {
  return /(^|\.)task\./.test(eventType) ? TASK_EVENTS_TABLE : WORKFLOW_EVENTS_TABLE;
}
