// The init job's command line: the Kubernetes Job runs `migrate` (PostgreSQL) or `opensearch-setup` (OpenSearch);
// operators use `status`, `plan` (both take `--backend opensearch`) and `ingest`; the retention CronJob runs `prune`.
// Exit codes: 0 success, 1 the database / a migration / the ingestion failed, 2 invalid usage or configuration.
import type { Readable } from 'node:stream';
import yargs from 'yargs';
import type { Argv } from 'yargs';
import { DEFAULT_EVENT_TYPE_PREFIX, DEFAULT_INGEST_BATCH_SIZE } from '@workflow-index/postgresql';
import { cliOutput, EXIT_OK, EXIT_USAGE, reasonOf, type CliIo } from './cli-output.js';
import { runIngest } from './ingest-command.js';
import type { LoginRoleFlags } from '@workflow-index/postgresql';
import type { ConnectionArgs } from './database-connection.js';
import { runMigrate } from './migrate-command.js';
import { INDEX_PREFIX_ENV } from './opensearch-connection.js';
import { runOpenSearchSetup } from './opensearch-setup-command.js';
import { runOpenSearchStatus } from './opensearch-status-command.js';
import { DEFAULT_PRUNE_BATCH_SIZE, DEFAULT_RAW_RETENTION_DAYS, INSTANCE_RETENTION_ENV, RAW_RETENTION_ENV, runPrune } from './prune-command.js';
import { runStatus } from './status-command.js';

export const DEFAULT_WAIT_TIMEOUT_SECONDS = 60;

/** What a command line without a command is told; every command, and the backends each serves. */
export const CHOOSE_COMMAND =
  'Choose a command: migrate, plan, status, ingest or prune (PostgreSQL), opensearch-setup (OpenSearch); plan, status and prune take --backend opensearch';

// yargs-parser drops a bare `-`, the usual name for standard input; it travels through parsing as this token.
const STDIN_TOKEN = '<stdin>';

const CONNECTION_ENV_HELP = `Connection (flags win over the environment):
  DATABASE_URL                  postgres://user:password@host:5432/db?sslmode=require
                                or jdbc:postgresql://host:5432/db?user=…&password=…&sslmode=…&currentSchema=…
                                sslmode: disable (default), require (TLS, no verification), verify-ca, verify-full
  DATABASE_USERNAME             overrides the URL's user
  DATABASE_PASSWORD             overrides the URL's password
  QUARKUS_DATASOURCE_JDBC_URL   alias of DATABASE_URL (DATABASE_URL wins when both are set)
  QUARKUS_DATASOURCE_USERNAME   alias of DATABASE_USERNAME
  QUARKUS_DATASOURCE_PASSWORD   alias of DATABASE_PASSWORD
  DATABASE_POOL_MIN / _MAX      validated here too (integers, defaults 5 / 20, min ≤ max)`;

const LOGIN_ROLE_ENV_HELP = `Login roles (migrate; optional, each pair complete):
  WORKFLOW_INDEX_READER_USERNAME / WORKFLOW_INDEX_READER_PASSWORD
                                login for the GraphQL server, member of workflow_index_reader
  WORKFLOW_INDEX_FORWARDER_USERNAME / WORKFLOW_INDEX_FORWARDER_PASSWORD
                                login for Fluent Bit, member of workflow_index_forwarder, search_path workflow_raw
  WORKFLOW_INDEX_PRUNER_USERNAME / WORKFLOW_INDEX_PRUNER_PASSWORD
                                login for the retention CronJob (prune), member of workflow_index_pruner`;

const RETENTION_ENV_HELP = `Retention (prune; flags win):
  ${RAW_RETENTION_ENV}     whole days ≥ 0, default ${DEFAULT_RAW_RETENTION_DAYS}
  ${INSTANCE_RETENTION_ENV}       whole days ≥ 0, or off (default)`;

