// What the command modules share: how a command is added to the parser and reports its exit code, the options
// several commands take, and the help texts of the settings they read.
import type { Readable } from 'node:stream';
import type { Argv } from 'yargs';
import type { CliOutput } from './cli-output.js';
import { INDEX_PREFIX_ENV } from './opensearch-connection.js';

export interface CommandContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly out: CliOutput;
  readonly stdin: Readable;
  /** Records the exit code of the command that ran. */
  readonly finish: (exitCode: number) => void;
}

/** Adds one command (its options, help and handler) to the parser. */
export type CommandDefinition = (parser: Argv, context: CommandContext) => Argv;

export const DEFAULT_WAIT_TIMEOUT_SECONDS = 60;

// yargs-parser drops a bare `-`, the usual name for standard input; it travels through parsing as this token.
export const STDIN_TOKEN = '<stdin>';

export const CONNECTION_ENV_HELP = `Connection (flags win over the environment):
  DATABASE_URL                  postgres://user:password@host:5432/db?sslmode=require
                                or jdbc:postgresql://host:5432/db?user=…&password=…&sslmode=…&currentSchema=…
                                sslmode: disable (default), require (TLS, no verification), verify-ca, verify-full
  DATABASE_USERNAME             overrides the URL's user
  DATABASE_PASSWORD             overrides the URL's password
  QUARKUS_DATASOURCE_JDBC_URL   alias of DATABASE_URL (DATABASE_URL wins when both are set)
  QUARKUS_DATASOURCE_USERNAME   alias of DATABASE_USERNAME
  QUARKUS_DATASOURCE_PASSWORD   alias of DATABASE_PASSWORD
  DATABASE_POOL_MIN / _MAX      validated here too (integers, defaults 5 / 20, min ≤ max)`;

export const LOGIN_ROLE_ENV_HELP = `Login roles (migrate; optional, each pair complete):
  WORKFLOW_INDEX_READER_USERNAME / WORKFLOW_INDEX_READER_PASSWORD
                                login for the GraphQL server, member of workflow_index_reader
  WORKFLOW_INDEX_FORWARDER_USERNAME / WORKFLOW_INDEX_FORWARDER_PASSWORD
                                login for Fluent Bit, member of workflow_index_forwarder, search_path workflow_raw
  WORKFLOW_INDEX_PRUNER_USERNAME / WORKFLOW_INDEX_PRUNER_PASSWORD
                                login for the retention CronJob (prune), member of workflow_index_pruner`;

export const OPENSEARCH_ENV_HELP = `OpenSearch connection (opensearch-setup, plan/status --backend opensearch):
  OPENSEARCH_HOST               host name (required), e.g. opensearch.example.svc, or several nodes
                                separated by commas (host or host:port each), tried in turn
  OPENSEARCH_PORT               default 9200
  OPENSEARCH_PROTOCOL           http (default) or https
  OPENSEARCH_USERNAME           optional; basic authentication
  OPENSEARCH_PASSWORD           its password (never printed)
  OPENSEARCH_CA_FILE            CA bundle that signed the cluster's certificate (https only)
  OPENSEARCH_SHARDS             opensearch-setup: primary shards of new indices (default 1; fixed once created)
  OPENSEARCH_REPLICAS           opensearch-setup: most replicas of every index, as the cluster has nodes for
                                (default 1; a rerun changes existing indices)
  ${INDEX_PREFIX_ENV}    prefix of every object name; tests and benchmarks on a shared node only`;

export const EXIT_HELP = 'Exit codes: 0 success, 1 database, OpenSearch, migration, setup or ingestion failure, 2 invalid usage or configuration.';

export const BACKEND_OPTION = {
  type: 'string',
  choices: ['postgresql', 'opensearch'],
  default: 'postgresql',
  describe: 'Storage backend: opensearch uses the OPENSEARCH_* settings and ignores the database options',
} as const;

export function withConnectionOptions<T>(y: Argv<T>) {
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

export function withLoginRoleOptions<T>(y: Argv<T>) {
  return y
    .option('reader-username', { type: 'string', describe: 'Login role for the server; default $WORKFLOW_INDEX_READER_USERNAME' })
    .option('reader-password', { type: 'string', describe: 'Its password; default $WORKFLOW_INDEX_READER_PASSWORD' })
    .option('forwarder-username', { type: 'string', describe: 'Login role for Fluent Bit; default $WORKFLOW_INDEX_FORWARDER_USERNAME' })
    .option('forwarder-password', { type: 'string', describe: 'Its password; default $WORKFLOW_INDEX_FORWARDER_PASSWORD' })
    .option('pruner-username', { type: 'string', describe: 'Login role for prune (retention); default $WORKFLOW_INDEX_PRUNER_USERNAME' })
    .option('pruner-password', { type: 'string', describe: 'Its password; default $WORKFLOW_INDEX_PRUNER_PASSWORD' });
}
