// What the pgsql outputs of a modelled pipeline send to PostgreSQL: the start-up CREATE TABLE IF NOT EXISTS per
// output and one INSERT per flushed chunk. Chunks hold records of one tag, in arrival order (Fluent Bit chunks
// per input and tag); a chunk is flushed when it reaches `maxRecordsPerChunk` or at the end of the input.
// The INSERT is FLB_PGSQL_INSERT (plugins/out_pgsql) around the chunk printed as Fluent Bit prints it
// (flb_pack_msgpack_to_json_format with the double date format): each record starts with the Timestamp_Key,
// the record time as a double (`%.16g`, or `x.0` when integral), followed by the record's entries in order, every
// non-ASCII character as `\uXXXX`. The key and the record are printed as ONE map, so a repeated key is printed once,
// with its last value: a record holding its own top-level Timestamp_Key replaces the forwarder's record time with its
// own value (event-kubernetes.lua renames such a member; workflow_raw.json_array_elements replaces a value the
// statement's CAST or to_timestamp would fail on). The literal is escaped as PQescapeLiteral does (` E'…'` with
// doubled backslashes as soon as the JSON holds one backslash).

import { FLUENT_BIT_TIMESTAMP_KEY, escapeLiteral } from '@workflow-index/postgresql';
import { requiredProperty, property } from './classic-config.js';
import { printFluentDouble, printFluentMap } from './flb-json-printer.js';
import type { DeliveredRecord, FluentBitPipeline, OutputDefinition } from './pipeline.js';

export interface PgsqlTarget {
  readonly output: string;
  /** The table as configured (unqualified; resolved through the login's search_path). */
  readonly table: string;
  readonly timestampKey: string;
}

export interface PgsqlFlush {
  readonly output: string;
  readonly table: string;
  readonly tag: string;
  readonly records: readonly DeliveredRecord[];
  readonly sql: string;
}

/** The pgsql outputs of the pipeline with their table and Timestamp_Key. */
export function pgsqlTargets(pipeline: FluentBitPipeline): PgsqlTarget[] {
  return pipeline.outputs.filter((o) => o.plugin === 'pgsql').map((o) => ({
    output: o.alias,
    table: requiredProperty(o.settings, 'Table'),
    timestampKey: property(o.settings, 'Timestamp_Key') ?? 'date',
  }));
}

/** PQescapeIdentifier, which the plugin applies to the table name before using it. */
export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The statement each pgsql output runs once when Fluent Bit starts (plugins/out_pgsql, cb_pgsql_init). */
export function startupStatements(pipeline: FluentBitPipeline): string[] {
  return pgsqlTargets(pipeline).map((t) => `CREATE TABLE IF NOT EXISTS ${quoteIdentifier(t.table)} (tag varchar, time timestamp, data jsonb);`);
}

export function flushStatements(pipeline: FluentBitPipeline, delivered: readonly DeliveredRecord[], maxRecordsPerChunk = 100): PgsqlFlush[] {
  const targets = new Map(pgsqlTargets(pipeline).map((t) => [t.output, t]));
  for (const t of targets.values()) {
    if (t.timestampKey !== FLUENT_BIT_TIMESTAMP_KEY) {
      throw new Error(`output ${t.output}: Timestamp_Key ${t.timestampKey} differs from the ${FLUENT_BIT_TIMESTAMP_KEY} the statement builder writes`);
    }
  }
  const flushes: PgsqlFlush[] = [];
  const open = new Map<string, DeliveredRecord[]>();
  const emit = (key: string): void => {
    const records = open.get(key);
    if (!records || records.length === 0) return;
    open.delete(key);
    const first = records[0]!;
    const target = targets.get(first.output)!;
    flushes.push({
      output: first.output,
      table: target.table,
      tag: first.tag,
      records,
      sql: pgsqlInsertStatement(target, first.tag, records),
    });
  };
  for (const record of delivered) {
    if (!targets.has(record.output)) continue;
    const key = `${record.output}\u0000${record.tag}`;
    const chunk = open.get(key) ?? [];
    chunk.push(record);
    open.set(key, chunk);
    if (chunk.length >= maxRecordsPerChunk) emit(key);
  }
  for (const key of [...open.keys()]) emit(key);
  return flushes;
}

/** The chunk's records as the pgsql output prints them: a JSON array. */
export function pgsqlChunkJson(timestampKey: string, records: readonly Pick<DeliveredRecord, 'value' | 'time'>[]): string {
  return `[${records.map((r) => printFluentMap(r.value, [[timestampKey, r.time]])).join(',')}]`;
}

export function pgsqlInsertStatement(target: PgsqlTarget, tag: string, records: readonly Pick<DeliveredRecord, 'value' | 'time'>[]): string {
  const json = pgsqlChunkJson(target.timestampKey, records);
  return `INSERT INTO ${quoteIdentifier(target.table)} SELECT ${escapeLiteral(tag)}, to_timestamp(CAST(value->>'${target.timestampKey}' as FLOAT)), * FROM json_array_elements(${escapeLiteral(json)});`;
}

/** The record time as it appears in the statement. */
export const printRecordTime = printFluentDouble;

export function outputByAlias(pipeline: FluentBitPipeline, alias: string): OutputDefinition {
  const output = pipeline.outputs.find((o) => o.alias === alias);
  if (!output) throw new Error(`no output ${alias}`);
  return output;
}
