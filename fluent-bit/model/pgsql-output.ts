// What the pgsql outputs of a modelled pipeline send to PostgreSQL: the start-up CREATE TABLE IF NOT EXISTS per
// output and one INSERT per flushed chunk. Chunks hold records of one tag, in arrival order (Fluent Bit chunks
// per input and tag); a chunk is flushed when it reaches `maxRecordsPerChunk` or at the end of the input.
// The INSERT text comes from fluentBitInsertStatement, the project's one definition of that statement.

import { FLUENT_BIT_TIMESTAMP_KEY, fluentBitInsertStatement } from '@workflow-index/postgresql/fluent-bit-statement';
import { requiredProperty, property } from './classic-config.js';
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
      sql: fluentBitInsertStatement(quoteIdentifier(target.table), first.tag, records.map((r) => r.record), (_, i) => records[i]!.time),
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

export function outputByAlias(pipeline: FluentBitPipeline, alias: string): OutputDefinition {
  const output = pipeline.outputs.find((o) => o.alias === alias);
  if (!output) throw new Error(`no output ${alias}`);
  return output;
}
