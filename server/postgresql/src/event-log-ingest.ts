// Replays event log files into PostgreSQL through the path Fluent Bit uses: the same selection (JSON objects
// whose eventType has the Serverless Workflow prefix), the same routing to the two raw tables, and the exact
// statement shape of its pgsql output, so the normalizing triggers see what they see in production.
// Used by `init-job ingest` and by development mode's demo data.
//
// Input lines are JSONL event lines, CRI container log lines (`<time> <stream> <P|F> <content>`, where P parts
// are joined until the F part, as the runtime splits lines over 16 KiB), or Docker json-file lines; the form is
// detected per line. Files are streamed, so their size does not matter.
//
// What is written is the bytes that were read: each event line goes into the statement as its own text, after
// only the line-repair rule (@workflow-index/core/event-line-repair, the same rule as Fluent Bit's
// repair-line.lua), with the record time key put first the way Fluent Bit prints it. JSON is parsed only to
// classify a line (event or not, which raw table), never to re-print it, so `12345678901234567890` stays exactly
// that. Statements run with search_path = workflow_raw, as the forwarder login's do.
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { LINE_REPAIRS, repairEventLine, type LineRepair } from '@workflow-index/events';
import {
  fluentBitInsertStatementForTexts,
  rawTableFor,
  TASK_EVENTS_TABLE,
  withRecordTimeFirst,
  WORKFLOW_EVENTS_TABLE,
  type FluentBitRecord,
} from './fluent-bit-statement.js';

export const DEFAULT_EVENT_TYPE_PREFIX = 'io.serverlessworkflow.';
export const DEFAULT_INGEST_BATCH_SIZE = 500;
export const RAW_SCHEMA = 'workflow_raw';

/** The tags our Fluent Bit routing gives each raw table's records. */
export const RAW_TABLE_TAGS: Readonly<Record<RawTable, string>> = {
  [WORKFLOW_EVENTS_TABLE]: 'workflow.instance',
  [TASK_EVENTS_TABLE]: 'workflow.task',
};

export type RawTable = typeof WORKFLOW_EVENTS_TABLE | typeof TASK_EVENTS_TABLE;

/** What the ingester needs from a connection: `pg.Pool`, `pg.Client` and a pool client all fit. */
export interface SqlExecutor {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A file path (`-` is standard input, `*.gz` is decompressed) or a named stream. */
export type IngestSource = string | { readonly name: string; readonly stream: Readable };

export interface IngestProgress {
  readonly source: string;
  readonly linesRead: number;
  readonly eventsWritten: number;
  readonly skipped: number;
  readonly malformed: number;
}

export interface IngestRetryPolicy {
  /** Attempts per batch, including the first. */
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

export interface IngestOptions {
  readonly batchSize?: number;
  readonly eventTypePrefix?: string;
  readonly retry?: Partial<IngestRetryPolicy>;
  readonly stdin?: Readable;
  /** Called after each batch is written and when a source is finished. */
  readonly onProgress?: (progress: IngestProgress) => void;
  /** Called for each retried batch, e.g. to log it. */
  readonly onRetry?: (info: { readonly attempt: number; readonly delayMs: number; readonly reason: string; readonly batch: string }) => void;
  /** How many malformed lines and rejected events are kept as examples in the summary (the counts are exact). */
  readonly sampleLimit?: number;
}

export interface MalformedLine {
  readonly source: string;
  readonly line: number;
  readonly reason: string;
}

export interface RejectedEvent {
  readonly table: RawTable;
  readonly rawId: number;
  /** `file:line` when the raw id could be mapped back to the input (no concurrent writer interleaved). */
  readonly location: string | null;
  readonly eventType: string | null;
  readonly reason: string;
}

export interface IngestSummary {
  readonly sources: number;
  readonly linesRead: number;
  readonly eventsWritten: { readonly workflow_events_raw: number; readonly task_events_raw: number; readonly total: number };
  readonly batches: number;
  readonly retries: number;
  /** Lines that are not events: plain text, JSON that is not an object or has no matching eventType. */
  readonly skipped: number;
  /** Lines that look like events (they mention eventType and the prefix) but are not valid JSON objects. */
  readonly malformed: number;
  readonly malformedSamples: readonly MalformedLine[];
  /** Events stored in the raw tables but rejected by the normalizer (rows in workflow_index.ingest_errors); null when the role cannot read that table. */
  readonly rejected: number | null;
  readonly rejectedSamples: readonly RejectedEvent[];
  /** Events written after the line-repair rule changed them, per repair kind (an event can count under several). */
  readonly repairs: Readonly<Record<LineRepair, number>>;
  readonly durationMs: number;
  readonly eventsPerSecond: number;
}

export class IngestError extends Error {
  override readonly name = 'IngestError';
  constructor(
    message: string,
    /** What was written before the failure. */
    readonly summary: IngestSummary,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface PendingEvent {
  /** The record as the statement holds it: the record time key first, then the (repaired) line's object text. */
  readonly text: string;
  readonly repairs: readonly LineRepair[];
  readonly source: string;
  readonly line: number;
}

interface RepairedLine {
  readonly text: string;
  readonly repairs: readonly LineRepair[];
}

// SQLSTATEs and socket errors a retry can cure: the statement was rolled back as a whole.
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001', '57P01', '57P02', '57P03', '53300', '55P03']);
const RETRYABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

export function isRetryableDatabaseError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (RETRYABLE_SQLSTATES.has(code) || code.startsWith('08') || RETRYABLE_NODE_CODES.has(code))) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(error.message);
}

const PERMISSION_SQLSTATES = new Set(['42501', '42P01', '3F000', '42883']);

// `<RFC3339Nano> <stdout|stderr> <P|F>[:more tags] <content>`
const CRI_LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})) (stdout|stderr) ([PF])(?::\S*)?(?: (.*))?$/;

