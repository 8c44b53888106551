// Configuration of the OpenSearch server deployable: the core keys (HTTP, GraphQL, CORS, logging…), the connection of
// CONTRACT §4 (opensearch-connection-settings.ts) and this module's own keys. Flags > env > defaults; every problem
// of every part is reported in one ConfigError before anything connects; the result is frozen.
import { accessSync, constants as fsConstants } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, ConfigReader, deepFreeze, loadCoreConfig, readMode } from '@workflow-index/core';
import type { ConfigKeyDoc, ConfigSource, CoreConfig } from '@workflow-index/core';
import { type OpenSearchConnectionSettings, openSearchConnectionSettings } from './opensearch-connection-settings.js';

export const DEFAULT_OPENSEARCH_QUERY_TIMEOUT_MS = 10_000;

export interface OpenSearchBackendConfig {
  readonly connection: OpenSearchConnectionSettings;
  /** Timeout of each search the reader sends; a timed-out query answers SERVICE_UNAVAILABLE. */
  readonly queryTimeoutMs: number;
  /** Create the raw templates, pipeline and normalized indices at start (OPENSEARCH_SCHEMA_INIT, SCHEMA_INIT_ENABLED). */
  readonly schemaInit: boolean;
  /** Prefix of every index name: tests and benchmarks on a shared node only (WI_OPENSEARCH_INDEX_PREFIX). */
  readonly indexPrefix: string;
}

export interface OpenSearchServerConfig {
  readonly core: CoreConfig;
  readonly opensearch: OpenSearchBackendConfig;
}

export interface OpenSearchServerFlags {
  readonly port?: string | undefined;
  readonly help?: boolean | undefined;
}

export const OPENSEARCH_CONFIG_KEYS: readonly ConfigKeyDoc[] = Object.freeze([
  { key: 'OPENSEARCH_HOST', development: 'required', production: 'required', description: 'Host name of the OpenSearch cluster (a Service), or several nodes of it separated by commas, each host or host:port; a request whose connection to one fails is sent to the next. Fluent Bit takes one host, so keep one in the ConfigMap it shares (docs/opensearch.md, A cluster of several nodes).' },
  { key: 'OPENSEARCH_PORT / OPENSEARCH_PROTOCOL', development: '9200 / http', production: '9200 / http', description: 'https needs a certificate the CA bundle (OPENSEARCH_CA_FILE) or the system trusts.' },
  { key: 'OPENSEARCH_USERNAME / OPENSEARCH_PASSWORD', development: '—', production: '—', description: 'Basic authentication; the user only needs to read the normalized indices (role workflow_index_server, docs/deployment.md, OpenSearch users and roles).' },
  { key: 'OPENSEARCH_CA_FILE', development: '—', production: '—', description: 'CA bundle (PEM) for https.' },
  { key: 'OPENSEARCH_QUERY_TIMEOUT_MS', development: String(DEFAULT_OPENSEARCH_QUERY_TIMEOUT_MS), production: String(DEFAULT_OPENSEARCH_QUERY_TIMEOUT_MS), description: 'Timeout of each search, and of a filter\'s checks of stored text in all (their several searches); the node stops a search at it and a timed-out query answers QUERY_TIMEOUT (a node that does not answer within it and a second more: SERVICE_UNAVAILABLE).' },
  { key: 'OPENSEARCH_SCHEMA_INIT', development: 'true', production: 'false', description: 'Create the raw templates, ingest pipeline and normalized indices at start (the init job does it in production).' },
  { key: 'SCHEMA_INIT_ENABLED', development: 'true', production: 'true', description: 'false disables schema initialization everywhere, whatever OPENSEARCH_SCHEMA_INIT says.' },
] satisfies ConfigKeyDoc[]);

export function parseOpenSearchServerFlags(argv: readonly string[]): { readonly flags: OpenSearchServerFlags; readonly problems: readonly string[] } {
  try {
    const { values } = parseArgs({ args: [...argv], options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: false });
    return { flags: { port: values.port, help: values.help === true }, problems: [] };
  } catch (error) {
    return { flags: {}, problems: [(error as Error).message] };
  }
}

export function openSearchServerHelp(): string {
  return [
    'Usage: workflow-index-opensearch [--port <n>] [--help]',
    '',
    'Workflow Index GraphQL server on OpenSearch (reads the normalized indices workflow-instances and task-executions).',
    'Every setting comes from the environment; docs/configuration.md lists them all. This module\'s own:',
    ...OPENSEARCH_CONFIG_KEYS.map((k) => `  ${k.key.padEnd(42)} ${k.description}`),
    '',
    '  --port <n>   HTTP port (HTTP_PORT); 0 picks a free port',
  ].join('\n');
}

/** Throws ConfigError with every problem of core, connection and module keys. */
export function loadOpenSearchServerConfig(env: ConfigSource, flags: OpenSearchServerFlags = {}, flagProblems: readonly string[] = []): OpenSearchServerConfig {
  const problems: string[] = [...flagProblems];
  let core: CoreConfig | undefined;
  try {
    core = loadCoreConfig(env, { HTTP_PORT: flags.port });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const r = new ConfigReader(env);
  const dev = (core?.mode ?? readMode(new ConfigReader(env))) === 'development';
  const resolution = openSearchConnectionSettings(env);
  problems.push(...resolution.problems);
  if (resolution.settings?.caFile !== undefined) {
    try {
      accessSync(resolution.settings.caFile, fsConstants.R_OK);
    } catch {
      problems.push(`OPENSEARCH_CA_FILE ${JSON.stringify(resolution.settings.caFile)} cannot be read`);
    }
  }
  const queryTimeoutMs = r.int('OPENSEARCH_QUERY_TIMEOUT_MS', DEFAULT_OPENSEARCH_QUERY_TIMEOUT_MS, { min: 1, max: 3_600_000 });
  const schemaInitEnabled = r.bool('SCHEMA_INIT_ENABLED', true);
  const schemaInit = r.bool('OPENSEARCH_SCHEMA_INIT', dev) && schemaInitEnabled;
  const indexPrefix = r.string('WI_OPENSEARCH_INDEX_PREFIX', '');
  if (indexPrefix !== indexPrefix.toLowerCase()) r.problem('WI_OPENSEARCH_INDEX_PREFIX must be lower case (OpenSearch index names are)');
  problems.push(...r.problems);
  if (problems.length > 0 || core === undefined || resolution.settings === null) throw new ConfigError(problems);
  return deepFreeze({ core, opensearch: { connection: resolution.settings, queryTimeoutMs, schemaInit, indexPrefix } });
}