const OPENSEARCH_ENV_HELP = `OpenSearch connection (opensearch-setup, plan/status --backend opensearch):
  OPENSEARCH_HOST               host name (required), e.g. opensearch.example.svc
  OPENSEARCH_PORT               default 9200
  OPENSEARCH_PROTOCOL           http (default) or https
  OPENSEARCH_USERNAME           optional; basic authentication
  OPENSEARCH_PASSWORD           its password (never printed)
  OPENSEARCH_CA_FILE            CA bundle that signed the cluster's certificate (https only)
  ${INDEX_PREFIX_ENV}    prefix of every object name; tests and benchmarks on a shared node only`;

const BACKEND_OPTION = {
  type: 'string',
  choices: ['postgresql', 'opensearch'],
  default: 'postgresql',
  describe: 'Storage backend: opensearch uses the OPENSEARCH_* settings and ignores the database options',
} as const;

const EXIT_HELP = 'Exit codes: 0 success, 1 database, OpenSearch, migration, setup or ingestion failure, 2 invalid usage or configuration.';

function withConnectionOptions<T>(y: Argv<T>) {
  return y
    .option('database-url', { type: 'string', describe: 'PostgreSQL URL (postgres:// or jdbc:postgresql://); default $DATABASE_URL' })
    .option('database-username', { type: 'string', describe: "User name, overrides the URL's; default $DATABASE_USERNAME" })
    .option('database-password', {
      type: 'string',
      describe: "Password, overrides the URL's; default $DATABASE_PASSWORD (prefer the variable: flags show in the process list)",
    })
    .option('wait-timeout', {
      type: 'number',
      default: DEFAULT_WAIT_TIMEOUT_SECONDS,
      describe: 'Seconds to wait for the database to accept connections (retries with exponential backoff)',
    });
}

function withLoginRoleOptions<T>(y: Argv<T>) {
  return y
    .option('reader-username', { type: 'string', describe: 'Login role for the server; default $WORKFLOW_INDEX_READER_USERNAME' })
    .option('reader-password', { type: 'string', describe: 'Its password; default $WORKFLOW_INDEX_READER_PASSWORD' })
    .option('forwarder-username', { type: 'string', describe: 'Login role for Fluent Bit; default $WORKFLOW_INDEX_FORWARDER_USERNAME' })
    .option('forwarder-password', { type: 'string', describe: 'Its password; default $WORKFLOW_INDEX_FORWARDER_PASSWORD' })
    .option('pruner-username', { type: 'string', describe: 'Login role for prune (retention); default $WORKFLOW_INDEX_PRUNER_USERNAME' })
    .option('pruner-password', { type: 'string', describe: 'Its password; default $WORKFLOW_INDEX_PRUNER_PASSWORD' });
}

export interface CliContext extends CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable;
}

