// Connection handling for the OpenSearch commands: the CONTRACT §4 settings (OPENSEARCH_*), read by the same
// function the normalizer uses, every problem reported before anything is attempted, and a bounded wait for the
// cluster, because in Kubernetes the Job often starts before OpenSearch answers. The password never reaches a line
// this prints: it travels in the client's auth option, and any reason is scrubbed of it before it is printed.
import { accessSync, constants } from 'node:fs';
import type { Client } from '@opensearch-project/opensearch';
import { openSearchClient, openSearchConnectionSettings, type OpenSearchConnectionSettings } from '@workflow-index/opensearch/admin';
import { EXIT_FAILURE, EXIT_USAGE, reasonOf, type CliOutput } from './cli-output.js';

/** Tests and benchmarks share one node: every object name gets this prefix there. Production leaves it unset. */
export const INDEX_PREFIX_ENV = 'WI_OPENSEARCH_INDEX_PREFIX';

export interface OpenSearchTarget {
  readonly settings: OpenSearchConnectionSettings;
  readonly prefix: string;
}

// OpenSearch refuses index names with upper case, these characters, or a leading -, _ or +.
const INVALID_PREFIX = /[A-Z\\/*?"<>| ,#:]/;

export function resolveOpenSearchTarget(
  env: Readonly<Record<string, string | undefined>>,
  waitTimeoutSeconds: number,
): { target: OpenSearchTarget | null; problems: string[] } {
  const { settings, problems } = openSearchConnectionSettings(env);
  const caFile = env['OPENSEARCH_CA_FILE'] || undefined;
  if (caFile !== undefined) {
    try {
      accessSync(caFile, constants.R_OK);
    } catch {
      problems.push(`OPENSEARCH_CA_FILE ${JSON.stringify(caFile)} cannot be read`);
    }
  }
  const prefix = env[INDEX_PREFIX_ENV] ?? '';
  if (INVALID_PREFIX.test(prefix) || /^[-_+]/.test(prefix)) {
    problems.push(`${INDEX_PREFIX_ENV} must be lower case without spaces or any of \\/*?"<>|,#: and must not start with -, _ or +, got ${JSON.stringify(prefix)}`);
  }
  if (!Number.isFinite(waitTimeoutSeconds) || waitTimeoutSeconds < 0) {
    problems.push(`--wait-timeout must be a number of seconds ≥ 0, got ${String(waitTimeoutSeconds)}`);
  }
  if (settings === null || problems.length > 0) return { target: null, problems };
  return { target: { settings, prefix }, problems };
}

/** How the target is shown: never the password. */
export function describeTarget(target: OpenSearchTarget): string {
  const { settings, prefix } = target;
  const parts = [settings.nodes.join(', ')];
  parts.push(settings.username === undefined ? 'no authentication' : `user ${settings.username}`);
  if (settings.caFile !== undefined) parts.push(`CA ${settings.caFile}`);
  if (prefix !== '') parts.push(`object names prefixed ${JSON.stringify(prefix)}`);
  return parts.join(', ');
}

export class OpenSearchUnavailableError extends Error {
  override readonly name = 'OpenSearchUnavailableError';
}

function statusCodeOf(error: unknown): number | undefined {
  const meta = (error as { meta?: { statusCode?: unknown } } | null)?.meta;
  return typeof meta?.statusCode === 'number' ? meta.statusCode : undefined;
}

// Failures waiting cannot cure: the cluster answered and refused these credentials, or TLS cannot verify it.
function isPermanent(error: unknown): boolean {
  const status = statusCodeOf(error);
  if (status === 401 || status === 403) return true;
  return /certificate|self[- ]signed|altnames|wrong version number/i.test(reasonOf(error));
}

/** `text` with every occurrence of the password replaced (an error may echo a request back). */
export function scrub(text: string, password: string | undefined): string {
  return password ? text.split(password).join('***') : text;
}

export interface OpenSearchWaitOptions {
  readonly timeoutMs: number;
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(s < 10 ? 2 : 1)} s`;
}

/**
 * Asks for the cluster health until the cluster answers and is not red, retrying with exponential back-off
 * (0.25 s doubling, at most 5 s apart) until `timeoutMs` has passed. Each retry is logged with its reason; refused
 * credentials and TLS verification failures are not retried.
 */
export async function waitForCluster(client: Client, target: OpenSearchTarget, out: CliOutput, options: OpenSearchWaitOptions): Promise<void> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  let delay = options.initialDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 5000;
  const { node, password } = target.settings;
  for (let attempt = 1; ; attempt++) {
    const remaining = Math.max(1, deadline - Date.now());
    let reason: string;
    try {
      const response = await client.transport.request(
        { method: 'GET', path: '/_cluster/health' },
        // The client's own retries would hide attempts from the log and overrun the deadline. Each attempt gets at
        // least 2 s, so a short (or zero) wait still means one fair try.
        { requestTimeout: Math.min(Math.max(remaining, 2_000), 10_000), maxRetries: 0 },
      );
      const health = (response.body as { status?: unknown }).status;
      if (health === 'green' || health === 'yellow') {
        if (attempt > 1) out.log(`OpenSearch ${node} is reachable, cluster ${health} (after ${attempt} attempts, ${formatSeconds(Date.now() - started)})`);
        return;
      }
      reason = `cluster health is ${String(health)}`;
    } catch (error) {
      reason = scrub(reasonOf(error), password);
      if (isPermanent(error)) {
        const status = statusCodeOf(error);
        throw new OpenSearchUnavailableError(
          status === 401 || status === 403
            ? `OpenSearch ${node} refused the credentials (HTTP ${status}): check OPENSEARCH_USERNAME / OPENSEARCH_PASSWORD: ${reason}`
            : `cannot connect to OpenSearch ${node} securely: ${reason} (check OPENSEARCH_CA_FILE)`,
          { cause: error },
        );
      }
    }
    if (Date.now() + delay > deadline) {
      throw new OpenSearchUnavailableError(
        `OpenSearch ${node} not reachable within ${formatSeconds(options.timeoutMs)} (${attempt} attempt${attempt === 1 ? '' : 's'}): ${reason}`,
      );
    }
    out.log(`waiting for OpenSearch ${node}: ${reason} (attempt ${attempt}, ${formatSeconds(Date.now() - started)} of ${formatSeconds(options.timeoutMs)}; retrying in ${formatSeconds(delay)})`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(maxDelay, delay * 2);
  }
}

export type OpenedOpenSearch =
  | { readonly ok: true; readonly target: OpenSearchTarget; readonly client: Client }
  | { readonly ok: false; readonly exitCode: number };

/**
 * The start of every OpenSearch command: resolves the settings, reports every problem at once with exit code 2,
 * then waits for the cluster (exit code 1 when it never answers or refuses the credentials).
 */
export async function openOpenSearch(
  env: Readonly<Record<string, string | undefined>>,
  args: { readonly waitTimeout: number },
  out: CliOutput,
): Promise<OpenedOpenSearch> {
  const { target, problems } = resolveOpenSearchTarget(env, args.waitTimeout);
  if (target === null) {
    out.log('configuration problems:');
    for (const p of problems) out.log(`  - ${p}`);
    return { ok: false, exitCode: EXIT_USAGE };
  }
  out.log(`opensearch: ${describeTarget(target)}`);
  const client = openSearchClient(target.settings);
  try {
    await waitForCluster(client, target, out, { timeoutMs: args.waitTimeout * 1000 });
    return { ok: true, target, client };
  } catch (error) {
    await client.close().catch(() => undefined);
    out.log(`error: ${scrub(reasonOf(error), target.settings.password)}`);
    return { ok: false, exitCode: EXIT_FAILURE };
  }
}
