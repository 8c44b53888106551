// What the opensearch outputs of a modelled pipeline send to OpenSearch: one `POST /_bulk` per flushed chunk.
// Chunks hold the records of one tag in arrival order (as pgsql-output.ts); a chunk is flushed when it reaches
// `maxRecordsPerChunk` or at the end of the input. Facts from plugins/out_opensearch (opensearch.c,
// opensearch.h), for the settings our configuration uses:
//   - action line `{"<Write_Operation>":{"_index":"<index>","_id":"<id>"}}` (Suppress_Type_Name On drops the
//     `"_type":"_doc"` that OpenSearch 3 refuses for the whole request); the index is Logstash_Prefix, `-`, and
//     strftime(Logstash_DateFormat) of the record time in UTC (gmtime of its seconds);
//   - the document is the record printed as JSON (flb_msgpack_raw_to_json_sds: every non-ASCII character as
//     `\uXXXX`, doubles with %.16g, see flb-json-printer.ts) with the Time_Key member FIRST: strftime
//     ("%Y-%m-%dT%H:%M:%S") of the record time plus ".%03luZ" of its nanoseconds / 1e6 (truncated). It is packed
//     first into one map with the record and printed by msgpack2json, which prints a repeated key once, with its
//     last value: a record with its own `@timestamp` would replace the output's (opensearch-document.lua renames
//     the event's);
//   - Generate_ID: a 128-bit hash (XXH3, cfl_hash_128bits) of the msgpack record with its time key, printed as
//     uppercase hex 8-4-4-4-12. The model hashes the printed document with SHA-256 in the same layout: what
//     matters, the same record and time giving the same id on every delivery, holds for both; ids differ;
//   - the answer: any item whose status is not 409 makes the whole chunk retried (opensearch_error_check);
//     Retry_Limit no_limits retries it for ever.
// Replace_Dots, Include_Tag_Key, Id_Key, Logstash_Prefix_Key, Current_Time_Index and Time_Key_Nanos change the
// request and are refused here unless Off / unset, so the model never silently differs from the binary.

import { createHash } from 'node:crypto';
import type { DeliveredRecord, FluentBitPipeline } from './pipeline.js';
import { ClassicConfigError, isOn, property } from './classic-config.js';
import { parseRfc3339 } from './builtin-multiline.js';
import { printFluentMap } from './flb-json-printer.js';

export interface OpenSearchTarget {
  readonly output: string;
  readonly logstashPrefix: string;
  readonly dateFormat: string;
  readonly timeKey: string;
  readonly writeOperation: string;
  readonly suppressTypeName: boolean;
  readonly generateId: boolean;
}

export interface BulkItem {
  readonly index: string;
  readonly id: string | undefined;
  readonly action: string;
  readonly document: string;
  readonly record: DeliveredRecord;
}

export interface BulkRequest {
  readonly output: string;
  readonly tag: string;
  readonly items: readonly BulkItem[];
  /** The NDJSON body as sent. */
  readonly body: string;
}


const UNMODELLED = ['Replace_Dots', 'Include_Tag_Key', 'Current_Time_Index', 'Time_Key_Nanos'];
const UNSUPPORTED = ['Id_Key', 'Logstash_Prefix_Key', 'Index'];

/** The opensearch outputs of the pipeline with the settings that shape their requests. */
export function openSearchTargets(pipeline: FluentBitPipeline): OpenSearchTarget[] {
  return pipeline.outputs.filter((o) => o.plugin === 'opensearch').map((o) => {
    for (const key of UNMODELLED) {
      if (isOn(property(o.settings, key))) throw new ClassicConfigError(`output ${o.alias}: ${key} On is not modelled`);
    }
    for (const key of UNSUPPORTED) {
      if (property(o.settings, key) !== undefined) throw new ClassicConfigError(`output ${o.alias}: ${key} is not modelled`);
    }
    if (!isOn(property(o.settings, 'Logstash_Format'))) throw new ClassicConfigError(`output ${o.alias}: only Logstash_Format On is modelled`);
    const timeKeyFormat = property(o.settings, 'Time_Key_Format');
    if (timeKeyFormat !== undefined && timeKeyFormat !== '%Y-%m-%dT%H:%M:%S') throw new ClassicConfigError(`output ${o.alias}: Time_Key_Format ${timeKeyFormat} is not modelled`);
    const dateFormat = property(o.settings, 'Logstash_DateFormat') ?? '%Y.%m.%d';
    if (!/^(%[Ymd]|[^%])*$/.test(dateFormat)) throw new ClassicConfigError(`output ${o.alias}: Logstash_DateFormat ${dateFormat} is not modelled (only %Y %m %d)`);
    return {
      output: o.alias,
      logstashPrefix: property(o.settings, 'Logstash_Prefix') ?? 'logstash',
      dateFormat,
      timeKey: property(o.settings, 'Time_Key') ?? '@timestamp',
      writeOperation: (property(o.settings, 'Write_Operation') ?? 'create').toLowerCase(),
      suppressTypeName: isOn(property(o.settings, 'Suppress_Type_Name')),
      generateId: isOn(property(o.settings, 'Generate_ID')),
    };
  });
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * The record time as seconds and milliseconds (truncated). Exact from the runtime's `time` text when the record
 * kept it (Time_Keep) and it is the record time; otherwise from the double, rounded to µs first.
 */
export function recordTimeParts(record: Pick<DeliveredRecord, 'time' | 'record'>): { seconds: number; millis: number } {
  const text = record.record['time'];
  if (typeof text === 'string' && parseRfc3339(text) === record.time) {
    const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})$/.exec(text)!;
    const zone = match[3] === 'Z' ? 'Z' : `${match[3]!.slice(0, 3)}:${match[3]!.slice(-2)}`;
    return { seconds: Date.parse(`${match[1]}${zone}`) / 1000, millis: Number((match[2] ?? '').padEnd(3, '0').slice(0, 3)) };
  }
  const micros = Math.round(record.time * 1e6);
  const seconds = Math.floor(micros / 1e6);
  return { seconds, millis: Math.floor((micros - seconds * 1e6) / 1000) };
}