/** Parses and runs one command line; resolves to the process exit code. */
export async function runCli(argv: readonly string[], context: CliContext): Promise<number> {
  const out = cliOutput(context);
  let exitCode = EXIT_OK;
  let usageError = false;
  const migrateWith = async (
    args: ConnectionArgs & LoginRoleFlags & { readonly waitTimeout: number },
    dryRun: boolean,
  ): Promise<void> => {
    exitCode = await runMigrate(
      {
        databaseUrl: args.databaseUrl,
        databaseUsername: args.databaseUsername,
        databasePassword: args.databasePassword,
        readerUsername: args.readerUsername,
        readerPassword: args.readerPassword,
        forwarderUsername: args.forwarderUsername,
        forwarderPassword: args.forwarderPassword,
        prunerUsername: args.prunerUsername,
        prunerPassword: args.prunerPassword,
        waitTimeout: args.waitTimeout,
        dryRun,
      },
      context.env,
      out,
    );
  };

  const parser = yargs(argv.map((arg) => (arg === '-' ? STDIN_TOKEN : arg)))
    .scriptName('workflow-index-init')
    .usage('$0 <command> [options]\n\nSchema and data tasks for Workflow Index on PostgreSQL or OpenSearch.')
    .env(false)
    .exitProcess(false)
    .strict()
    .command(
      'migrate',
      'Wait for the database, apply pending migrations, then create or update the login roles',
      (y) =>
        withLoginRoleOptions(withConnectionOptions(y))
          .option('dry-run', { type: 'boolean', default: false, describe: 'Print the SQL that would run, change nothing' })
          .epilogue(`${CONNECTION_ENV_HELP}\n\n${LOGIN_ROLE_ENV_HELP}\n\n${EXIT_HELP}`),
      async (args) => migrateWith(args, args.dryRun === true),
    )
    .command(
      'opensearch-setup',
      'Wait for OpenSearch, then create or update the raw index templates and pipeline, the normalized indices, the normalizer state index and the normalization jobs; one line per object',
      (y) =>
        y
          .option('dry-run', { type: 'boolean', default: false, describe: 'Say what would be created or updated, change nothing (same as plan --backend opensearch)' })
          .option('wait-timeout', {
            type: 'number',
            default: DEFAULT_WAIT_TIMEOUT_SECONDS,
            describe: 'Seconds to wait for the cluster to answer (retries with exponential backoff; refused credentials fail at once)',
          })
          .epilogue(`Lines: <kind> <name>: created | updated | unchanged (dry run: would be created | would be updated | unchanged).\n\n${OPENSEARCH_ENV_HELP}\n\n${EXIT_HELP}`),
      async (args) => {
        exitCode = await runOpenSearchSetup({ dryRun: args.dryRun === true, waitTimeout: args.waitTimeout }, context.env, out);
      },
    )
    .command(
      'plan',
      'Print the SQL of the pending migrations without running it (same as migrate --dry-run); --backend opensearch: what opensearch-setup would do',
      (y) =>
        withLoginRoleOptions(withConnectionOptions(y))
          .option('backend', BACKEND_OPTION)
          .epilogue(`${CONNECTION_ENV_HELP}\n\n${LOGIN_ROLE_ENV_HELP}\n\n${OPENSEARCH_ENV_HELP}\n\n${EXIT_HELP}`),
      async (args) => {
        if (args.backend === 'opensearch') {
          exitCode = await runOpenSearchSetup({ dryRun: true, waitTimeout: args.waitTimeout }, context.env, out);
          return;
        }
        await migrateWith(args, true);
      },
    )
    .command(
      'status',
      'List applied and pending migrations (and ingestion figures once migrated); --backend opensearch: the OpenSearch objects, the normalization jobs, checkpoint and lag',
      (y) =>
        withConnectionOptions(y)
          .option('backend', BACKEND_OPTION)
          .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object instead of lines' })
          .epilogue(`${CONNECTION_ENV_HELP}\n\n${OPENSEARCH_ENV_HELP}\n\n${EXIT_HELP}`),
      async (args) => {
        if (args.backend === 'opensearch') {
          exitCode = await runOpenSearchStatus({ waitTimeout: args.waitTimeout, json: args.json === true }, context.env, out);
          return;
        }
        exitCode = await runStatus({ ...args, json: args.json === true }, context.env, out);
      },
    )
    .command(
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
        exitCode = await runIngest(
          {
            ...args,
            files: (args.files ?? []).map((f) => (String(f) === STDIN_TOKEN ? '-' : String(f))),
            batchSize: args.batchSize,
            eventTypePrefix: args.eventTypePrefix,
            json: args.json === true,
          },
          context.env,
          out,
          context.stdin,
        );
      },
    )
    .command(
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
        exitCode = await runPrune(
          {
            databaseUrl: args.databaseUrl,
            databaseUsername: args.databaseUsername,
            databasePassword: args.databasePassword,
            waitTimeout: args.waitTimeout,
            backend: args.backend === 'opensearch' ? 'opensearch' : 'postgresql',
            dryRun: args.dryRun === true,
            rawRetentionDays: args.rawRetentionDays,
            instanceRetentionDays: args.instanceRetentionDays,
            batchSize: args.batchSize,
          },
          context.env,
          out,
        );
      },
    )
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
