// The init job's command line: the Kubernetes Job runs `migrate` (PostgreSQL) or `opensearch-setup` (OpenSearch);
// operators use `status`, `plan` (both take `--backend opensearch`) and `ingest`; the retention CronJob runs `prune`.
// Each command is a module of its own (`<command>-command.ts`); this file parses and dispatches.
// Exit codes: 0 success, 1 the database / a migration / the ingestion failed, 2 invalid usage or configuration.
import type { Readable } from 'node:stream';
import yargs from 'yargs';
import { CONNECTION_ENV_HELP, EXIT_HELP, LOGIN_ROLE_ENV_HELP, OPENSEARCH_ENV_HELP, STDIN_TOKEN, type CommandContext, type CommandDefinition } from './cli-options.js';
import { cliOutput, EXIT_OK, EXIT_USAGE, reasonOf, type CliIo } from './cli-output.js';
import { ingestCommand } from './ingest-command.js';
import { migrateCommand } from './migrate-command.js';
import { openSearchSetupCommand } from './opensearch-setup-command.js';
import { planCommand } from './plan-command.js';
import { pruneCommand, RETENTION_ENV_HELP } from './prune-command.js';
import { statusCommand } from './status-command.js';

/** What a command line without a command is told; every command, and the backends each serves. */
export const CHOOSE_COMMAND =
  'Choose a command: migrate, plan, status, ingest or prune (PostgreSQL), opensearch-setup (OpenSearch); plan, status and prune take --backend opensearch';

/** In the order --help lists them. */
const COMMANDS: readonly CommandDefinition[] = [migrateCommand, openSearchSetupCommand, planCommand, statusCommand, ingestCommand, pruneCommand];

export interface CliContext extends CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable;
}

/** Parses and runs one command line; resolves to the process exit code. */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const out = cliOutput(context);
  let exitCode = EXIT_OK;
  let usageError = false;
  const commandContext: CommandContext = { env: context.env, out, stdin: context.stdin, finish: (code) => (exitCode = code) };
  const base = yargs(argv.map((arg) => (arg === '-' ? STDIN_TOKEN : arg)))
    .scriptName('workflow-index-init')
    .usage('$0 <command> [options]\n\nSchema and data tasks for Workflow Index on PostgreSQL or OpenSearch.')
    .env(false)
    .exitProcess(false)
    .strict();
  const parser = COMMANDS.reduce((p, command) => command(p, commandContext), base)
    .demandCommand(1, CHOOSE_COMMAND)
    .epilogue(`${CONNECTION_ENV_HELP}\n\n${LOGIN_ROLE_ENV_HELP}\n\n${RETENTION_ENV_HELP}\n\n${OPENSEARCH_ENV_HELP}\n\n${EXIT_HELP}`)
    .help()
    .alias('help', 'h')
    .version(false)
    .wrap(null) // yargs' ESM build breaks words when it wraps; terminals wrap long lines fine
    .fail((message, error) => {
      usageError = true;
      if (error && !message) {
        out.log(`error: ${reasonOf(error)}`);
        return;
      }
      out.log(`error: ${message}`);
      out.log('Run with --help for the commands and options.');
    });

  try {
    await parser.parseAsync();
  } catch (error) {
    out.log(`error: ${reasonOf(error)}`);
    return EXIT_USAGE;
  }
  return usageError ? EXIT_USAGE : exitCode;
}