function strftimeDate(format: string, seconds: number): string {
  const d = new Date(seconds * 1000);
  return format.replace(/%([Ymd])/g, (_, f: string) => (f === 'Y' ? pad(d.getUTCFullYear(), 4) : f === 'm' ? pad(d.getUTCMonth() + 1) : pad(d.getUTCDate())));
}

/** The Time_Key value: %Y-%m-%dT%H:%M:%S in UTC and .%03luZ. */
export function timeKeyValue(seconds: number, millis: number): string {
  const d = new Date(seconds * 1000);
  return `${strftimeDate('%Y-%m-%d', seconds)}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(millis, 3)}Z`;
}

function generatedId(document: string): string {
  const h = createHash('sha256').update(document).digest('hex').slice(0, 32).toUpperCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface BulkOptions {
  /** Records per chunk (Fluent Bit chunks hold ~2 MB; tests choose small ones to mix records). */
  readonly maxRecordsPerChunk?: number;
  /** Prepended to every index name, so a test's indices stay apart from every other's. Production: ''. */
  readonly indexPrefix?: string;
}

export function bulkItem(target: OpenSearchTarget, record: DeliveredRecord, indexPrefix = ''): BulkItem {
  const { seconds, millis } = recordTimeParts(record);
  const document = printFluentMap(record.value, [[target.timeKey, timeKeyValue(seconds, millis)]]);
  const index = `${indexPrefix}${target.logstashPrefix}-${strftimeDate(target.dateFormat, seconds)}`;
  return { index, id: target.generateId ? generatedId(document) : undefined, action: target.writeOperation, document, record };
}

function actionLine(target: OpenSearchTarget, item: BulkItem): string {
  const meta = [`"_index":${JSON.stringify(item.index)}`];
  if (!target.suppressTypeName) meta.push('"_type":"_doc"');
  if (item.id !== undefined) meta.push(`"_id":${JSON.stringify(item.id)}`);
  return `{${JSON.stringify(item.action)}:{${meta.join(',')}}}`;
}

export function bulkRequests(pipeline: FluentBitPipeline, delivered: readonly DeliveredRecord[], options: BulkOptions = {}): BulkRequest[] {
  const maxRecords = options.maxRecordsPerChunk ?? 100;
  const targets = new Map(openSearchTargets(pipeline).map((t) => [t.output, t]));
  const requests: BulkRequest[] = [];
  const open = new Map<string, DeliveredRecord[]>();
  const emit = (key: string): void => {
    const records = open.get(key);
    if (!records || records.length === 0) return;
    open.delete(key);
    const target = targets.get(records[0]!.output)!;
    const items = records.map((r) => bulkItem(target, r, options.indexPrefix));
    requests.push({ output: target.output, tag: records[0]!.tag, items, body: items.map((i) => `${actionLine(target, i)}\n${i.document}\n`).join('') });
  };
  for (const record of delivered) {
    if (!targets.has(record.output)) continue;
    const key = `${record.output}\u0000${record.tag}`;
    const chunk = open.get(key) ?? [];
    chunk.push(record);
    open.set(key, chunk);
    if (chunk.length >= maxRecords) emit(key);
  }
  for (const key of [...open.keys()]) emit(key);
  return requests;
}

export interface BulkAnswerItem {
  readonly index: string;
  readonly id: string;
  readonly status: number;
  readonly error?: unknown;
}

/** The opensearch output's verdict on a `_bulk` answer: retry the chunk unless every item is 201/200 or 409. */
export function outputRetries(answer: { readonly errors: boolean; readonly items: readonly BulkAnswerItem[] }): boolean {
  return answer.errors && answer.items.some((i) => i.status !== 409);
}
