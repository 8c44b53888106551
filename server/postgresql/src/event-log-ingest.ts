// Replays event log files into PostgreSQL through the path Fluent Bit uses: the same selection (JSON objects
// whose eventType has the Serverless Workflow prefix), the same routing to the two raw tables, and the exact
// statement shape of its pgsql output, so the normalizing triggers see what they see in production.
// Used by `init-job ingest` and by development mode's demo data.
//
// Reading (JSONL, CRI and docker json-file logs, gzip, split lines, the line-repair rule) is backend-neutral
// (@workflow-index/events, LogLineReader); this file writes what it reads: classification
// (ingest-classification.ts), batches per raw table (ingest-raw-batches.ts), retries (ingest-retry.ts) and the
// attribution of rejected events (ingest-rejections.ts).
import type { Readable } from 'node:stream';
import { LogLineReader, logSourceName, openLogSource, type LogLine, type LogSource } from '@workflow-index/events';
import { classifyLine } from './ingest-classification.js';
import { RawBatches } from './ingest-raw-batches.js';
import { startRejectionTracking } from './ingest-rejections.js';
import { DEFAULT_INGEST_RETRY, IngestRetry, type IngestRetryPolicy, type RetryListener } from './ingest-retry.js';
import { emptySummary, IngestError, IngestTally, type IngestProgress, type IngestSummary } from './ingest-summary.js';
import type { SqlExecutor } from './ingest-raw-tables.js';

export { RAW_SCHEMA, RAW_TABLE_TAGS, type RawTable, type SqlExecutor } from './ingest-raw-tables.js';
export { isRetryableDatabaseError, type IngestRetryPolicy } from './ingest-retry.js';
export { IngestError, type IngestProgress, type IngestSummary, type MalformedLine, type RejectedEvent } from './ingest-summary.js';

export const DEFAULT_EVENT_TYPE_PREFIX = 'io.serverlessworkflow.';
export const DEFAULT_INGEST_BATCH_SIZE = 500;

/** A file path (`-` is standard input, `*.gz` is decompressed) or a named stream. */
export type IngestSource = LogSource;

export interface IngestOptions {
  readonly batchSize?: number;
  readonly eventTypePrefix?: string;
  readonly retry?: Partial<IngestRetryPolicy>;
  readonly stdin?: Readable;
  /** Called after each batch is written and when a source is finished. */
  readonly onProgress?: (progress: IngestProgress) => void;
  /** Called for each retried batch, e.g. to log it. */
  readonly onRetry?: RetryListener;
  /** How many malformed lines and rejected events are kept as examples in the summary (the counts are exact). */
  readonly sampleLimit?: number;
}

interface IngestRun {
  readonly prefix: string;
  readonly stdin: Readable | undefined;
  readonly tally: IngestTally;
  readonly batches: RawBatches;
  readonly progress: () => void;
}

/**
 * Reads sources in order and writes their events in batches per raw table, preserving input order within a
 * table. Malformed lines are counted, never fatal; a database failure that survives the retries is an IngestError.
 */
export async function ingestEventLogs(db: SqlExecutor, sources: readonly IngestSource[], options: IngestOptions = {}): Promise<IngestSummary> {
  const batchSize = options.batchSize ?? DEFAULT_INGEST_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError(`batch size must be an integer ≥ 1, got ${batchSize}`);
  const run = await startRun(db, sources.length, batchSize, options);
  for (const source of sources) await ingestSource(run, source);
  await run.batches.flushAll();
  return run.tally.summary();
}

async function startRun(db: SqlExecutor, sources: number, batchSize: number, options: IngestOptions): Promise<IngestRun> {
  const tally = new IngestTally(sources, options.sampleLimit ?? 50);
  const retry = new IngestRetry({ ...DEFAULT_INGEST_RETRY, ...options.retry }, tally, options.onRetry);
  const progress = (): void => options.onProgress?.(tally.progress());
  const rejections = await retry.run(() => 'reading the ingest-error baseline', () => startRejectionTracking(db));
  if (!rejections) tally.rejected = null;
  const batches = new RawBatches({ db, batchSize, retry, tally, rejections, onWritten: progress });
  return { prefix: options.eventTypePrefix ?? DEFAULT_EVENT_TYPE_PREFIX, stdin: options.stdin, tally, batches, progress };
}

async function ingestSource(run: IngestRun, source: IngestSource): Promise<void> {
  const name = logSourceName(source);
  run.tally.currentSource = name;
  const reader = new LogLineReader(await openSource(source, run.stdin));
  run.tally.reading(reader);
  try {
    for await (const line of reader.lines()) await ingestLine(run, line, name);
  } catch (error) {
    if (error instanceof IngestError) throw error;
    throw new IngestError(`reading ${name} failed at line ${reader.linesRead + 1}: ${reasonOf(error)}`, run.tally.summary(), { cause: error });
  }
  // A line without its last part (the file was cut mid-line) is taken as it is: a cut event counts as malformed.
  for (const line of reader.unfinished()) await ingestLine(run, line, name);
  run.progress();
}

async function openSource(source: IngestSource, stdin: Readable | undefined): Promise<Readable> {
  try {
    return await openLogSource(source, stdin);
  } catch (error) {
    throw new IngestError(`cannot open ${logSourceName(source)}: ${reasonOf(error)}`, emptySummary(), { cause: error });
  }
}

async function ingestLine(run: IngestRun, line: LogLine, source: string): Promise<void> {
  const classified = classifyLine(line, run.prefix);
  switch (classified.kind) {
    case 'skipped':
      run.tally.skipped++;
      return;
    case 'malformed':
      run.tally.addMalformed({ source, line: line.line, reason: classified.reason });
      return;
    case 'event':
      await run.batches.add(classified.table, { text: classified.record, repairs: line.repairs, source, line: line.line });
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
