// Connection settings for PostgreSQL, shared by the server and the init job, so both accept exactly the same
// configuration: a libpq-style URL or the JDBC URL an existing Java Data Index deployment already has, the
// Quarkus variable names as aliases, and credentials that override the URL's. Every problem is collected so an
// operator fixes the configuration in one round, and no message ever contains a password.
import { accessSync, constants, readFileSync } from 'node:fs';
import type { PoolConfig } from 'pg';

export type PostgresSslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

export const SUPPORTED_SSL_MODES: readonly PostgresSslMode[] = ['disable', 'require', 'verify-ca', 'verify-full'];
export const DEFAULT_POOL_MIN = 5;
export const DEFAULT_POOL_MAX = 20;
export const DEFAULT_POSTGRES_PORT = 5432;

export interface PostgresConnectionSettings {
  readonly host: string;
  readonly port: number;
  /** Absent: the server's default (the user name), as with libpq. */
  readonly database: string | undefined;
  readonly user: string | undefined;
  /** Non-enumerable, so logging or serializing the settings object does not reveal it. */
  readonly password: string | undefined;
  readonly sslMode: PostgresSslMode;
  /** CA bundle for verify-ca / verify-full (`sslrootcert`); absent: Node's built-in CAs. */
  readonly sslRootCertFile: string | undefined;
  /** From JDBC `currentSchema`; applied as the session's search_path. */
  readonly searchPath: string | undefined;
  /** libpq `options` (e.g. `-c statement_timeout=5000`), passed to the server at connect. */
  readonly serverOptions: string | undefined;
  readonly applicationName: string | undefined;
  readonly connectTimeoutMs: number | undefined;
  readonly poolMin: number;
  readonly poolMax: number;
  /** Which variable or flag the URL came from, e.g. `DATABASE_URL` or `QUARKUS_DATASOURCE_JDBC_URL`. */
  readonly source: string;
  /** `postgres://user:***@host:port/db?sslmode=…`: safe to log. */
  readonly redactedUrl: string;
}

/** Command-line values; each wins over its environment variable. */
export interface PostgresConnectionFlags {
  readonly databaseUrl?: string | undefined;
  readonly databaseUsername?: string | undefined;
  readonly databasePassword?: string | undefined;
  readonly poolMin?: string | number | undefined;
  readonly poolMax?: string | number | undefined;
}

export interface PostgresConnectionResolution {
  /** Null exactly when `problems` is not empty. */
  readonly settings: PostgresConnectionSettings | null;
  readonly problems: readonly string[];
}

export type Environment = Readonly<Record<string, string | undefined>>;

interface Sourced {
  readonly value: string;
  readonly name: string;
}

/** First non-blank candidate; blank values count as unset because optional Secret keys often arrive as "". */
function pick(...candidates: ReadonlyArray<readonly [string | number | undefined, string]>): Sourced | undefined {
  for (const [value, name] of candidates) {
    if (value === undefined) continue;
    const text = String(value);
    if (text.trim() !== '') return { value: text, name };
  }
  return undefined;
}

interface ParsedUrl {
  readonly kind: 'postgres' | 'jdbc';
  readonly host: string;
  readonly port: number;
  readonly database: string | undefined;
  readonly user: string | undefined;
  readonly password: string | undefined;
  readonly params: ReadonlyMap<string, string>;
}

/**
 * Resolves the connection from the environment (and optional flags). Precedence: flags, then `DATABASE_*`,
 * then the `QUARKUS_DATASOURCE_*` aliases, then credentials inside the URL. Pool bounds default to 5 / 20.
 */
