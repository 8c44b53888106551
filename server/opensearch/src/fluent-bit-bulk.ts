// The `_bulk` request Fluent Bit's opensearch output sends for one flush (CONTRACT §7), with Logstash_Format On,
// Logstash_DateFormat %Y.%m.%d, Suppress_Type_Name On, Generate_ID On, Time_Key @timestamp (milliseconds):
//   {"create":{"_index":"<prefix>-YYYY.MM.DD","_id":"<generated>"}}
//   {"@timestamp":"YYYY-MM-DDTHH:MM:SS.mmmZ",<the event's members as Fluent Bit prints them>}
// The index date and @timestamp come from the record time (UTC), so a line re-delivered later lands in the index
// of its original day. Generate_ID hashes the whole record (time included), so re-sending the same flush gives
// 409 per item; a re-delivery with another record time is a new document (the normalizer dedupes by content).
// Fluent Bit hashes with XXH3-128; we use SHA-256 in the same UUID-like layout: ids are opaque, what matters is
// that the same record and time always give the same id.
// Before printing, each line goes through the OpenSearch document rule our Fluent Bit configuration runs
// (opensearch-document.lua, whose TypeScript twin is ./opensearch-document.ts): the last of repeated names, top-level
// names OpenSearch takes or refuses (`_id`, `@timestamp`, `wi`, ...) renamed `wi_event_<name>`, too long names kept
// as text. So an event's own `@timestamp` never replaces the record time, and no document is refused for its names.
// Everything that stands in for Fluent Bit (tests, init-job ingest, dev-mode demo data, benchmarks) writes here.
import type { Client } from '@opensearch-project/opensearch';
import { createHash } from 'node:crypto';
import { fluentBitMembers, printFluentBitObject } from '@workflow-index/events';
import { opensearchDocumentLine } from './opensearch-document.js';
import { TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX, type RawPrefix } from './raw-index-templates.js';

export const FLUENT_BIT_TIME_KEY = '@timestamp';

export interface FluentBitRecord {
  /** The event line exactly as the workflow printed it (one JSON object). */
  readonly line: string;
  /** The record time Fluent Bit gives the line (the container runtime's log timestamp), epoch milliseconds. */
  readonly recordTimeMs: number;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** strftime("%Y-%m-%dT%H:%M:%S") in UTC plus ".%03luZ" of the nanoseconds / 1e6 (truncated, as Fluent Bit does). */
export function fluentBitTimestamp(recordTimeMs: number): string {
  const ms = Math.floor(recordTimeMs);
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}Z`;
}

/** Logstash_Prefix + "-" + strftime(Logstash_DateFormat %Y.%m.%d) of the record time in UTC. */
export function logstashIndexName(logstashPrefix: string, recordTimeMs: number): string {
  const d = new Date(Math.floor(recordTimeMs));
  return `${logstashPrefix}-${pad(d.getUTCFullYear(), 4)}.${pad(d.getUTCMonth() + 1)}.${pad(d.getUTCDate())}`;
}

function generatedId(document: string): string {
  const h = createHash('sha256').update(document).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The raw index prefix Fluent Bit's routing sends an event to (by the `.task.` / `.workflow.` part of eventType). */
export function rawPrefixFor(eventType: string): RawPrefix {
  return /(^|\.)task\./.test(eventType) ? TASK_RAW_PREFIX : WORKFLOW_RAW_PREFIX;
}

export interface BulkDocument {
  readonly index: string;
  readonly id: string;
  /** The document text as sent. */
  readonly source: string;
}

/** The event line after the OpenSearch document rule (unchanged when the rule has nothing to do). */
export function documentRuleLine(line: string): string {
  return opensearchDocumentLine(Buffer.from(line, 'utf8'))?.toString('utf8') ?? line;
}

export function fluentBitDocument(logstashPrefix: string, record: FluentBitRecord): BulkDocument {
  const members = fluentBitMembers(documentRuleLine(record.line));
  // The time key goes first; the event's own @timestamp was renamed by the document rule.
  const source = printFluentBitObject([[FLUENT_BIT_TIME_KEY, JSON.stringify(fluentBitTimestamp(record.recordTimeMs))], ...members]);
  return { index: logstashIndexName(logstashPrefix, record.recordTimeMs), id: generatedId(source), source };
}

/** The NDJSON body of one flush of one output (one Logstash_Prefix). */
export function fluentBitBulkBody(logstashPrefix: string, records: readonly FluentBitRecord[]): string {
  return records
    .map((record) => {
      const doc = fluentBitDocument(logstashPrefix, record);
      return `${JSON.stringify({ create: { _index: doc.index, _id: doc.id } })}\n${doc.source}\n`;
    })
    .join('');
}

export interface BulkItemResult {
  readonly index: string;
  readonly id: string;
  readonly status: number;
  readonly error?: { readonly type: string; readonly reason: string };
}

export interface BulkResult {
  readonly errors: boolean;
  readonly items: readonly BulkItemResult[];
}

/** Sends one flush as Fluent Bit does (`POST /_bulk`, application/x-ndjson) and returns the per-item outcome. */
export async function sendFluentBitBulk(client: Client, logstashPrefix: string, records: readonly FluentBitRecord[]): Promise<BulkResult> {
  if (records.length === 0) return { errors: false, items: [] };
  const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: fluentBitBulkBody(logstashPrefix, records) });
  const body = response.body as { errors: boolean; items: { create: { _index: string; _id: string; status: number; error?: { type: string; reason: string } } }[] };
  return {
    errors: body.errors,
    items: body.items.map(({ create }) => ({ index: create._index, id: create._id, status: create.status, ...(create.error ? { error: { type: create.error.type, reason: create.error.reason } } : {}) })),
  };
}

/**
 * Routes event lines to the two raw prefixes (as our Fluent Bit configuration does, by eventType) and sends one
 * flush per prefix. `namePrefix` is prepended to the Logstash prefixes (tests keep their indices apart with it).
 */
export async function writeEventLines(client: Client, records: readonly FluentBitRecord[], namePrefix = ''): Promise<BulkResult> {
  const byPrefix = new Map<RawPrefix, FluentBitRecord[]>([
    [WORKFLOW_RAW_PREFIX, []],
    [TASK_RAW_PREFIX, []],
  ]);
  for (const record of records) {
    let eventType = '';
    try {
      const parsed = JSON.parse(record.line) as { eventType?: unknown };
      if (typeof parsed.eventType === 'string') eventType = parsed.eventType;
    } catch {
      // not JSON: fluentBitDocument refuses the line below
    }
    byPrefix.get(rawPrefixFor(eventType))!.push(record);
  }
  const results = await Promise.all([...byPrefix].map(([raw, group]) => sendFluentBitBulk(client, `${namePrefix}${raw}`, group)));
  return { errors: results.some((r) => r.errors), items: results.flatMap((r) => r.items) };
}
