// `prune`: retention for both backends. Raw events older than RAW_EVENTS_RETENTION_DAYS go (default 7; the raw
// tables are only an inbox: the normalizer keeps every event it needs in its own deduplicated store), and, when
// INSTANCE_RETENTION_DAYS is set, finished runs that ended before that horizon go with their task executions and
// stored events. This command reads and checks the settings (flags win over the environment, every problem reported
// at once, exit 2) and dispatches to the backend's prune command; the backends do the work in bounded batches.
import { BACKEND_OPTION, CONNECTION_ENV_HELP, EXIT_HELP, OPENSEARCH_ENV_HELP, withConnectionOptions, type CommandDefinition } from './cli-options.js';
import { EXIT_USAGE, type CliOutput } from './cli-output.js';
import type { ConnectionArgs } from './database-connection.js';
import { runOpenSearchPrune } from './opensearch-prune-command.js';
import { runPostgresPrune } from './postgresql-prune-command.js';

export const RAW_RETENTION_ENV = 'RAW_EVENTS_RETENTION_DAYS';
export const INSTANCE_RETENTION_ENV = 'INSTANCE_RETENTION_DAYS';
export const DEFAULT_RAW_RETENTION_DAYS = 7;
export const DEFAULT_PRUNE_BATCH_SIZE = 5000;
export const MAX_PRUNE_BATCH_SIZE = 100_000;

export const RETENTION_ENV_HELP = `Retention (prune; flags win):
  ${RAW_RETENTION_ENV}     whole days ≥ 0, default ${DEFAULT_RAW_RETENTION_DAYS}
  ${INSTANCE_RETENTION_ENV}       whole days ≥ 0, or off (default)`;

export type PruneBackend = 'postgresql' | 'opensearch';

export interface PruneFlags extends ConnectionArgs {
  readonly backend: PruneBackend;
  readonly dryRun: boolean;
  readonly rawRetentionDays?: number | undefined;
  readonly instanceRetentionDays?: number | undefined;
  readonly batchSize: number;
  readonly waitTimeout: number;
}

/** What both backends get: checked settings, horizons as instants computed once from `now`. */
export interface PruneSettings {
  readonly dryRun: boolean;
  readonly rawRetentionDays: number;
  /** null: finished runs are kept for ever (the default). */
  readonly instanceRetentionDays: number | null;
  readonly batchSize: number;
  readonly waitTimeout: number;
  /** Raw events recorded before this instant go. */
  readonly rawHorizon: Date;
  /** Finished runs that ended before this instant go; null when instance retention is off. */
  readonly instanceHorizon: Date | null;
}

const DAY_MS = 86_400_000;

function readDays(name: string, flag: number | undefined, envValue: string | undefined, problems: string[]): number | null | undefined {
  if (flag !== undefined) {
    if (!Number.isInteger(flag) || flag < 0) problems.push(`--${name} must be a whole number of days ≥ 0, got ${String(flag)}`);
    return flag;
  }
  if (envValue === undefined || envValue.trim() === '') return undefined;
  if (envValue.trim().toLowerCase() === 'off') return null;
  const n = Number(envValue.trim());
  if (!/^\d+$/.test(envValue.trim()) || !Number.isSafeInteger(n)) {
    problems.push(`${name === 'raw-retention-days' ? RAW_RETENTION_ENV : INSTANCE_RETENTION_ENV} must be a whole number of days ≥ 0 or "off", got ${JSON.stringify(envValue)}`);
    return undefined;
  }
  return n;
}