export function resolvePostgresConnection(env: Environment, flags: PostgresConnectionFlags = {}): PostgresConnectionResolution {
  const problems: string[] = [];
  const url = pick([flags.databaseUrl, '--database-url'], [env['DATABASE_URL'], 'DATABASE_URL'], [env['QUARKUS_DATASOURCE_JDBC_URL'], 'QUARKUS_DATASOURCE_JDBC_URL']);
  const user = pick([flags.databaseUsername, '--database-username'], [env['DATABASE_USERNAME'], 'DATABASE_USERNAME'], [env['QUARKUS_DATASOURCE_USERNAME'], 'QUARKUS_DATASOURCE_USERNAME']);
  const password = pick([flags.databasePassword, '--database-password'], [env['DATABASE_PASSWORD'], 'DATABASE_PASSWORD'], [env['QUARKUS_DATASOURCE_PASSWORD'], 'QUARKUS_DATASOURCE_PASSWORD']);

  let parsed: ParsedUrl | undefined;
  if (!url) {
    problems.push('missing DATABASE_URL (or QUARKUS_DATASOURCE_JDBC_URL)');
  } else {
    parsed = parseDatabaseUrl(url.value, url.name, problems);
  }

  if (password && !user && !(parsed?.user)) {
    const userName = password.name.startsWith('QUARKUS_') ? 'QUARKUS_DATASOURCE_USERNAME' : password.name === '--database-password' ? '--database-username' : 'DATABASE_USERNAME';
    problems.push(`${password.name} is set but ${userName} is not${url ? ` (and ${url.name} names no user)` : ''}`);
  }

  const poolMinRaw = pick([flags.poolMin, '--pool-min'], [env['DATABASE_POOL_MIN'], 'DATABASE_POOL_MIN']);
  const poolMaxRaw = pick([flags.poolMax, '--pool-max'], [env['DATABASE_POOL_MAX'], 'DATABASE_POOL_MAX']);
  const poolMin = poolMinRaw ? parseInteger(poolMinRaw, 0, problems) : DEFAULT_POOL_MIN;
  const poolMax = poolMaxRaw ? parseInteger(poolMaxRaw, 1, problems) : DEFAULT_POOL_MAX;
  if (poolMin !== undefined && poolMax !== undefined && poolMin > poolMax) {
    problems.push(`${poolMinRaw?.name ?? 'DATABASE_POOL_MIN'} (${poolMin}) must not be greater than ${poolMaxRaw?.name ?? 'DATABASE_POOL_MAX'} (${poolMax})`);
  }

  let ssl: { mode: PostgresSslMode; rootCert: string | undefined } | undefined;
  let searchPath: string | undefined;
  let serverOptions: string | undefined;
  let applicationName: string | undefined;
  let connectTimeoutMs: number | undefined;
  if (parsed && url) {
    ssl = resolveSsl(parsed, url.name, problems);
    searchPath = parsed.params.get('currentSchema') ?? parsed.params.get('currentschema');
    serverOptions = parsed.params.get('options');
    applicationName = parsed.params.get('application_name') ?? parsed.params.get('ApplicationName');
    const timeout = parsed.params.get('connect_timeout') ?? parsed.params.get('connectTimeout') ?? parsed.params.get('loginTimeout');
    if (timeout !== undefined) {
      if (/^\d+$/.test(timeout.trim())) connectTimeoutMs = Number(timeout.trim()) * 1000 || undefined;
      else problems.push(`${url.name} has a connect timeout that is not a whole number of seconds`);
    }
  }

  if (problems.length > 0 || !parsed || !url || !ssl || poolMin === undefined || poolMax === undefined) {
    return { settings: null, problems };
  }

  const effectiveUser = user?.value ?? parsed.user;
  const effectivePassword = password?.value ?? parsed.password;
  const base = {
    host: parsed.host,
    port: parsed.port,
    database: parsed.database,
    user: effectiveUser,
    sslMode: ssl.mode,
    sslRootCertFile: ssl.rootCert,
    searchPath,
    serverOptions,
    applicationName,
    connectTimeoutMs,
    poolMin,
    poolMax,
    source: url.name,
  };
  const settings = { ...base, redactedUrl: redactedUrlOf(base, effectivePassword !== undefined) };
  Object.defineProperty(settings, 'password', { value: effectivePassword, enumerable: false, writable: false });
  return { settings: Object.freeze(settings as PostgresConnectionSettings), problems: [] };
}

function parseInteger(raw: Sourced, min: number, problems: string[]): number | undefined {
  const text = raw.value.trim();
  const n = Number(text);
  if (!/^[+-]?\d+$/.test(text) || !Number.isSafeInteger(n) || n < min) {
    problems.push(`${raw.name} must be an integer ≥ ${min}, got "${truncate(raw.value)}"`);
    return undefined;
  }
  return n;
}

function truncate(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

const URL_SHAPE = 'expected postgres://user:password@host:port/database or jdbc:postgresql://host:port/database';

/** Parses either URL form. Problems name the variable but never echo the URL, which may hold a password. */
function parseDatabaseUrl(raw: string, name: string, problems: string[]): ParsedUrl | undefined {
  const text = raw.trim();
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'jdbc') {
    const rest = text.slice(5);
    const sub = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest)?.[1]?.toLowerCase();
    if (sub !== 'postgresql') {
      problems.push(`${name} is a JDBC URL for "${truncate(sub ?? '?', 20)}", not PostgreSQL (${URL_SHAPE})`);
      return undefined;
    }
    return parseHierarchical(rest.slice('postgresql:'.length), 'jdbc', name, problems);
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    const rest = text.slice(scheme.length + 1);
    if (!rest.startsWith('//')) {
      problems.push(`${name} is not a valid PostgreSQL URL (${URL_SHAPE})`);
      return undefined;
    }
    return parseHierarchical(rest, 'postgres', name, problems);
  }
  const shownScheme = scheme && text.startsWith(`${scheme}://`) ? ` (scheme "${truncate(scheme, 20)}")` : '';
  problems.push(`${name} is not a PostgreSQL URL${shownScheme}: ${URL_SHAPE}`);
  return undefined;
}

