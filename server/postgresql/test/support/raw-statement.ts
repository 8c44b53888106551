// Fluent Bit's pgsql INSERT built from event lines as they were printed, byte for byte (no JSON.parse /
// JSON.stringify round trip, so payload numbers, escapes such as \u0000 and key order reach PostgreSQL exactly as
// a forwarder without any filter would send them). As in Fluent Bit, the record time key comes first, then the
// event's own fields, then whatever metadata the forwarder adds (runtime `time`, `stream`, `_p`, `logtag`,
// `kubernetes`, …). This is how a platform team's own forwarder looks to the database.
import { escapeLiteral, FLUENT_BIT_TIMESTAMP_KEY, rawTableFor, TASK_EVENTS_TABLE } from '../../src/fluent-bit-statement.js';

export interface RawRecord {
  /** One printed event line: a JSON object's text. */
  readonly line: string;
  /** The record time, epoch seconds, as the forwarder prints it (a JSON number text, e.g. `1795441523.051071`). */
  readonly recordTime: string;
  /** Forwarder fields appended after the event's own, as JSON text of an object's members (`"stream":"stdout",…`). */
  readonly metadata?: string;
  /** The time key's name (Fluent Bit's Timestamp_Key). */
  readonly timeKey?: string;
}

/** The record as the forwarder serializes it inside the statement's JSON array. */
export function rawRecordText(r: RawRecord): string {
  const body = r.line.trim();
  if (!body.startsWith('{') || !body.endsWith('}')) throw new Error(`not a JSON object line: ${body.slice(0, 80)}`);
  const inner = body.slice(1, -1).trim();
  const key = JSON.stringify(r.timeKey ?? FLUENT_BIT_TIMESTAMP_KEY);
  return `{${key}:${r.recordTime}${inner ? `,${inner}` : ''}${r.metadata ? `,${r.metadata}` : ''}}`;
}

export function rawInsertStatement(table: string, tag: string, records: readonly RawRecord[], timeKey = FLUENT_BIT_TIMESTAMP_KEY): string {
  const array = `[${records.map(rawRecordText).join(',')}]`;
  return `INSERT INTO ${table} SELECT ${escapeLiteral(tag)}, to_timestamp(CAST(value->>'${timeKey}' as FLOAT)), * FROM json_array_elements(${escapeLiteral(array)});`;
}

/** The raw table a printed event line is routed to (by its eventType), found without parsing the whole line. */
export function rawTableOfLine(line: string): { table: string; tag: string } {
  const m = /"eventType"\s*:\s*"([^"]*)"/.exec(line);
  const table = rawTableFor(m?.[1] ?? '');
  return { table, tag: table === TASK_EVENTS_TABLE ? 'workflow.task' : 'workflow.instance' };
}

/**
 * Statements for a sequence of records, one flush per `sizes[i % sizes.length]` records, each flush split by raw
 * table as Fluent Bit's routing does (unqualified names resolve through the forwarder's search_path). `timeKey` is
 * the forwarder's Timestamp_Key, which the records must carry under the same name.
 */
export function rawFlushes(records: readonly RawRecord[], sizes: readonly number[] = [records.length || 1], qualify = false, timeKey = FLUENT_BIT_TIMESTAMP_KEY): string[] {
  const statements: string[] = [];
  let offset = 0;
  for (let i = 0; offset < records.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length] ?? 1);
    const batch = records.slice(offset, offset + size);
    offset += size;
    const byTable = new Map<string, { tag: string; records: RawRecord[] }>();
    for (const r of batch) {
      const { table, tag } = rawTableOfLine(r.line);
      const entry = byTable.get(table) ?? { tag, records: [] };
      entry.records.push(r);
      byTable.set(table, entry);
    }
    for (const [table, entry] of byTable) statements.push(rawInsertStatement(qualify ? `workflow_raw.${table}` : table, entry.tag, entry.records, timeKey));
  }
  return statements;
}
