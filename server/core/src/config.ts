// Configuration of the backend-neutral server: read once (flags > env > defaults), validated all
// at once, frozen. Backends read their own keys with the same ConfigReader and report through
// collectConfig, so an operator sees every problem of core and backend in one message.
import { accessSync, constants as fsConstants } from 'node:fs';
import { AUTH_CONFIG_KEYS, loadAuthConfig } from './auth/auth-config.js';
import type { AuthConfig } from './auth/auth-config.js';

export type Mode = 'development' | 'production';
export type IntrospectionMode = 'DEFAULT' | 'NO_INTROSPECTION' | 'NO_INTROSPECTION_OR_QUERY';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type LogFormat = 'json' | 'pretty';

export interface CoreConfig {
  readonly mode: Mode;
  readonly http: {
    /** Listen address; null = all interfaces (IPv6 and IPv4). */
    readonly host: string | null;
    readonly port: number;
    readonly httpsPort: number;
    /** Both set or both null; HTTPS is served only when both are set. */
    readonly tlsCertFile: string | null;
    readonly tlsKeyFile: string | null;
    readonly compression: boolean;
    readonly maxBodyBytes: number;
    /** How long close() waits for in-flight requests before cutting connections. */
    readonly shutdownTimeoutMs: number;
    /** POST /graphql requests one client may have in flight (429 above); 0 = no bound. */
    readonly maxRequestsPerClient: number;
    /** Lower-case header naming the client address (its last entry), set by a trusted proxy; null = the socket address. */
    readonly clientAddressHeader: string | null;
    /** How long a request's line and headers may take to arrive, from its first byte (408 and closed after). */
    readonly headersTimeoutMs: number;
    /** How long a whole request, headers and body, may take to arrive, from its first byte (408 and closed after). */
    readonly bodyTimeoutMs: number;
    /** Processes serving the ports (processes/primary.ts): 1 serves from this process, more fork workers. */
    readonly processes: number;
  };
  readonly graphql: {
    readonly introspection: IntrospectionMode;
    readonly maxDepth: number;
    readonly maxAliases: number;
    readonly maxTokens: number;
    readonly maxDirectives: number;
    readonly defaultLimit: number;
    readonly maxLimit: number;
    /** Budget of potential rows per request (see query-cost.ts). */
    readonly maxCost: number;
    /** Server-wide budget of rows in flight (cost-budget.ts); 0 = no bound. At least maxCost otherwise. */
    readonly maxCostInFlight: number;
    /** How long a request may wait for room in maxCostInFlight before it is answered 503. */
    readonly costQueueTimeoutMs: number;
    /** What one instance's `taskExecutions` list (unbounded) counts in the cost. */
    readonly costTasksPerInstance: number;
    /** Deepest and/or/not nesting of a filter. */
    readonly maxFilterDepth: number;
    /** Most conditions of one filter (each operator of a field, each JSON pair, each not): filter-translation.ts. */
    readonly maxFilterConditions: number;
    /** Most values of one `in` list of a filter. */
    readonly maxFilterInValues: number;
    /** Reader calls one request may have in flight at a time (the others wait their turn). */
    readonly maxConcurrentReads: number;
    /** Counts are exact up to this many matching rows and estimated above (COUNT_EXACT_LIMIT). */
    readonly countExactLimit: number;
    /** Hot operations with only scalar/enum variables run compiled by graphql-jit (compiled-execution.ts). */
    readonly compiledExecution: boolean;
    /** Rows per backend read of GET /export/workflow-instances (at most maxLimit: one page is one list page). */
    readonly exportPageSize: number;
    /** Subscription streams open at a time on the server, and from one client (live/subscription-slots.ts). */
    readonly maxSubscriptions: number;
    readonly maxSubscriptionsPerClient: number;
    /** How often an idle event stream sends a comment line (at most 15 s). */
    readonly subscriptionHeartbeatMs: number;
  };
  readonly cors: {
    readonly enabled: boolean;
    /** Exact origins (scheme://host[:port]); `*` allows any origin without echoing it. */
    readonly origins: readonly string[];
  };
  readonly log: { readonly level: LogLevel; readonly format: LogFormat };
  readonly health: {
    readonly backendTimeoutMs: number;
    readonly diskPath: string;
    /** 0 disables the disk space check. */
    readonly diskMinFreeBytes: number;
  };
  readonly metrics: {
    /** Upper bound for collecting backend statistics during a scrape. */
    readonly backendTimeoutMs: number;
  };
  /** Sign-in and access rules (auth/auth-config.ts). */
  readonly auth: AuthConfig;
  readonly console: {
    /** Serve the web console at / and /q/console (also off when GRAPHQL_INTROSPECTION is NO_INTROSPECTION_OR_QUERY). */
    readonly enabled: boolean;
  };
}