/**
 * The part after `postgresql:`. JDBC also allows `jdbc:postgresql:database` and `jdbc:postgresql:/` (local host).
 * Query values are percent-decoded; in JDBC URLs `+` also means a space, as pgjdbc decodes them.
 */
function parseHierarchical(rest: string, kind: 'postgres' | 'jdbc', name: string, problems: string[]): ParsedUrl | undefined {
  const hashAt = rest.indexOf('#');
  const noFragment = hashAt >= 0 ? rest.slice(0, hashAt) : rest;
  const queryAt = noFragment.indexOf('?');
  const beforeQuery = queryAt >= 0 ? noFragment.slice(0, queryAt) : noFragment;
  const query = queryAt >= 0 ? noFragment.slice(queryAt + 1) : '';

  const decode = (value: string, what: string): string | undefined => {
    try {
      return decodeURIComponent(kind === 'jdbc' ? value.replace(/\+/g, ' ') : value);
    } catch {
      problems.push(`${name} has invalid percent-encoding in ${what}`);
      return undefined;
    }
  };

  const params = new Map<string, string>();
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decode(eq >= 0 ? part.slice(0, eq) : part, 'a query parameter name');
    const value = decode(eq >= 0 ? part.slice(eq + 1) : '', `the query parameter ${eq >= 0 ? part.slice(0, eq) : part}`);
    if (key !== undefined && value !== undefined) params.set(key, value);
  }

  let authority = '';
  let path = beforeQuery;
  if (beforeQuery.startsWith('//')) {
    const slash = beforeQuery.indexOf('/', 2);
    authority = slash >= 0 ? beforeQuery.slice(2, slash) : beforeQuery.slice(2);
    path = slash >= 0 ? beforeQuery.slice(slash + 1) : '';
  } else if (kind === 'jdbc') {
    path = beforeQuery.startsWith('/') ? beforeQuery.slice(1) : beforeQuery;
  }

  let user: string | undefined;
  let password: string | undefined;
  const at = authority.lastIndexOf('@');
  if (at >= 0) {
    const userInfo = authority.slice(0, at);
    authority = authority.slice(at + 1);
    const colon = userInfo.indexOf(':');
    user = decode(colon >= 0 ? userInfo.slice(0, colon) : userInfo, 'the user name') || undefined;
    password = colon >= 0 ? decode(userInfo.slice(colon + 1), 'the password') : undefined;
  }
  if (params.has('user')) user = params.get('user') || undefined;
  if (params.has('password')) password = params.get('password');

  if (authority.includes(',')) {
    const hosts = authority.split(',');
    // Host names are echoed only when they look like hosts: a password with an unencoded `/` can end up here.
    const listed = hosts.every((h) => /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(h)) ? ` (${hosts.map((h) => truncate(h, 60)).join(', ')})` : '';
    problems.push(
      `${name} names ${hosts.length} hosts${listed}; multi-host URLs are not supported: point it at one host, e.g. a Service that always routes to the primary`,
    );
    return undefined;
  }

  let host = 'localhost';
  let port = DEFAULT_POSTGRES_PORT;
  const hostPort = /^(?:\[([^\]]*)\]|([^:]*))(?::(.*))?$/.exec(authority);
  if (!hostPort) {
    problems.push(`${name} has an invalid host`);
    return undefined;
  }
  const hostText = hostPort[1] ?? hostPort[2] ?? '';
  if (hostText !== '') host = decode(hostText, 'the host') ?? host;
  const portText = hostPort[3] ?? params.get('port');
  if (portText !== undefined && portText !== '') {
    const n = Number(portText);
    if (!/^\d+$/.test(portText) || n < 1 || n > 65535) {
      // Echo only digits: a password with an unencoded `/` would otherwise surface here as the "port".
      problems.push(`${name} has an invalid port${/^\d{1,10}$/.test(portText) ? ` "${portText}"` : ''} (expected 1–65535; percent-encode special characters in the user name and password)`);
      return undefined;
    }
    port = n;
  }
  const hostParam = params.get('host');
  if (hostParam) {
    if (hostParam.includes(',')) {
      problems.push(`${name} names several hosts in ?host=; multi-host URLs are not supported`);
      return undefined;
    }
    host = hostParam;
  }

  let database = path === '' ? undefined : decode(path, 'the database name');
  if (params.get('dbname')) database = params.get('dbname');
  return { kind, host, port, database: database || undefined, user, password, params };
}

