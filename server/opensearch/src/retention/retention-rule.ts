// The retention rule: one document (`_id` retention) in the normalizer's state index, which `opensearch-setup`
// creates from RAW_EVENTS_RETENTION_DAYS / INSTANCE_RETENTION_DAYS and an operator may read and change in place
// (`GET workflow-index-normalizer/_doc/retention`). The normalizer applies it periodically; `init-job prune
// --backend opensearch` applies it on demand. It stands in for the Index Management plugin's ISM policy, which
// cannot be obtained here (docs/opensearch.md).
import type { Client } from '@opensearch-project/opensearch';

export const RETENTION_RULE_ID = 'retention';
export const DEFAULT_RAW_RETENTION_DAYS = 7;
export const RAW_RETENTION_ENV = 'RAW_EVENTS_RETENTION_DAYS';
export const INSTANCE_RETENTION_ENV = 'INSTANCE_RETENTION_DAYS';

export interface RetentionRule {
  /** Daily raw indices created more than this many days ago are deleted once the normalizer has processed them. */
  readonly raw_events_retention_days: number;
  /** Finished runs that ended more than this many days ago are deleted; null: kept for ever (the default). */
  readonly instance_retention_days: number | null;
}

export const DEFAULT_RETENTION_RULE: RetentionRule = { raw_events_retention_days: DEFAULT_RAW_RETENTION_DAYS, instance_retention_days: null };

/** Horizons set explicitly (by the environment or a flag); an unset one keeps the stored rule's. */
export interface RetentionOverrides {
  readonly raw?: number;
  /** null: finished runs are kept. */
  readonly instance?: number | null;
}

export function ruleWithOverrides(base: RetentionRule, overrides: RetentionOverrides | undefined): RetentionRule {
  return {
    raw_events_retention_days: overrides?.raw ?? base.raw_events_retention_days,
    instance_retention_days: overrides?.instance === undefined ? base.instance_retention_days : overrides.instance,
  };
}

function days(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The stored rule, or undefined when none is stored. A stored rule an operator broke is an error that says how. */
export async function readRetentionRule(client: Client, index: string): Promise<RetentionRule | undefined> {
  const response = await client.transport.request({ method: 'GET', path: `/${encodeURIComponent(index)}/_doc/${RETENTION_RULE_ID}` }, { ignore: [404] });
  if (response.statusCode === 404) return undefined;
  const source = (response.body as { _source?: Record<string, unknown> })._source ?? {};
  const raw = source['raw_events_retention_days'];
  const instance = source['instance_retention_days'] ?? null;
  if (!days(raw) || (instance !== null && !days(instance))) {
    throw new Error(
      `the retention rule ${index}/_doc/${RETENTION_RULE_ID} is invalid: raw_events_retention_days must be a whole number of days ≥ 0 and ` +
        `instance_retention_days one or null, got ${JSON.stringify({ raw_events_retention_days: raw, instance_retention_days: instance })}`,
    );
  }
  return { raw_events_retention_days: raw, instance_retention_days: instance };
}

export async function writeRetentionRule(client: Client, index: string, rule: RetentionRule): Promise<void> {
  await client.transport.request({
    method: 'PUT',
    path: `/${encodeURIComponent(index)}/_doc/${RETENTION_RULE_ID}`,
    querystring: { refresh: 'true' },
    body: { kind: 'retention', ...rule, updated_at_ms: Date.now() },
  });
}

/**
 * The horizons the environment sets explicitly (undefined: not set). `INSTANCE_RETENTION_DAYS=off` is null. Every
 * problem is reported.
 */
export function retentionFromEnv(env: Readonly<Record<string, string | undefined>>): { raw?: number; instance?: number | null; problems: string[] } {
  const problems: string[] = [];
  const read = (name: string, allowOff: boolean): number | null | undefined => {
    const text = env[name]?.trim();
    if (text === undefined || text === '') return undefined;
    if (allowOff && text.toLowerCase() === 'off') return null;
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
      problems.push(`${name} must be a whole number of days ≥ 0${allowOff ? ' or "off"' : ''}, got ${JSON.stringify(env[name])}`);
      return undefined;
    }
    return Number(text);
  };
  const raw = read(RAW_RETENTION_ENV, false);
  const instance = read(INSTANCE_RETENTION_ENV, true);
  return { ...(raw === undefined || raw === null ? {} : { raw }), ...(instance === undefined ? {} : { instance }), problems };
}