/** Flags win over the environment; every problem is reported, none stops the others from being found. */
export function resolvePruneSettings(
  env: Readonly<Record<string, string | undefined>>,
  flags: PruneFlags,
  now: Date = new Date(),
): { settings: PruneSettings | null; problems: string[] } {
  const problems: string[] = [];
  const raw = readDays('raw-retention-days', flags.rawRetentionDays, env[RAW_RETENTION_ENV], problems);
  if (raw === null) problems.push(`${RAW_RETENTION_ENV} cannot be "off": raw events are an inbox; set a number of days (default ${DEFAULT_RAW_RETENTION_DAYS})`);
  const instance = readDays('instance-retention-days', flags.instanceRetentionDays, env[INSTANCE_RETENTION_ENV], problems);
  if (!Number.isInteger(flags.batchSize) || flags.batchSize < 1 || flags.batchSize > MAX_PRUNE_BATCH_SIZE) {
    problems.push(`--batch-size must be a whole number from 1 to ${MAX_PRUNE_BATCH_SIZE}, got ${String(flags.batchSize)}`);
  }
  if (!Number.isFinite(flags.waitTimeout) || flags.waitTimeout < 0) problems.push(`--wait-timeout must be a number of seconds ≥ 0, got ${String(flags.waitTimeout)}`);
  if (problems.length > 0) return { settings: null, problems };
  const rawRetentionDays = raw ?? DEFAULT_RAW_RETENTION_DAYS;
  const instanceRetentionDays = instance ?? null;
  return {
    settings: {
      dryRun: flags.dryRun,
      rawRetentionDays,
      instanceRetentionDays,
      batchSize: flags.batchSize,
      waitTimeout: flags.waitTimeout,
      rawHorizon: new Date(now.getTime() - rawRetentionDays * DAY_MS),
      instanceHorizon: instanceRetentionDays === null ? null : new Date(now.getTime() - instanceRetentionDays * DAY_MS),
    },
    problems,
  };
}

export async function runPrune(flags: PruneFlags, env: Readonly<Record<string, string | undefined>>, out: CliOutput): Promise<number> {
  const { settings, problems } = resolvePruneSettings(env, flags);
  if (flags.backend === 'opensearch') {
    // The same checked settings; the database options are ignored.
    if (!settings) return reportProblems(problems, out);
    return runOpenSearchPrune(flags, settings, env, out);
  }
  // PostgreSQL reports the settings' problems together with the connection's.
  return runPostgresPrune(flags, settings, problems, env, out);
}

export function reportProblems(problems: readonly string[], out: CliOutput): number {
  out.log('configuration problems:');
  for (const p of problems) out.log(`  - ${p}`);
  return EXIT_USAGE;
}

export const pruneCommand: CommandDefinition = (parser, context) =>
  parser.command(
    'prune',
    'Delete raw events older than the raw retention and, when instance retention is set, finished runs that ended before it (with their task executions); bounded batches, safe while ingestion runs',
    (y) =>
      withConnectionOptions(y)
        .option('backend', BACKEND_OPTION)
        .option('dry-run', { type: 'boolean', default: false, describe: 'Print what would be deleted, in counts per workflow, delete nothing' })
        .option('raw-retention-days', { type: 'number', describe: `Keep raw events this many days; default $${RAW_RETENTION_ENV}, else ${DEFAULT_RAW_RETENTION_DAYS}` })
        .option('instance-retention-days', {
          type: 'number',
          describe: `Delete finished runs (COMPLETED, FAULTED, CANCELLED) that ended more than this many days ago; default $${INSTANCE_RETENTION_ENV}, else off (never RUNNING or SUSPENDED)`,
        })
        .option('batch-size', { type: 'number', default: DEFAULT_PRUNE_BATCH_SIZE, describe: 'Rows per delete transaction' })
        .epilogue(`${RETENTION_ENV_HELP}\n\n${CONNECTION_ENV_HELP}\n\n${OPENSEARCH_ENV_HELP}\n\n${EXIT_HELP}`),
    async (args) => {
      const flags: PruneFlags = {
        databaseUrl: args.databaseUrl,
        databaseUsername: args.databaseUsername,
        databasePassword: args.databasePassword,
        waitTimeout: args.waitTimeout,
        backend: args.backend === 'opensearch' ? 'opensearch' : 'postgresql',
        dryRun: args.dryRun === true,
        rawRetentionDays: args.rawRetentionDays,
        instanceRetentionDays: args.instanceRetentionDays,
        batchSize: args.batchSize,
      };
      context.finish(await runPrune(flags, context.env, context.out));
    },
  );