function resolveSsl(parsed: ParsedUrl, name: string, problems: string[]): { mode: PostgresSslMode; rootCert: string | undefined } | undefined {
  const rootCert = parsed.params.get('sslrootcert') || undefined;
  if (rootCert && rootCert !== 'system') {
    try {
      accessSync(rootCert, constants.R_OK);
    } catch {
      problems.push(`${name} has sslrootcert=${truncate(rootCert, 200)}, which does not exist or is not readable`);
      return undefined;
    }
  }
  const explicit = parsed.params.get('sslmode');
  if (explicit !== undefined) {
    const mode = explicit.trim().toLowerCase();
    if ((SUPPORTED_SSL_MODES as readonly string[]).includes(mode)) return { mode: mode as PostgresSslMode, rootCert };
    const hint = mode === 'prefer' || mode === 'allow' ? ' (node-postgres cannot fall back between TLS and plain connections: choose one)' : '';
    const shown = mode === 'prefer' || mode === 'allow' ? `sslmode=${mode}` : 'an unknown sslmode';
    problems.push(`${name} has ${shown}, which is not supported; use one of ${SUPPORTED_SSL_MODES.join(', ')}${hint}`);
    return undefined;
  }
  // pgjdbc without sslmode: ssl=true verifies fully unless the non-validating factory is configured.
  const sslFlag = parsed.params.get('ssl');
  const factory = parsed.params.get('sslfactory') ?? '';
  if (factory.endsWith('NonValidatingFactory')) return { mode: 'require', rootCert };
  if (sslFlag !== undefined && sslFlag.trim().toLowerCase() !== 'false') return { mode: 'verify-full', rootCert };
  return { mode: 'disable', rootCert };
}

function redactedUrlOf(
  s: Pick<PostgresConnectionSettings, 'host' | 'port' | 'database' | 'user' | 'sslMode' | 'searchPath'>,
  hasPassword: boolean,
): string {
  const credentials = s.user ? `${encodeURIComponent(s.user)}${hasPassword ? ':***' : ''}@` : hasPassword ? ':***@' : '';
  const host = s.host.includes(':') ? `[${s.host}]` : s.host.startsWith('/') ? encodeURIComponent(s.host) : s.host;
  const query = [`sslmode=${s.sslMode}`, ...(s.searchPath ? [`currentSchema=${encodeURIComponent(s.searchPath)}`] : [])].join('&');
  return `postgres://${credentials}${host}:${s.port}/${s.database ? encodeURIComponent(s.database) : ''}?${query}`;
}

/** One line for logs: `user@host:port/db (sslmode=require, from DATABASE_URL, pool 5–20)`. Never the password. */
export function describePostgresConnection(s: PostgresConnectionSettings): string {
  return `${s.user ? `${s.user}@` : ''}${s.host}:${s.port}/${s.database ?? ''} (sslmode=${s.sslMode}, from ${s.source}, pool ${s.poolMin}–${s.poolMax})`;
}

/** Escapes a value for the libpq `options` string (`-c key=value`), where spaces and backslashes need a backslash. */
function escapeOptionValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/ /g, '\\ ');
}

/**
 * `pg.Pool` configuration for the settings. `extra` is merged last (e.g. `max: 1`, `connectionTimeoutMillis`).
 * Reads the `sslrootcert` file, so call it where file access is expected (main, not an app factory).
 */
export function toPoolConfig(settings: PostgresConnectionSettings, extra: PoolConfig = {}): PoolConfig {
  const options = [
    ...(settings.serverOptions ? [settings.serverOptions] : []),
    ...(settings.searchPath ? [`-c search_path=${escapeOptionValue(settings.searchPath)}`] : []),
  ].join(' ');
  const config: PoolConfig = {
    host: settings.host,
    port: settings.port,
    min: settings.poolMin,
    max: settings.poolMax,
    ssl: sslConfig(settings),
  };
  if (settings.database !== undefined) config.database = settings.database;
  if (settings.user !== undefined) config.user = settings.user;
  if (settings.password !== undefined) config.password = settings.password;
  if (options !== '') config.options = options;
  if (settings.applicationName !== undefined) config.application_name = settings.applicationName;
  if (settings.connectTimeoutMs !== undefined) config.connectionTimeoutMillis = settings.connectTimeoutMs;
  return { ...config, ...extra };
}

function sslConfig(settings: PostgresConnectionSettings): PoolConfig['ssl'] {
  const ca = settings.sslRootCertFile && settings.sslRootCertFile !== 'system' ? readFileSync(settings.sslRootCertFile, 'utf8') : undefined;
  switch (settings.sslMode) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-ca':
      // The chain is verified, the host name is not (libpq's verify-ca).
      return { rejectUnauthorized: true, ...(ca ? { ca } : {}), checkServerIdentity: () => undefined };
    case 'verify-full':
      return { rejectUnauthorized: true, ...(ca ? { ca } : {}) };
  }
}
