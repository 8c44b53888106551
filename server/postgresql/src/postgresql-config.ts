// Configuration of the PostgreSQL server deployable: the core keys, the connection (connection-settings.ts) and
// this module's own keys. Flags > env > defaults; every problem of every part is reported in one ConfigError
// before anything connects; the result is frozen.
import yargs from 'yargs';
import { DEMO_REFERENCE_EVENTS } from '@workflow-index/events';
import { ConfigError, ConfigReader, deepFreeze, loadCoreConfig, readMode } from '@workflow-index/core';
import type { ConfigKeyDoc, ConfigSource, CoreConfig } from '@workflow-index/core';
import { resolvePostgresConnection } from './connection-settings.js';
import type { PostgresConnectionSettings } from './connection-settings.js';

export type DevServices = 'embedded' | 'container';
export const DEV_SERVICES: readonly DevServices[] = ['embedded', 'container'];

/** The reference event stream, loaded as demo data in development (placed just before the start: demoEventLines). */
export const DEFAULT_DEMO_EVENTS = DEMO_REFERENCE_EVENTS;
export const DEFAULT_DEV_DATA_DIR = '.data/pglite';
export const DEFAULT_DEV_DATABASE_PORT = 54329;
export const DEFAULT_CONTAINER_IMAGE = 'postgres:17';
export const DEFAULT_QUERY_TIMEOUT_MS = 5000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
export const DEFAULT_SCHEMA_CHECK_INTERVAL_MS = 30_000;

export interface DatabaseConfig {
  /** The configured server; null when development mode provides the database (devServices). */
  readonly connection: PostgresConnectionSettings | null;
  /** Which development database to start; null when a connection is configured. */
  readonly devServices: DevServices | null;
  /** Apply pending migrations at start: DATABASE_MIGRATE and SCHEMA_INIT_ENABLED both on. */
  readonly migrate: boolean;
  readonly schemaInitEnabled: boolean;
  readonly queryTimeoutMs: number;
  readonly connectTimeoutMs: number;
  /** Readiness is DOWN while the streaming replica read from is further behind; 0: not checked. */
  readonly maxReplicationLagSeconds: number;
}

export interface SchemaCheckConfig {
  /** How often a server whose schema matches checks it again (while it does not match, every readiness probe does). */
  readonly intervalMs: number;
}

export interface DevConfig {
  /** PGlite data directory (embedded dev services). */
  readonly dataDir: string;
  /** Loopback port of the embedded database; when taken, a free one (0: always a free one). */
  readonly databasePort: number;
  /** JSONL/CRI file loaded into an empty dev-services database; null: none. */
  readonly demoEvents: string | null;
  readonly containerImage: string;
}

export interface PostgresqlServerConfig {
  readonly core: CoreConfig;
  readonly database: DatabaseConfig;
  readonly schemaCheck: SchemaCheckConfig;
  readonly dev: DevConfig;
}

/** The flags of the server command line; each wins over its environment variable. */
export interface ServerFlags {
  readonly port?: string | undefined;
  readonly devServices?: string | undefined;
  readonly databaseUrl?: string | undefined;
  readonly help?: boolean | undefined;
}