/** Epoch seconds of an RFC 3339 time, keeping the sub-millisecond digits that Date.parse drops. */
export function rfc3339ToEpochSeconds(text: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2})?)(?:[.,](\d+))?([Zz]|[+-]\d{2}:?\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const zone = m[3] === 'z' ? 'Z' : (m[3] ?? 'Z');
  const whole = Date.parse(`${(m[1] ?? '').replace(/[t ]/, 'T')}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
  if (Number.isNaN(whole)) return undefined;
  return whole / 1000 + (m[2] ? Number(`0.${m[2]}`) : 0);
}

/**
 * The record time for events without a runtime time stamp: the event's own `timestamp` (epoch units scaled by
 * magnitude, or ISO-8601), so a replay writes the same record time every time. Only an event whose timestamp is
 * unusable (the normalizer rejects it anyway) gets the time it was read, as Fluent Bit would give it.
 */
function eventRecordTime(record: FluentBitRecord): number {
  const ts = record['timestamp'];
  const n = typeof ts === 'number' ? ts : typeof ts === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(ts) ? Number(ts) : undefined;
  if (n !== undefined && Number.isFinite(n)) {
    const abs = Math.abs(n);
    if (abs < 1e11) return n;
    if (abs < 1e14) return n / 1e3;
    if (abs < 1e17) return n / 1e6;
    return n / 1e9;
  }
  if (typeof ts === 'string') {
    const parsed = rfc3339ToEpochSeconds(ts);
    if (parsed !== undefined) return parsed;
  }
  return Date.now() / 1000;
}

interface PartialLine {
  readonly parts: string[];
  readonly line: number;
  readonly time: number | undefined;
  /** Parts hold raw bytes as latin1 text (CRI) rather than decoded text (Docker json-file). */
  readonly latin1: boolean;
}

const UTF8_BOM = '\xEF\xBB\xBF';

function latin1Bytes(latin1: string): Buffer {
  return Buffer.from(latin1, 'latin1');
}

function noRepairs(): Record<LineRepair, number> {
  return Object.fromEntries(LINE_REPAIRS.map((r) => [r, 0])) as Record<LineRepair, number>;
}

function mergeRepairs(a: readonly LineRepair[], b: readonly LineRepair[]): readonly LineRepair[] {
  return a.length === 0 ? b : b.length === 0 ? a : LINE_REPAIRS.filter((r) => a.includes(r) || b.includes(r));
}

/** The source's bytes as latin1 text, whatever the stream yields (Buffers, or strings already decoded as UTF-8). */
function asLatin1(input: Readable): Readable {
  return Readable.from(
    (async function* () {
      for await (const chunk of input as AsyncIterable<unknown>) {
        if (typeof chunk === 'string') yield Buffer.from(chunk, 'utf8').toString('latin1');
        else if (chunk instanceof Uint8Array) yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
      }
    })(),
  );
}

type Classified =
  | { readonly kind: 'event'; readonly record: FluentBitRecord; readonly eventType: string }
  | { readonly kind: 'skipped' }
  | { readonly kind: 'malformed'; readonly reason: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads sources in order and writes their events in batches per raw table, preserving input order within a
 * table. Malformed lines are counted, never fatal; a database failure that survives the retries is an IngestError.
 */
export async function ingestEventLogs(db: SqlExecutor, sources: readonly IngestSource[], options: IngestOptions = {}): Promise<IngestSummary> {
  const batchSize = options.batchSize ?? DEFAULT_INGEST_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError(`batch size must be an integer ≥ 1, got ${batchSize}`);
  const prefix = options.eventTypePrefix ?? DEFAULT_EVENT_TYPE_PREFIX;
  const retry: IngestRetryPolicy = { attempts: 5, initialDelayMs: 200, maxDelayMs: 5000, ...options.retry };
  const sampleLimit = options.sampleLimit ?? 50;
  const started = performance.now();

  let linesRead = 0;
  let skipped = 0;
  let malformed = 0;
  let batches = 0;
  let retries = 0;
  let rejected: number | null = 0;
  const written: Record<RawTable, number> = { [WORKFLOW_EVENTS_TABLE]: 0, [TASK_EVENTS_TABLE]: 0 };
  const repairs = noRepairs();
  const malformedSamples: MalformedLine[] = [];
  const rejectedSamples: RejectedEvent[] = [];
  const buffers: Record<RawTable, PendingEvent[]> = { [WORKFLOW_EVENTS_TABLE]: [], [TASK_EVENTS_TABLE]: [] };
  let currentSource = '';

  const summary = (): IngestSummary => {
    const durationMs = Math.round(performance.now() - started);
    const total = written[WORKFLOW_EVENTS_TABLE] + written[TASK_EVENTS_TABLE];
    return {
      sources: sources.length,
      linesRead,
      eventsWritten: { workflow_events_raw: written[WORKFLOW_EVENTS_TABLE], task_events_raw: written[TASK_EVENTS_TABLE], total },
      batches,
      retries,
      skipped,
      malformed,
      malformedSamples: [...malformedSamples],
      rejected,
      rejectedSamples: [...rejectedSamples],
      repairs: { ...repairs },
      durationMs,
      eventsPerSecond: durationMs > 0 ? Math.round((total * 1000) / durationMs) : total,
    };
  };
  const progress = (): void =>
    options.onProgress?.({ source: currentSource, linesRead, eventsWritten: written[WORKFLOW_EVENTS_TABLE] + written[TASK_EVENTS_TABLE], skipped, malformed });

  const withRetry = async <T>(what: () => string, run: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        if (!isRetryableDatabaseError(error) || attempt >= retry.attempts) {
          const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
          throw new IngestError(`${what()} failed${tries}: ${reason}`, summary(), { cause: error });
        }
        const delayMs = Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** (attempt - 1));
        retries++;
        options.onRetry?.({ attempt, delayMs, reason, batch: what() });
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    }
  };

  // Rejections are attributed through the raw tables' identity sequences: the ids a batch received lie between
  // the sequence values read before and after it. A role without access to ingest_errors gets `rejected: null`.
  const tracking = await withRetry(
    () => 'reading the ingest-error baseline',
    () => startRejectionTracking(db),
  );
  if (!tracking) rejected = null;

  const flush = async (table: RawTable): Promise<void> => {
    const items = buffers[table];
    if (items.length === 0) return;
    buffers[table] = [];
    // SET LOCAL in the same simple-query string: one implicit transaction, so the setting ends with the statement
    // and a pooled connection is left as it was.
    const sql = `SET LOCAL search_path = ${RAW_SCHEMA}; ${fluentBitInsertStatementForTexts(
      `${RAW_SCHEMA}.${table}`,
      RAW_TABLE_TAGS[table],
      items.map((i) => i.text),
    )}`;
    const what = (): string => `writing ${items.length} ${table === TASK_EVENTS_TABLE ? 'task' : 'workflow'} event(s) from ${describeRange(items)}`;
    await withRetry(what, () => db.query(sql));
    batches++;
    written[table] += items.length;
    for (const item of items) for (const r of item.repairs) repairs[r]++;
    if (tracking && rejected !== null) {
      try {
        const found = await tracking.afterBatch(table, items.length, sampleLimit - rejectedSamples.length);
        rejected += found.count;
        for (const r of found.samples) {
          const index = found.exact ? r.rawId - found.lo - 1 : -1;
          const item = items[index];
          rejectedSamples.push({ ...r, table, location: item ? `${item.source}:${item.line}` : null });
        }
      } catch {
        rejected = null; // the data is written; only the attribution is lost
      }
    }
    progress();
  };

  /** `repaired` is the line after the line-repair rule; `parsed` its JSON value when already parsed. */
  const handle = async (repaired: RepairedLine, source: string, line: number, time: number | undefined, parsed?: unknown): Promise<void> => {
    const c = classify(repaired.text, prefix, parsed);
    if (c.kind === 'skipped') {
      skipped++;
      return;
    }
    if (c.kind === 'malformed') {
      malformed++;
      if (malformedSamples.length < sampleLimit) malformedSamples.push({ source, line, reason: c.reason });
      return;
    }
    const table = rawTableFor(c.eventType);
    const text = withRecordTimeFirst(repaired.text, time ?? eventRecordTime(c.record));
    buffers[table].push({ text, repairs: repaired.repairs, source, line });
    if (buffers[table].length >= batchSize) await flush(table);
  };

  for (const source of sources) {
    const name = typeof source === 'string' ? (source === '-' ? 'stdin' : source) : source.name;
    currentSource = name;
    const input = await openSource(source, options.stdin);
    const partials = new Map<string, PartialLine>();
    // CRI parts are joined as bytes (latin1 text) before the repair, so a character split across parts is whole again.
    const emit = (p: PartialLine, outer: readonly LineRepair[] = []): Promise<void> => {
      const repaired = repairEventLine(p.latin1 ? latin1Bytes(p.parts.join('')) : Buffer.from(p.parts.join(''), 'utf8'));
      return handle({ text: repaired.text, repairs: mergeRepairs(outer, repaired.repairs) }, name, p.line, p.time);
    };
    let lineNo = 0;
    try {
      // Lines are read as latin1 (one char per byte) and decoded as UTF-8 only once complete: the runtime splits
      // long lines at a byte count, possibly inside a multi-byte character, so P parts must be joined as bytes.
      const lines = createInterface({ input: asLatin1(input), crlfDelay: Infinity });
      for await (const raw of lines) {
        lineNo++;
        linesRead++;
        const bytes = lineNo === 1 && raw.startsWith(UTF8_BOM) ? raw.slice(UTF8_BOM.length) : raw;
        const cri = CRI_LINE.exec(bytes);
        if (cri) {
          const stream = cri[2] ?? 'stdout';
          const content = cri[4] ?? '';
          const pending = partials.get(stream);
          if (cri[3] === 'P') {
            if (pending) pending.parts.push(content);
            else partials.set(stream, { parts: [content], line: lineNo, time: rfc3339ToEpochSeconds(cri[1] ?? ''), latin1: true });
            continue;
          }
          if (pending) {
            partials.delete(stream);
            pending.parts.push(content);
            await emit(pending);
          } else {
            await emit({ parts: [content], line: lineNo, time: rfc3339ToEpochSeconds(cri[1] ?? ''), latin1: true });
          }
          continue;
        }
        const repaired = repairEventLine(latin1Bytes(bytes));
        const json = parseJsonLine(repaired.text);
        if (json.kind === 'docker') {
          const key = `docker:${json.stream}`;
          const pending = partials.get(key);
          // json-file ends every complete line with a newline; a part without it continues in the next record.
          const complete = json.log.endsWith('\n');
          const body = complete ? json.log.replace(/\r?\n$/, '') : json.log;
          if (!complete) {
            if (pending) pending.parts.push(body);
            else partials.set(key, { parts: [body], line: lineNo, time: json.time, latin1: false });
            continue;
          }
          // The json-file record's own repairs (invalid bytes inside its log string) count for the event line.
          if (pending) {
            partials.delete(key);
            pending.parts.push(body);
            await emit(pending, repaired.repairs);
          } else {
            await emit({ parts: [body], line: lineNo, time: json.time, latin1: false }, repaired.repairs);
          }
          continue;
        }
        await handle(repaired, name, lineNo, undefined, json.kind === 'json' ? json.value : undefined);
      }
    } catch (error) {
      if (error instanceof IngestError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new IngestError(`reading ${name} failed at line ${lineNo + 1}: ${reason}`, summary(), { cause: error });
    }
    // A partial line without its final part (file cut mid-line): handled as it is, so a cut event counts as malformed.
    for (const pending of partials.values()) await emit(pending);
    progress();
  }
  await flush(WORKFLOW_EVENTS_TABLE);
  await flush(TASK_EVENTS_TABLE);
  return summary();
}

async function openSource(source: IngestSource, stdin: Readable | undefined): Promise<Readable> {
  if (typeof source !== 'string') return source.stream;
  if (source === '-') return stdin ?? process.stdin;
  const handle = await open(source, 'r').catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new IngestError(`cannot open ${source}: ${reason}`, emptySummary(), { cause: error });
  });
  const stream = handle.createReadStream();
  if (!source.endsWith('.gz')) return stream;
  // Rotated container logs are gzip-compressed by the kubelet.
  const gunzip = createGunzip();
  stream.on('error', (error) => gunzip.destroy(error));
  return stream.pipe(gunzip);
}

function emptySummary(): IngestSummary {
  return {
    sources: 0,
    linesRead: 0,
    eventsWritten: { workflow_events_raw: 0, task_events_raw: 0, total: 0 },
    batches: 0,
    retries: 0,
    skipped: 0,
    malformed: 0,
    malformedSamples: [],
    rejected: null,
    rejectedSamples: [],
    repairs: noRepairs(),
    durationMs: 0,
    eventsPerSecond: 0,
  };
}

type JsonLine =
  | { readonly kind: 'docker'; readonly log: string; readonly stream: string; readonly time: number | undefined }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'other' };

/** A Docker json-file record (`{"log":"…\n","stream":"stdout","time":"…"}`), another JSON value (parsed once), or neither. */
function parseJsonLine(text: string): JsonLine {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{')) return { kind: 'other' };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { kind: 'other' }; // classify() tells skipped from malformed
  }
  if (isPlainObject(value) && typeof value['log'] === 'string' && typeof value['stream'] === 'string' && !('eventType' in value)) {
    return { kind: 'docker', log: value['log'], stream: value['stream'], time: typeof value['time'] === 'string' ? rfc3339ToEpochSeconds(value['time']) : undefined };
  }
  return { kind: 'json', value };
}

function classify(content: string, prefix: string, preParsed?: unknown): Classified {
  let value = preParsed;
  if (value === undefined) {
    const trimmed = content.trim();
    const looksLikeEvent = content.includes('eventType') && content.includes(prefix);
    if (!trimmed.startsWith('{')) {
      return looksLikeEvent
        ? { kind: 'malformed', reason: 'text before the JSON event (the log handler must print the bare message, format %s%n)' }
        : { kind: 'skipped' };
    }
    try {
      value = JSON.parse(trimmed);
    } catch (error) {
      return looksLikeEvent ? { kind: 'malformed', reason: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` } : { kind: 'skipped' };
    }
  }
  if (!isPlainObject(value)) return { kind: 'skipped' };
  const eventType = value['eventType'];
  if (typeof eventType !== 'string' || !eventType.startsWith(prefix)) return { kind: 'skipped' };
  return { kind: 'event', record: value as FluentBitRecord, eventType };
}