/** Every problem found while reading configuration, reported together. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.problems = Object.freeze([...problems]);
  }

  static combine(errors: readonly ConfigError[]): ConfigError {
    return new ConfigError(errors.flatMap((e) => e.problems));
  }
}

/**
 * Runs every loader, collects the problems of all of them and throws one ConfigError listing them
 * all; otherwise returns each loader's result under its name.
 * `collectConfig({ core: () => loadCoreConfig(env), database: () => loadDatabaseConfig(env) })`
 */
export function collectConfig<T extends Record<string, () => unknown>>(loaders: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const errors: ConfigError[] = [];
  const results: Record<string, unknown> = {};
  for (const [name, load] of Object.entries(loaders)) {
    try {
      results[name] = load();
    } catch (error) {
      if (error instanceof ConfigError) errors.push(error);
      else throw error;
    }
  }
  if (errors.length > 0) throw ConfigError.combine(errors);
  return Object.freeze(results) as { readonly [K in keyof T]: ReturnType<T[K]> };
}

export type ConfigSource = Readonly<Record<string, string | undefined>>;

/**
 * Reads keys from overrides (command-line flags) before the environment; an empty string counts
 * as unset. Parse methods record a problem and return the default instead of throwing, so all
 * problems can be reported at once (finish()).
 */
export class ConfigReader {
  private readonly found: string[] = [];

  constructor(
    private readonly env: ConfigSource,
    private readonly overrides: ConfigSource = {},
  ) {}

  get problems(): readonly string[] {
    return this.found;
  }

  problem(message: string): void {
    this.found.push(message);
  }

  raw(key: string): string | undefined {
    const value = this.overrides[key] ?? this.env[key];
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }

  string(key: string, fallback: string): string;
  string(key: string, fallback: null): string | null;
  string(key: string, fallback: string | null): string | null {
    return this.raw(key) ?? fallback;
  }

