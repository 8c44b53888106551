// Connection handling for every command: settings from the environment and flags (all problems reported before
// anything is attempted), and a bounded wait for the database, because in Kubernetes the Job often starts before
// the database accepts connections.
import pg from 'pg';
import type { ClientConfig } from 'pg';
import {
  resolvePostgresConnection,
  toPoolConfig,
  type PostgresConnectionFlags,
  type PostgresConnectionSettings,
} from '@workflow-index/postgresql/admin';
import { EXIT_FAILURE, EXIT_USAGE, reasonOf, type CliOutput } from './cli-output.js';

export interface ConnectionArgs {
  readonly databaseUrl?: string | undefined;
  readonly databaseUsername?: string | undefined;
  readonly databasePassword?: string | undefined;
}

export function resolveConnection(
  env: Readonly<Record<string, string | undefined>>,
  args: ConnectionArgs,
): { settings: PostgresConnectionSettings | null; problems: readonly string[] } {
  const flags: PostgresConnectionFlags = {
    databaseUrl: args.databaseUrl,
    databaseUsername: args.databaseUsername,
    databasePassword: args.databasePassword,
  };
  return resolvePostgresConnection(env, flags);
}

export function clientConfig(settings: PostgresConnectionSettings): ClientConfig {
  const { min: _min, max: _max, ...config } = toPoolConfig(settings);
  return config;
}

export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

// Failures waiting cannot cure: wrong credentials or a server that refuses this role.
function isPermanent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('28');
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
}

/**
 * Connects, retrying with exponential backoff (0.25 s doubling, at most 5 s apart) until `timeoutMs` has passed.
 * Each retry is logged with its reason. Authentication failures are not retried.
 */
export async function connectWithRetry(settings: PostgresConnectionSettings, out: CliOutput, options: WaitOptions): Promise<pg.Client> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  let delay = options.initialDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 5000;
  const target = `${settings.host}:${settings.port}${settings.database ? `/${settings.database}` : ''}`;
  for (let attempt = 1; ; attempt++) {
    const remaining = Math.max(1, deadline - Date.now());
    const client = new pg.Client({
      ...clientConfig(settings),
      connectionTimeoutMillis: Math.min(remaining, settings.connectTimeoutMs ?? 10_000),
    });
    // An idle client whose connection drops emits 'error'; without a listener that would crash the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      if (attempt > 1) out.log(`database ${target} is reachable (after ${attempt} attempts, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
      return client;
    } catch (error) {
      await client.end().catch(() => undefined);
      const reason = reasonOf(error);
      if (isPermanent(error)) throw new DatabaseUnavailableError(`cannot log in to ${target}: ${reason}`, { cause: error });
      const waited = Date.now() - started;
      if (Date.now() + delay > deadline) {
        throw new DatabaseUnavailableError(
          `database ${target} not reachable within ${formatSeconds(options.timeoutMs)} (${attempt} attempt${attempt === 1 ? '' : 's'}): ${reason}`,
          { cause: error },
        );
      }
      out.log(`waiting for database ${target}: ${reason} (attempt ${attempt}, ${formatSeconds(waited)} of ${formatSeconds(options.timeoutMs)}; retrying in ${formatSeconds(delay)})`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(maxDelay, delay * 2);
    }
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(s < 10 ? 2 : 1)} s`;
}

export type OpenedDatabase =
  | { readonly ok: true; readonly settings: PostgresConnectionSettings; readonly client: pg.Client }
  | { readonly ok: false; readonly exitCode: number };

/**
 * The start of every command: resolves the connection settings, reports every problem at once (the command's
 * own `extraProblems` included) with exit code 2, then waits for the database (exit code 1 when it never answers).
 */
export async function openDatabase(
  env: Readonly<Record<string, string | undefined>>,
  args: ConnectionArgs & { readonly waitTimeout: number },
  out: CliOutput,
  extraProblems: readonly string[] = [],
): Promise<OpenedDatabase> {
  const { settings, problems } = resolveConnection(env, args);
  const all = [...problems, ...extraProblems];
  if (all.length > 0 || !settings) {
    out.log('configuration problems:');
    for (const p of all) out.log(`  - ${p}`);
    return { ok: false, exitCode: EXIT_USAGE };
  }
  out.log(`database: ${settings.redactedUrl} (from ${settings.source})`);
  try {
    return { ok: true, settings, client: await connectWithRetry(settings, out, { timeoutMs: args.waitTimeout * 1000 }) };
  } catch (error) {
    out.log(`error: ${reasonOf(error)}`);
    return { ok: false, exitCode: EXIT_FAILURE };
  }
}