function describeRange(items: readonly PendingEvent[]): string {
  const first = items[0];
  const last = items[items.length - 1];
  if (!first || !last) return 'nothing';
  if (first.source === last.source) return first.line === last.line ? `${first.source} line ${first.line}` : `${first.source} lines ${first.line}–${last.line}`;
  return `${first.source}:${first.line} to ${last.source}:${last.line}`;
}

interface RejectionTracker {
  afterBatch(
    table: RawTable,
    batchLength: number,
    sampleLimit: number,
  ): Promise<{ count: number; lo: number; exact: boolean; samples: Array<{ rawId: number; eventType: string | null; reason: string }> }>;
}

async function startRejectionTracking(db: SqlExecutor): Promise<RejectionTracker | null> {
  let baseline: number;
  let sequences: Record<RawTable, string>;
  let last: Record<RawTable, number>;
  try {
    const res = await db.query(
      `SELECT coalesce((SELECT max(id) FROM workflow_index.ingest_errors), 0)::text AS baseline,
              pg_get_serial_sequence($1, 'id') AS wseq, pg_get_serial_sequence($2, 'id') AS tseq`,
      [`${RAW_SCHEMA}.${WORKFLOW_EVENTS_TABLE}`, `${RAW_SCHEMA}.${TASK_EVENTS_TABLE}`],
    );
    const row = res.rows[0] as { baseline: string; wseq: string | null; tseq: string | null } | undefined;
    if (!row?.wseq || !row.tseq) return null;
    baseline = Number(row.baseline);
    sequences = { [WORKFLOW_EVENTS_TABLE]: row.wseq, [TASK_EVENTS_TABLE]: row.tseq };
    last = await sequenceValues(db, sequences);
  } catch (error) {
    if (error instanceof Error && PERMISSION_SQLSTATES.has(String((error as { code?: unknown }).code))) return null;
    throw error;
  }
  return {
    async afterBatch(table, batchLength, sampleLimit) {
      const before = last;
      const res = await db.query(
        `WITH s AS (SELECT coalesce(pg_sequence_last_value($1::regclass), 0) AS w, coalesce(pg_sequence_last_value($2::regclass), 0) AS t),
              e AS (SELECT e.id, e.raw_id, e.event_type, e.reason FROM workflow_index.ingest_errors e, s
                    WHERE e.id > $3 AND e.raw_table = $4 AND e.raw_id > $5
                      AND e.raw_id <= CASE WHEN $4 = '${WORKFLOW_EVENTS_TABLE}' THEN s.w ELSE s.t END)
         SELECT s.w::text AS w, s.t::text AS t, (SELECT count(*) FROM e)::int AS n,
                (SELECT coalesce(json_agg(x ORDER BY x.id), '[]') FROM (SELECT * FROM e ORDER BY id LIMIT $6) x) AS samples
         FROM s`,
        [sequences[WORKFLOW_EVENTS_TABLE], sequences[TASK_EVENTS_TABLE], baseline, table, before[table], Math.max(0, sampleLimit)],
      );
      const row = res.rows[0] as { w: string; t: string; n: number; samples: Array<{ raw_id: number; event_type: string | null; reason: string }> };
      last = { [WORKFLOW_EVENTS_TABLE]: Number(row.w), [TASK_EVENTS_TABLE]: Number(row.t) };
      return {
        count: row.n,
        lo: before[table],
        // Exactly as many new ids as rows: no other writer interleaved, so id order is our row order.
        exact: last[table] - before[table] === batchLength,
        samples: row.samples.map((s) => ({ rawId: Number(s.raw_id), eventType: s.event_type, reason: s.reason })),
      };
    },
  };
}

async function sequenceValues(db: SqlExecutor, sequences: Record<RawTable, string>): Promise<Record<RawTable, number>> {
  const res = await db.query(
    `SELECT coalesce(pg_sequence_last_value($1::regclass), 0)::text AS w, coalesce(pg_sequence_last_value($2::regclass), 0)::text AS t`,
    [sequences[WORKFLOW_EVENTS_TABLE], sequences[TASK_EVENTS_TABLE]],
  );
  const row = res.rows[0] as { w: string; t: string };
  return { [WORKFLOW_EVENTS_TABLE]: Number(row.w), [TASK_EVENTS_TABLE]: Number(row.t) };
}