  int(key: string, fallback: number, bounds: { min: number; max: number }): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const parsed = /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < bounds.min || parsed > bounds.max) {
      this.problem(`${key} must be an integer between ${bounds.min} and ${bounds.max}, got ${JSON.stringify(value)}`);
      return fallback;
    }
    return parsed;
  }

  bool(key: string, fallback: boolean): boolean {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const lower = value.toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(lower)) return true;
    if (['false', '0', 'no', 'off'].includes(lower)) return false;
    this.problem(`${key} must be true or false, got ${JSON.stringify(value)}`);
    return fallback;
  }

  oneOf<V extends string>(key: string, allowed: readonly V[], fallback: V, options: { caseInsensitive?: boolean } = {}): V {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    const match = allowed.find((a) => (options.caseInsensitive === true ? a.toLowerCase() === value.toLowerCase() : a === value));
    if (match === undefined) {
      this.problem(`${key} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
      return fallback;
    }
    return match;
  }

  list(key: string, fallback: readonly string[]): readonly string[] {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    return value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  }

  /** Throws a ConfigError listing every recorded problem; otherwise returns the value deep-frozen. */
  finish<T extends object>(value: T): T {
    if (this.found.length > 0) throw new ConfigError(this.found);
    return deepFreeze(value);
  }
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Documentation of every key this module reads (rendered in /docs and in docs/configuration.md by `npm run docs:config`). */
export interface ConfigKeyDoc {
  readonly key: string;
  readonly development: string;
  readonly production: string;
  readonly description: string;
}

const MiB = 1024 * 1024;

export const CORE_CONFIG_KEYS: readonly ConfigKeyDoc[] = Object.freeze([
  { key: 'NODE_ENV', development: 'development', production: 'production', description: 'Mode: development or production (test counts as production).' },
  { key: 'HTTP_HOST', development: '127.0.0.1', production: 'all interfaces', description: 'Listen address of the HTTP and HTTPS servers (development mode stays on the loopback unless told otherwise).' },
  { key: 'HTTP_PORT', development: '8080', production: '8080', description: 'HTTP port (0 picks a free port).' },
  { key: 'HTTPS_PORT', development: '8443', production: '8443', description: 'HTTPS port; HTTPS is served only when TLS_CERT_FILE and TLS_KEY_FILE are set.' },
  { key: 'TLS_CERT_FILE / TLS_KEY_FILE', development: '—', production: '—', description: 'PEM certificate (chain) and private key; both or neither.' },
  { key: 'HTTP_COMPRESSION', development: 'true', production: 'true', description: 'gzip/br response compression, negotiated by Accept-Encoding, for responses of 1 KiB or more.' },
  { key: 'HTTP_MAX_BODY_BYTES', development: '1048576', production: '1048576', description: 'Largest accepted request body (413 above).' },
  { key: 'SERVER_PROCESSES', development: '1', production: '1', description: 'Processes serving the HTTP and HTTPS ports (node:cluster): above 1, a primary forks that many workers, each a whole server with every setting here (pool, limits and budgets are per process); /q/metrics sums them. Match it to the CPUs the pod may use (docs/deployment.md).' },
  { key: 'HTTP_SHUTDOWN_TIMEOUT_MS', development: '10000', production: '10000', description: 'On SIGTERM, how long in-flight requests may take before connections are closed.' },
  { key: 'GRAPHQL_INTROSPECTION', development: 'DEFAULT', production: 'DEFAULT', description: 'DEFAULT, NO_INTROSPECTION (__schema/__type rejected) or NO_INTROSPECTION_OR_QUERY (also no SDL endpoint, UI or /docs).' },
  { key: 'GRAPHQL_MAX_DEPTH', development: '15', production: '15', description: 'Deepest accepted selection nesting (MAX_DEPTH_EXCEEDED above).' },
  { key: 'GRAPHQL_MAX_ALIASES', development: '30', production: '30', description: 'Most aliases in one operation (MAX_ALIASES_EXCEEDED above).' },
  { key: 'GRAPHQL_MAX_TOKENS', development: '5000', production: '5000', description: 'Most lexical tokens in one document (MAX_TOKENS_EXCEEDED above).' },
  { key: 'GRAPHQL_MAX_DIRECTIVES', development: '50', production: '50', description: 'Most directives in one operation (MAX_DIRECTIVES_EXCEEDED above).' },
  { key: 'GRAPHQL_DEFAULT_LIMIT', development: '100', production: '100', description: 'Page size when a query gives no limit.' },
  { key: 'GRAPHQL_MAX_LIMIT', development: '1000', production: '1000', description: 'Largest accepted limit.' },
  { key: 'GRAPHQL_MAX_COST', development: '20000', production: '20000', description: 'Most rows one request may read: the sum of the limits of its lists, nested taskExecutions counted per instance of their list, 1 per 10 rows an offset skips, and the backend\'s work priced in rows (each field\'s statement and its filter\'s values, patterns, JSON tests and nested filters: docs/query-cost.md); BAD_USER_INPUT above, before any read. At least GRAPHQL_MAX_LIMIT plus a statement\'s price (25 on PostgreSQL, 60 on OpenSearch).' },
  { key: 'GRAPHQL_MAX_COST_IN_FLIGHT', development: '1.5 × GRAPHQL_MAX_COST', production: '1.5 × GRAPHQL_MAX_COST', description: 'Server-wide budget of rows in flight: a request holds its cost from before execution until its response is written; requests that do not fit wait and are admitted cheapest first (oldest first among equal costs), so a cheap page never waits behind heavy requests. The default runs one request at the maximum cost at a time and leaves half of it to the others. At least GRAPHQL_MAX_COST; 0 disables.' },
  { key: 'GRAPHQL_COST_QUEUE_TIMEOUT_MS', development: '10000', production: '10000', description: 'Longest wait for room in GRAPHQL_MAX_COST_IN_FLIGHT; then SERVICE_UNAVAILABLE (HTTP 503, Retry-After: 1) without running the request.' },
  { key: 'GRAPHQL_COST_TASKS_PER_INSTANCE', development: '10', production: '10', description: 'What one instance\'s taskExecutions (or one getTaskExecutionsByWorkflowInstance) counts in the cost.' },
  { key: 'GRAPHQL_MAX_FILTER_DEPTH', development: '32', production: '32', description: 'Deepest and/or/not nesting of a filter (BAD_USER_INPUT above).' },
  { key: 'GRAPHQL_MAX_FILTER_CONDITIONS', development: '100', production: '100', description: 'Most conditions in one filter argument: each operator of a field (eq, in, like, …), each JSON {key, value} pair and each not counts one (BAD_USER_INPUT above). Above about 150 an OpenSearch backend may refuse a filter of costly conditions (JSON ne, not) with BAD_USER_INPUT while PostgreSQL answers it.' },
  { key: 'GRAPHQL_MAX_FILTER_IN_VALUES', development: '10000', production: '10000', description: 'Most values in one in list of a filter, a JSON in pair\'s values included (BAD_USER_INPUT above).' },
  { key: 'COUNT_EXACT_LIMIT', development: '10000', production: '10000', description: 'Counts (countWorkflowInstances, countTaskExecutions, workflowInstanceStatusCounts, the instances-by-status gauge) are exact up to this many matches and the backend\'s estimate above (exact: false); a count costs COUNT_EXACT_LIMIT/100 rows of GRAPHQL_MAX_COST.' },
  { key: 'GRAPHQL_COMPILED_EXECUTION', development: 'true', production: 'true', description: 'Queries whose variables are all scalars or enums and that select at most 32 fields run compiled (graphql-jit) from their second execution on (at most 64 at a time; documents that differ only in the values written into their arguments share one): the same answers, about a fifth less server CPU for a page of runs; once one has answered without errors, later plain-JSON requests for it are answered without graphql-yoga\'s request pipeline (the same answers and checks). false runs every operation on graphql-js through graphql-yoga.' },
  { key: 'EXPORT_PAGE_SIZE', development: '500', production: '500', description: 'Rows per backend read of GET /export/workflow-instances; the export holds one page at a time and counts one page against GRAPHQL_MAX_COST. At most GRAPHQL_MAX_LIMIT (then the default is GRAPHQL_MAX_LIMIT).' },
  { key: 'GRAPHQL_MAX_SUBSCRIPTIONS', development: '1000', production: '1000', description: 'Subscription streams (POST /graphql with Accept: text/event-stream) open at a time on this server; beyond it TOO_MANY_SUBSCRIPTIONS (HTTP 429); 0 refuses every subscription. A stream holds no slot of HTTP_MAX_REQUESTS_PER_CLIENT and no part of GRAPHQL_MAX_COST_IN_FLIGHT once it is set up.' },
  { key: 'GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT', development: '16', production: '16', description: 'Subscription streams one client address (as HTTP_MAX_REQUESTS_PER_CLIENT counts it) may have open; beyond it TOO_MANY_SUBSCRIPTIONS (HTTP 429); 0 disables.' },
  { key: 'GRAPHQL_SUBSCRIPTION_HEARTBEAT_MS', development: '10000', production: '10000', description: 'How often an event stream sends a comment line (`:`) so proxies and clients keep it open; 100 to 15000.' },
  { key: 'GRAPHQL_MAX_CONCURRENT_READS', development: '4', production: '4', description: 'Backend reads one request may have in flight at a time; further reads of the request wait.' },
  { key: 'HTTP_MAX_REQUESTS_PER_CLIENT', development: '8', production: '8', description: 'POST /graphql requests one client address may have in flight (429 TOO_MANY_REQUESTS above); 0 disables.' },
  { key: 'HTTP_CLIENT_ADDRESS_HEADER', development: '—', production: '—', description: 'Header a trusted proxy sets to the client address (e.g. X-Forwarded-For, last entry used); unset: the socket address.' },
  { key: 'HTTP_HEADERS_TIMEOUT_MS', development: '5000 (at most HTTP_BODY_TIMEOUT_MS)', production: '5000 (at most HTTP_BODY_TIMEOUT_MS)', description: 'How long a request line and its headers may take to arrive, from their first byte (or from the connection when nothing was sent): then HTTP 408 REQUEST_TIMEOUT and the connection is closed. At most HTTP_BODY_TIMEOUT_MS.' },
  { key: 'HTTP_BODY_TIMEOUT_MS', development: '10000', production: '10000', description: 'How long a whole request, headers and body, may take to arrive, from its first byte: then HTTP 408 REQUEST_TIMEOUT and the connection is closed, within about a second. A 1 MiB body needs about 0.84 Mbit/s to arrive in 10 s; behind a proxy that buffers bodies it arrives at once. A body framed by Content-Length holds none of HTTP_MAX_REQUESTS_PER_CLIENT while it arrives; a chunked one holds a slot for at most this long.' },
  { key: 'CORS_ENABLED', development: 'true', production: 'false', description: 'Answer cross-origin requests from CORS_ORIGINS.' },
  { key: 'CORS_ORIGINS', development: 'http://localhost:3000', production: '—', description: 'Comma-separated exact origins (scheme://host[:port]); * allows any origin.' },
  { key: 'LOG_LEVEL', development: 'info', production: 'info', description: 'fatal, error, warn, info, debug, trace or silent.' },
  { key: 'LOG_FORMAT', development: 'pretty', production: 'json', description: 'json (one object per line) or pretty.' },
  { key: 'HEALTH_BACKEND_TIMEOUT_MS', development: '1000', production: '1000', description: 'Readiness: how long the backend may take to answer a ping.' },
  { key: 'HEALTH_DISK_PATH', development: '/', production: '/', description: 'Readiness: file system whose free space is checked.' },
  { key: 'HEALTH_DISK_MIN_FREE_BYTES', development: '52428800', production: '52428800', description: 'Readiness: DOWN below this many free bytes; 0 disables the check.' },
  { key: 'CONSOLE_ENABLED', development: 'true', production: 'true', description: 'Serve the web console at / and /q/console (off as well when GRAPHQL_INTROSPECTION is NO_INTROSPECTION_OR_QUERY).' },
  ...AUTH_CONFIG_KEYS,
  { key: 'METRICS_BACKEND_TIMEOUT_MS', development: '2000', production: '2000', description: 'Scrape: how long collecting ingestion statistics may take (the gauges keep their last values after a timeout).' },
] satisfies ConfigKeyDoc[]);

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const INTROSPECTION_MODES: readonly IntrospectionMode[] = ['DEFAULT', 'NO_INTROSPECTION', 'NO_INTROSPECTION_OR_QUERY'];
const PORT = { min: 0, max: 65535 };
const TIMEOUT_MS = { min: 100, max: 600_000 };

export type CoreConfigOverrides = Readonly<Record<string, string | undefined>>;

/** Reads NODE_ENV the same way loadCoreConfig does; backends use it to pick their own mode defaults. */
export function readMode(reader: ConfigReader): Mode {
  const value = reader.raw('NODE_ENV');
  if (value === undefined) return 'production';
  const lower = value.toLowerCase();
  if (lower === 'development') return 'development';
  if (lower === 'production' || lower === 'test') return 'production';
  reader.problem(`NODE_ENV must be development or production, got ${JSON.stringify(value)}`);
  return 'production';
}

export function loadCoreConfig(env: ConfigSource, overrides: CoreConfigOverrides = {}): CoreConfig {
  const r = new ConfigReader(env, overrides);
  const mode = readMode(r);
  const dev = mode === 'development';

  const tlsCertFile = r.string('TLS_CERT_FILE', null);
  const tlsKeyFile = r.string('TLS_KEY_FILE', null);
  if ((tlsCertFile === null) !== (tlsKeyFile === null)) {
    r.problem(tlsCertFile === null ? 'TLS_KEY_FILE is set but TLS_CERT_FILE is not' : 'TLS_CERT_FILE is set but TLS_KEY_FILE is not');
  }
  for (const [key, file] of [['TLS_CERT_FILE', tlsCertFile], ['TLS_KEY_FILE', tlsKeyFile]] as const) {
    if (file !== null && !isReadable(file)) r.problem(`${key} ${JSON.stringify(file)} is not a readable file`);
  }

  const defaultLimit = r.int('GRAPHQL_DEFAULT_LIMIT', 100, { min: 1, max: 1_000_000 });
  const maxLimit = r.int('GRAPHQL_MAX_LIMIT', 1000, { min: 1, max: 1_000_000 });
  if (defaultLimit > maxLimit) r.problem(`GRAPHQL_DEFAULT_LIMIT (${defaultLimit}) must not exceed GRAPHQL_MAX_LIMIT (${maxLimit})`);
  const maxCost = r.int('GRAPHQL_MAX_COST', 20_000, { min: 1, max: 1_000_000_000 });
  // Below it, a list at the maximum limit could never run.
  if (maxCost < maxLimit) r.problem(`GRAPHQL_MAX_COST (${maxCost}) must be at least GRAPHQL_MAX_LIMIT (${maxLimit})`);
  // One request at the maximum cost at a time (its rows and response are what the memory peaks with),
  // and half of it left for everyone else's requests meanwhile.
  const maxCostInFlight = r.int('GRAPHQL_MAX_COST_IN_FLIGHT', maxCost + Math.floor(maxCost / 2), { min: 0, max: 1_000_000_000 });
  // Below it, a request at the maximum cost could never be admitted.
  if (maxCostInFlight !== 0 && maxCostInFlight < maxCost) {
    r.problem(`GRAPHQL_MAX_COST_IN_FLIGHT (${maxCostInFlight}) must be at least GRAPHQL_MAX_COST (${maxCost}), or 0 to disable the budget`);
  }

  const corsEnabled = r.bool('CORS_ENABLED', dev);
  const corsOrigins = r.list('CORS_ORIGINS', dev ? ['http://localhost:3000'] : []);
  for (const origin of corsOrigins) {
    if (origin !== '*' && !isOrigin(origin)) {
      r.problem(`CORS_ORIGINS entries must be origins like https://app.example.com or http://localhost:3000 (scheme, host, optional port, no path) or *, got ${JSON.stringify(origin)}`);
    }
  }
  if (corsEnabled && corsOrigins.length === 0) r.problem('CORS_ENABLED is true but CORS_ORIGINS is empty');

  const config: CoreConfig = {
    mode,
    http: {
      host: dev ? r.string('HTTP_HOST', '127.0.0.1') : r.string('HTTP_HOST', null),
      port: r.int('HTTP_PORT', 8080, PORT),
      httpsPort: r.int('HTTPS_PORT', 8443, PORT),
      tlsCertFile,
      tlsKeyFile,
      compression: r.bool('HTTP_COMPRESSION', true),
      maxBodyBytes: r.int('HTTP_MAX_BODY_BYTES', MiB, { min: 1024, max: 1024 * MiB }),
      shutdownTimeoutMs: r.int('HTTP_SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0, max: 3_600_000 }),
      maxRequestsPerClient: r.int('HTTP_MAX_REQUESTS_PER_CLIENT', 8, { min: 0, max: 1_000_000 }),
      clientAddressHeader: clientAddressHeader(r),
      ...requestTimeouts(r),
      processes: r.int('SERVER_PROCESSES', 1, { min: 1, max: 64 }),
    },
    graphql: {
      introspection: r.oneOf('GRAPHQL_INTROSPECTION', INTROSPECTION_MODES, 'DEFAULT', { caseInsensitive: true }),
      maxDepth: r.int('GRAPHQL_MAX_DEPTH', 15, { min: 1, max: 1000 }),
      maxAliases: r.int('GRAPHQL_MAX_ALIASES', 30, { min: 0, max: 100_000 }),
      maxTokens: r.int('GRAPHQL_MAX_TOKENS', 5000, { min: 1, max: 10_000_000 }),
      maxDirectives: r.int('GRAPHQL_MAX_DIRECTIVES', 50, { min: 0, max: 100_000 }),
      defaultLimit,
      maxLimit,
      maxCost,
      maxCostInFlight,
      costQueueTimeoutMs: r.int('GRAPHQL_COST_QUEUE_TIMEOUT_MS', 10_000, { min: 1, max: 600_000 }),
      costTasksPerInstance: r.int('GRAPHQL_COST_TASKS_PER_INSTANCE', 10, { min: 0, max: 1_000_000 }),
      // Deeper trees would recurse in graphql-js coercion and in the backends' translators.
      maxFilterDepth: r.int('GRAPHQL_MAX_FILTER_DEPTH', 32, { min: 1, max: 200 }),
      // Every condition binds a few PostgreSQL parameters (65,535 at most per statement) and is a few OpenSearch clauses.
      maxFilterConditions: r.int('GRAPHQL_MAX_FILTER_CONDITIONS', 100, { min: 1, max: 5000 }),
      // OpenSearch's terms query holds at most 65,536 values; a JSON in value becomes up to 2 of them (text and number or boolean).
      maxFilterInValues: r.int('GRAPHQL_MAX_FILTER_IN_VALUES', 10_000, { min: 1, max: 20_000 }),
      maxConcurrentReads: r.int('GRAPHQL_MAX_CONCURRENT_READS', 4, { min: 1, max: 1000 }),
      countExactLimit: r.int('COUNT_EXACT_LIMIT', 10_000, { min: 0, max: 100_000_000 }),
      compiledExecution: r.bool('GRAPHQL_COMPILED_EXECUTION', true),
      exportPageSize: exportPageSize(r, maxLimit),
      maxSubscriptions: r.int('GRAPHQL_MAX_SUBSCRIPTIONS', 1000, { min: 0, max: 1_000_000 }),
      maxSubscriptionsPerClient: r.int('GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT', 16, { min: 0, max: 1_000_000 }),
      // The contract's heartbeat is at least every 15 s.
      subscriptionHeartbeatMs: r.int('GRAPHQL_SUBSCRIPTION_HEARTBEAT_MS', 10_000, { min: 100, max: 15_000 }),
    },
    cors: { enabled: corsEnabled, origins: corsOrigins },
    log: {
      level: r.oneOf('LOG_LEVEL', LOG_LEVELS, 'info', { caseInsensitive: true }),
      format: r.oneOf('LOG_FORMAT', ['json', 'pretty'] as const, dev ? 'pretty' : 'json', { caseInsensitive: true }),
    },
    health: {
      backendTimeoutMs: r.int('HEALTH_BACKEND_TIMEOUT_MS', 1000, { min: 1, max: 600_000 }),
      diskPath: r.string('HEALTH_DISK_PATH', '/'),
      diskMinFreeBytes: r.int('HEALTH_DISK_MIN_FREE_BYTES', 50 * MiB, { min: 0, max: Number.MAX_SAFE_INTEGER }),
    },
    metrics: {
      backendTimeoutMs: r.int('METRICS_BACKEND_TIMEOUT_MS', 2000, { min: 1, max: 600_000 }),
    },
    auth: loadAuthConfig(r),
    console: { enabled: r.bool('CONSOLE_ENABLED', true) },
  };
  return r.finish(config);
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function clientAddressHeader(r: ConfigReader): string | null {
  const value = r.string('HTTP_CLIENT_ADDRESS_HEADER', null);
  if (value === null) return null;
  if (!HEADER_NAME.test(value)) {
    r.problem(`HTTP_CLIENT_ADDRESS_HEADER must be an HTTP header name such as X-Forwarded-For, got ${JSON.stringify(value)}`);
    return null;
  }
  return value.toLowerCase();
}

/**
 * A request must arrive within seconds: a client that trickles its headers or body would otherwise hold a
 * connection (and, for a body yoga reads, a slot of HTTP_MAX_REQUESTS_PER_CLIENT) for minutes.
 */
function requestTimeouts(r: ConfigReader): { headersTimeoutMs: number; bodyTimeoutMs: number } {
  const bodyTimeoutMs = r.int('HTTP_BODY_TIMEOUT_MS', 10_000, TIMEOUT_MS);
  const headersTimeoutMs = r.int('HTTP_HEADERS_TIMEOUT_MS', Math.min(5000, bodyTimeoutMs), TIMEOUT_MS);
  // node:http would silently swap them.
  if (headersTimeoutMs > bodyTimeoutMs) r.problem(`HTTP_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed HTTP_BODY_TIMEOUT_MS (${bodyTimeoutMs})`);
  return { headersTimeoutMs, bodyTimeoutMs };
}

/** The defaults of a mode, as if no key were set (tests start from here). */
/** EXPORT_PAGE_SIZE: an export's page is a list page, so it reads at most what GRAPHQL_MAX_LIMIT lets a list read. */
function exportPageSize(r: ConfigReader, maxLimit: number): number {
  const size = r.int('EXPORT_PAGE_SIZE', Math.min(500, maxLimit), { min: 1, max: 1_000_000 });
  if (size > maxLimit) r.problem(`EXPORT_PAGE_SIZE (${size}) must not exceed GRAPHQL_MAX_LIMIT (${maxLimit}): one page of an export is one list page`);
  return size;
}

export function defaultCoreConfig(mode: Mode): CoreConfig {
  return loadCoreConfig({ NODE_ENV: mode });
}

function isReadable(file: string): boolean {
  try {
    accessSync(file, fsConstants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function isOrigin(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
}