export const POSTGRESQL_CONFIG_KEYS: readonly ConfigKeyDoc[] = Object.freeze([
  { key: 'DATABASE_URL (--database-url)', development: '— (embedded database)', production: 'required', description: 'postgres://user:password@host:port/db or jdbc:postgresql://host:port/db?…; QUARKUS_DATASOURCE_JDBC_URL is an alias.' },
  { key: 'DATABASE_USERNAME / DATABASE_PASSWORD', development: '—', production: '—', description: "Override the URL's credentials (aliases QUARKUS_DATASOURCE_USERNAME / QUARKUS_DATASOURCE_PASSWORD)." },
  { key: 'DATABASE_POOL_MIN / DATABASE_POOL_MAX', development: '5 / 20', production: '5 / 20', description: 'Connection pool bounds (the embedded database always uses one connection).' },
  { key: 'DATABASE_QUERY_TIMEOUT_MS', development: String(DEFAULT_QUERY_TIMEOUT_MS), production: String(DEFAULT_QUERY_TIMEOUT_MS), description: 'statement_timeout of every query: a query past it answers QUERY_TIMEOUT (a wait for a lock gives up after half of it: SERVICE_UNAVAILABLE).' },
  { key: 'DATABASE_CONNECT_TIMEOUT_MS', development: String(DEFAULT_CONNECT_TIMEOUT_MS), production: String(DEFAULT_CONNECT_TIMEOUT_MS), description: "Bound on opening a connection or waiting for a pooled one (default: the URL's connect_timeout, else 3000)." },
  { key: 'DATABASE_MAX_REPLICATION_LAG_SECONDS', development: '0', production: '0', description: 'When DATABASE_URL is a streaming replica: readiness is DOWN while its replay lag exceeds this many seconds (0: never; indexStatus.replicationLagSeconds and a metric report the lag either way).' },
  { key: 'DATABASE_MIGRATE', development: 'true', production: 'false', description: 'Apply pending schema migrations at start.' },
  { key: 'SCHEMA_CHECK_INTERVAL_MS', development: String(DEFAULT_SCHEMA_CHECK_INTERVAL_MS), production: String(DEFAULT_SCHEMA_CHECK_INTERVAL_MS), description: 'How often the server re-checks that the database has the schema version it needs (readiness is DOWN with the reason while it does not; then every probe re-checks).' },
  { key: 'SCHEMA_INIT_ENABLED', development: 'true', production: 'true', description: 'false disables schema initialization everywhere, whatever DATABASE_MIGRATE says.' },
  { key: 'DEV_SERVICES (--dev-services)', development: 'embedded', production: '—', description: 'Development database when DATABASE_URL is unset: embedded (PGlite, in-process) or container (postgres:17 via a Docker engine).' },
  { key: 'DEV_DATA_DIR', development: DEFAULT_DEV_DATA_DIR, production: '—', description: 'Where the embedded database keeps its files (kept across restarts; delete it to start over).' },
  { key: 'DEV_DATABASE_PORT', development: String(DEFAULT_DEV_DATABASE_PORT), production: '—', description: 'Loopback port of the embedded database (psql -h 127.0.0.1 -p 54329 -U postgres); when it is taken, a free port (printed); 0 always picks a free one.' },
  { key: 'DEV_DEMO_EVENTS', development: 'fixtures/quarkus-flow-events.jsonl', production: '—', description: 'Event log loaded into an empty development database; none disables.' },
  { key: 'DEV_CONTAINER_IMAGE', development: DEFAULT_CONTAINER_IMAGE, production: '—', description: 'Image of DEV_SERVICES=container.' },
] satisfies ConfigKeyDoc[]);

/** The server's command line (yargs); unknown flags are problems, not silently ignored. */
function flagParser(argv: readonly string[]) {
  return yargs([...argv])
    .scriptName('workflow-index-postgresql')
    .usage('$0 [options]\n\nWorkflow Index GraphQL server on PostgreSQL.\nEvery option also has an environment variable; docs/configuration.md lists all settings.')
    // yargs' own --help/--version would print and exit from inside the parser; main decides instead.
    .version(false)
    .help(false)
    .option('port', { type: 'string', describe: 'HTTP port (HTTP_PORT); 0 picks a free port' })
    .option('dev-services', { type: 'string', describe: 'development database when DATABASE_URL is unset: embedded | container (DEV_SERVICES)' })
    .option('database-url', { type: 'string', describe: 'PostgreSQL URL, postgres:// or jdbc:postgresql:// (DATABASE_URL)' })
    .option('help', { type: 'boolean', alias: 'h', describe: 'show this help' })
    // Flags are read by their spelled names only, so unknown ones are reported as written.
    .parserConfiguration({ 'camel-case-expansion': false, 'boolean-negation': false })
    .strict()
    .wrap(100)
    .exitProcess(false);
}

export function parseServerFlags(argv: readonly string[]): { readonly flags: ServerFlags; readonly problems: readonly string[] } {
  const problems: string[] = [];
  const parsed = flagParser(argv)
    .fail((message) => {
      problems.push(message);
    })
    .parseSync();
  const text = (value: unknown): string | undefined => (value === undefined || value === null ? undefined : String(value));
  return {
    flags: {
      port: text(parsed['port']),
      devServices: text(parsed['dev-services']),
      databaseUrl: text(parsed['database-url']),
      help: parsed['help'] === true,
    },
    problems,
  };
}

