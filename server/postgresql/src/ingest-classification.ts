// Which lines are events and where each goes, as our Fluent Bit configuration decides it: a JSON object whose
// eventType has the Serverless Workflow prefix is an event, routed by kind to its raw table; a line that names
// eventType and the prefix but does not parse is malformed; anything else is skipped. JSON is parsed only to
// classify, never to re-print: the record is the line's own text with the record time key put first, the way
// Fluent Bit prints it, so `12345678901234567890` stays exactly that.
import { rfc3339ToEpochSeconds, type LogLine } from '@workflow-index/events';
import { rawTableFor, withRecordTimeFirst, type FluentBitRecord } from './fluent-bit-statement.js';
import type { RawTable } from './ingest-raw-tables.js';

export type Classified =
  | { readonly kind: 'event'; readonly table: RawTable; readonly record: string }
  | { readonly kind: 'skipped' }
  | { readonly kind: 'malformed'; readonly reason: string };

type ParsedLine =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'skipped' }
  | { readonly kind: 'malformed'; readonly reason: string };

export function classifyLine(line: LogLine, prefix: string): Classified {
  const parsed = line.parsed ? { kind: 'json' as const, value: line.parsed.value } : parseLine(line.text, prefix);
  if (parsed.kind !== 'json') return parsed;
  const value = parsed.value;
  if (!isPlainObject(value)) return { kind: 'skipped' };
  const eventType = value['eventType'];
  if (typeof eventType !== 'string' || !eventType.startsWith(prefix)) return { kind: 'skipped' };
  const time = line.time ?? eventRecordTime(value);
  return { kind: 'event', table: rawTableFor(eventType), record: withRecordTimeFirst(line.text, time) };
}

function parseLine(text: string, prefix: string): ParsedLine {
  const trimmed = text.trim();
  const looksLikeEvent = text.includes('eventType') && text.includes(prefix);
  if (!trimmed.startsWith('{')) {
    return looksLikeEvent
      ? { kind: 'malformed', reason: 'text before the JSON event (the log handler must print the bare message, format %s%n)' }
      : { kind: 'skipped' };
  }
  try {
    return { kind: 'json', value: JSON.parse(trimmed) };
  } catch (error) {
    return looksLikeEvent ? { kind: 'malformed', reason: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` } : { kind: 'skipped' };
  }
}

/**
 * The record time for events without a runtime time stamp: the event's own `timestamp` (epoch units scaled by
 * magnitude, or ISO-8601), so a replay writes the same record time every time. Only an event whose timestamp is
 * unusable (the normalizer rejects it anyway) gets the time it was read, as Fluent Bit would give it.
 */
function eventRecordTime(record: FluentBitRecord): number {
  const ts = record['timestamp'];
  const n = typeof ts === 'number' ? ts : typeof ts === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(ts) ? Number(ts) : undefined;
  if (n !== undefined && Number.isFinite(n)) return scaleEpoch(n);
  if (typeof ts === 'string') {
    const parsed = rfc3339ToEpochSeconds(ts);
    if (parsed !== undefined) return parsed;
  }
  return Date.now() / 1000;
}

/** Epoch seconds of an epoch number in seconds, milliseconds, microseconds or nanoseconds, told by magnitude. */
function scaleEpoch(n: number): number {
  const abs = Math.abs(n);
  if (abs < 1e11) return n;
  if (abs < 1e14) return n / 1e3;
  if (abs < 1e17) return n / 1e6;
  return n / 1e9;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
