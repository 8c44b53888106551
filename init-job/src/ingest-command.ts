// `ingest <files..>`: replays JSONL / CRI / Docker log files into the raw tables the way Fluent Bit writes them.
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import pg from 'pg';
import { DEFAULT_EVENT_TYPE_PREFIX, DEFAULT_INGEST_BATCH_SIZE, ingestEventLogs, IngestError, toPoolConfig, type IngestSummary } from '@workflow-index/postgresql/admin';
import { CONNECTION_ENV_HELP, EXIT_HELP, STDIN_TOKEN, withConnectionOptions, type CommandDefinition } from './cli-options.js';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openDatabase, type ConnectionArgs } from './database-connection.js';

export interface IngestArgs extends ConnectionArgs {
  readonly files: readonly string[];
  readonly batchSize: number;
  readonly eventTypePrefix: string;
  readonly json: boolean;
  readonly waitTimeout: number;
}

const PROGRESS_INTERVAL_MS = 2000;

export function summaryLines(s: IngestSummary): string[] {
  const lines = [
    `lines read: ${s.linesRead} from ${s.sources} source${s.sources === 1 ? '' : 's'}`,
    `events written: ${s.eventsWritten.total} (workflow_events_raw ${s.eventsWritten.workflow_events_raw}, task_events_raw ${s.eventsWritten.task_events_raw}) in ${s.batches} batch${s.batches === 1 ? '' : 'es'}${s.retries > 0 ? `, ${s.retries} retried` : ''}`,
    `skipped (not events): ${s.skipped}`,
    `malformed: ${s.malformed}`,
    ...s.malformedSamples.map((m) => `  ${m.source}:${m.line}: ${m.reason}`),
    s.rejected === null
      ? 'rejected by the normalizer: unknown (this role cannot read workflow_index.ingest_errors)'
      : `rejected by the normalizer: ${s.rejected}${s.rejected > 0 ? ' (see workflow_index.ingest_errors)' : ''}`,
    ...s.rejectedSamples.map((r) => `  ${r.location ?? `${r.table} id ${r.rawId}`}: ${r.eventType ?? 'no eventType'}: ${r.reason}`),
    repairsLine(s.repairs),
    `duration: ${(s.durationMs / 1000).toFixed(2)} s (${s.eventsPerSecond} events/s)`,
  ];
  return lines;
}

/** Events the line-repair rule changed before writing, per kind; the kinds are those of fluent-bit/postgresql/repair-line.lua too. */
function repairsLine(repairs: IngestSummary['repairs']): string {
  const found = Object.entries(repairs).filter(([, n]) => n > 0);
  return found.length === 0 ? 'repaired: 0' : `repaired: ${found.map(([kind, n]) => `${kind} ${n}`).join(', ')}`;
}

export async function runIngest(args: IngestArgs, env: Readonly<Record<string, string | undefined>>, out: CliOutput, stdin: Readable): Promise<number> {
  const problems: string[] = [];
  if (!Number.isSafeInteger(args.batchSize) || args.batchSize < 1) problems.push(`--batch-size must be an integer ≥ 1, got ${String(args.batchSize)}`);
  if (args.eventTypePrefix === '') problems.push('--event-type-prefix must not be empty');
  if (args.files.filter((f) => f === '-').length > 1) problems.push('standard input (-) can be read only once');
  for (const file of args.files) {
    if (file === '-') continue;
    try {
      const info = await stat(file);
      if (!info.isFile()) problems.push(`${file} is not a file`);
    } catch {
      problems.push(`${file} does not exist or cannot be read`);
    }
  }
  const opened = await openDatabase(env, args, out, problems);
  if (!opened.ok) return opened.exitCode;
  const settings = opened.settings;
  await opened.client.end(); // the database answers; the run itself uses a pool

  // A pool of one: a connection lost mid-run is replaced on the batch's retry.
  const pool = new pg.Pool(toPoolConfig(settings, { min: 0, max: 1 }));
  pool.on('error', (error) => out.log(`database connection error: ${reasonOf(error)}`));
  let lastProgress = Date.now();
  try {
    const summary = await ingestEventLogs(pool, args.files, {
      batchSize: args.batchSize,
      eventTypePrefix: args.eventTypePrefix,
      stdin,
      onProgress: (p) => {
        const now = Date.now();
        if (now - lastProgress < PROGRESS_INTERVAL_MS) return;
        lastProgress = now;
        out.log(`progress: ${p.source}: ${p.linesRead} lines read, ${p.eventsWritten} events written, ${p.skipped} skipped, ${p.malformed} malformed`);
      },
      onRetry: (r) => out.log(`retrying ${r.batch} in ${(r.delayMs / 1000).toFixed(2)} s (attempt ${r.attempt} failed: ${r.reason})`),
    });
    if (args.json) out.out(JSON.stringify(summary));
    else for (const line of summaryLines(summary)) out.out(line);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof IngestError) {
      out.log(`error: ${error.message}`);
      if (args.json) out.out(JSON.stringify({ ...error.summary, error: error.message }));
      else {
        out.log('before the failure:');
        for (const line of summaryLines(error.summary)) out.log(`  ${line}`);
      }
    } else {
      out.log(`error: ${reasonOf(error)}`);
    }
    return EXIT_FAILURE;
  } finally {
    await pool.end().catch(() => undefined);
  }
}

export const ingestCommand: CommandDefinition = (parser, context) =>
  parser.command(
    'ingest <files..>',
    'Write the workflow events of JSONL, CRI or Docker log files (- for stdin, .gz decompressed) into the raw tables, as Fluent Bit does',
    (y) =>
      withConnectionOptions(y)
        .positional('files', { type: 'string', array: true, demandOption: true, describe: 'Files to read in order; - reads standard input' })
        .option('batch-size', { type: 'number', default: DEFAULT_INGEST_BATCH_SIZE, describe: 'Events per INSERT statement, per raw table' })
        .option('event-type-prefix', {
          type: 'string',
          default: DEFAULT_EVENT_TYPE_PREFIX,
          describe: 'Only JSON objects whose eventType starts with this are events',
        })
        .option('json', { type: 'boolean', default: false, describe: 'Print the summary as one JSON object' })
        .epilogue(
          `Progress goes to stderr, the summary to stdout. Events the normalizer rejects stay in the raw tables and are listed in workflow_index.ingest_errors; they do not fail the run.\n\n${CONNECTION_ENV_HELP}\n\n${EXIT_HELP}`,
        ),
    async (args) => {
      const files = (args.files ?? []).map((f) => (String(f) === STDIN_TOKEN ? '-' : String(f)));
      const ingestArgs = { ...args, files, batchSize: args.batchSize, eventTypePrefix: args.eventTypePrefix, json: args.json === true };
      context.finish(await runIngest(ingestArgs, context.env, context.out, context.stdin));
    },
  );