export function serverHelp(): Promise<string> {
  return flagParser([]).getHelp();
}

const hasValue = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

/** Throws ConfigError with every problem of core, connection and module keys. */
export function loadPostgresqlConfig(env: ConfigSource, flags: ServerFlags = {}, flagProblems: readonly string[] = []): PostgresqlServerConfig {
  const problems: string[] = [...flagProblems];
  let core: CoreConfig | undefined;
  try {
    core = loadCoreConfig(env, { HTTP_PORT: flags.port });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }

  const r = new ConfigReader(env, { DEV_SERVICES: flags.devServices });
  const mode = core?.mode ?? readMode(new ConfigReader(env));
  const dev = mode === 'development';

  const urlGiven = hasValue(flags.databaseUrl) || hasValue(env['DATABASE_URL']) || hasValue(env['QUARKUS_DATASOURCE_JDBC_URL']);
  const devServicesRequested = r.raw('DEV_SERVICES');
  const devServicesChoice = r.oneOf('DEV_SERVICES', DEV_SERVICES, 'embedded', { caseInsensitive: true });
  let connection: PostgresConnectionSettings | null = null;
  let devServices: DevServices | null = null;
  if (dev && !urlGiven) {
    devServices = devServicesChoice;
    if ((core?.http.processes ?? 1) > 1) r.problem('SERVER_PROCESSES above 1 needs DATABASE_URL: the development database belongs to one process');
  } else {
    const resolution = resolvePostgresConnection(env, { databaseUrl: flags.databaseUrl });
    problems.push(...resolution.problems);
    connection = resolution.settings;
    if (devServicesRequested !== undefined) {
      const source = flags.devServices !== undefined ? '--dev-services' : 'DEV_SERVICES';
      r.problem(dev ? `${source} is set but so is a database URL: unset one of them` : `${source} applies only in development (NODE_ENV=development)`);
    }
  }

  const schemaInitEnabled = r.bool('SCHEMA_INIT_ENABLED', true);
  const migrateWanted = r.bool('DATABASE_MIGRATE', dev);
  const queryTimeoutMs = r.int('DATABASE_QUERY_TIMEOUT_MS', DEFAULT_QUERY_TIMEOUT_MS, { min: 1, max: 3_600_000 });
  const connectTimeoutMs = r.int('DATABASE_CONNECT_TIMEOUT_MS', connection?.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, { min: 1, max: 600_000 });
  const maxReplicationLagSeconds = r.int('DATABASE_MAX_REPLICATION_LAG_SECONDS', 0, { min: 0, max: 604_800 });
  const schemaCheckIntervalMs = r.int('SCHEMA_CHECK_INTERVAL_MS', DEFAULT_SCHEMA_CHECK_INTERVAL_MS, { min: 100, max: 86_400_000 });
  const demo = r.string('DEV_DEMO_EVENTS', DEFAULT_DEMO_EVENTS);
  const devConfig: DevConfig = {
    dataDir: r.string('DEV_DATA_DIR', DEFAULT_DEV_DATA_DIR),
    databasePort: r.int('DEV_DATABASE_PORT', DEFAULT_DEV_DATABASE_PORT, { min: 0, max: 65_535 }),
    demoEvents: devServices !== null && demo.toLowerCase() !== 'none' ? demo : null,
    containerImage: r.string('DEV_CONTAINER_IMAGE', DEFAULT_CONTAINER_IMAGE),
  };
  problems.push(...r.problems);

  if (problems.length > 0 || core === undefined) throw new ConfigError(problems);
  return deepFreeze({
    core,
    database: {
      connection,
      devServices,
      migrate: migrateWanted && schemaInitEnabled,
      schemaInitEnabled,
      queryTimeoutMs,
      connectTimeoutMs,
      maxReplicationLagSeconds,
    },
    schemaCheck: { intervalMs: schemaCheckIntervalMs },
    dev: devConfig,
  });
}
