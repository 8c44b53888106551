// Turns the list view into GraphQL filter input: only operators every backend serves (the contract's filters).
import type { TimeZone } from './format.ts';
import type { ListView, Match, Status } from './view-state.ts';

export type Filter = Record<string, unknown>;

// Literal text operators of StringFilterInput (contains/startsWith treat * and ? as text, unlike like).
const MATCH_OPERATORS: Record<Match, 'eq' | 'startsWith' | 'contains'> = { exact: 'eq', prefix: 'startsWith', contains: 'contains' };

const RANGE_MS: Record<string, number> = { '1h': 3_600_000, '1d': 86_400_000, '7d': 7 * 86_400_000 };

/** `key=value` (first `=` splits; both sides trimmed), or null when it has no key or no `=`. */
export function parsePayloadPair(text: string): { key: string; value: string } | null {
  const at = text.indexOf('=');
  if (at <= 0) return null;
  const key = text.slice(0, at).trim();
  if (key === '' || key.split('.').some((segment) => segment === '')) return null;
  return { key, value: text.slice(at + 1).trim() };
}

/** Every condition of the view except the statuses (per-status counts need the rest on its own). */
export function baseFilter(list: ListView, now: number): Filter {
  const f: Filter = {};
  const operator = MATCH_OPERATORS[list.match];
  if (list.name !== '') f['name'] = { [operator]: list.name };
  if (list.namespace !== '') f['namespace'] = { [operator]: list.namespace };
  if (list.version !== '') f['version'] = { [operator]: list.version };
  if (list.text !== '') f['id'] = { contains: list.text };
  const pair = parsePayloadPair(list.payload);
  if (pair !== null) f['input'] = { eq: [pair] };
  const error: Filter = {};
  if (list.errorType !== '') error['type'] = { eq: list.errorType };
  if (list.errorTitle !== '') error['title'] = { eq: list.errorTitle };
  if (Object.keys(error).length > 0) f['error'] = error;
  if (list.failedTask !== '') f['taskExecutions'] = { taskPosition: { eq: list.failedTask }, status: { eq: 'FAULTED' } };
  const span = RANGE_MS[list.range];
  if (span !== undefined) f['startDate'] = { gte: new Date(now - span).toISOString() };
  if (list.range === 'custom') {
    const range: Record<string, string> = {};
    if (isInstant(list.from)) range['gte'] = list.from;
    if (isInstant(list.to)) range['lte'] = list.to;
    if (Object.keys(range).length > 0) f['startDate'] = range;
  }
  return f;
}

export function withStatuses(filter: Filter, statuses: readonly Status[]): Filter {
  return statuses.length === 0 ? filter : { ...filter, status: { in: [...statuses] } };
}

/** An ISO-8601 instant with an offset, as the DateTime scalar accepts. */
export function isInstant(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text));
}

/** A custom range bound as typed: a full ISO instant, or a date and time without an offset, read in the zone the
 * console shows times in (UTC or the browser's); anything else is kept as typed (and ignored by baseFilter). */
export function toInstant(text: string, zone: TimeZone): string {
  const t = text.trim();
  if (t === '') return '';
  const hasZone = /(Z|[+-]\d{2}:\d{2})$/.test(t);
  // Date.parse reads a date-time without an offset as local time.
  const ms = Date.parse(hasZone || zone === 'local' ? t : `${t}Z`);
  return Number.isNaN(ms) ? t : new Date(ms).toISOString();
}
