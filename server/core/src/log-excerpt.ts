// What an error log may carry of a request: enough to reproduce the problem, bounded whatever the client
// sent (ten 1 MB requests once wrote 9.8 MB of error log) and without credentials a client put in variables.

export const LOG_QUERY_MAX_CHARS = 4096;
export const LOG_VARIABLES_MAX_CHARS = 2048;
const STRING_MAX_CHARS = 100;
const ITEMS_MAX = 10;
const KEYS_MAX = 20;
const DEPTH_MAX = 8;
/** Keys whose values are credentials, whatever their type. */
const SECRET_KEY = /pass(word|wd)?|secret|token|authori[sz]ation|api[-_]?key|credential|cookie|session/i;
export const REDACTED = '[redacted]';

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[${text.length - max} more characters]`;
}

/** The query text, cut after LOG_QUERY_MAX_CHARS characters. */
export function queryExcerpt(query: unknown): string | null {
  return typeof query === 'string' ? cut(query, LOG_QUERY_MAX_CHARS) : null;
}

/**
 * The variables with long strings cut, long lists and objects shortened, deep nesting elided and secret-named
 * keys redacted; when even that is above LOG_VARIABLES_MAX_CHARS as JSON, only their names and size.
 */
export function variablesExcerpt(variables: unknown): unknown {
  if (variables === null || variables === undefined) return null;
  const shortened = shorten(variables, 0);
  const json = JSON.stringify(shortened);
  if (json.length <= LOG_VARIABLES_MAX_CHARS) return shortened;
  const names = typeof variables === 'object' && !Array.isArray(variables) ? Object.keys(variables).slice(0, KEYS_MAX).map((k) => cut(k, STRING_MAX_CHARS)) : [];
  return { '[excerpt too large]': { names, characters: json.length } };
}

function shorten(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return cut(value, STRING_MAX_CHARS);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= DEPTH_MAX) return Array.isArray(value) ? `[list of ${value.length}]` : '{…}';
  if (Array.isArray(value)) {
    const items = value.slice(0, ITEMS_MAX).map((item) => shorten(item, depth + 1));
    if (value.length > ITEMS_MAX) items.push(`…[${value.length - ITEMS_MAX} more items]`);
    return items;
  }
  const entries = Object.entries(value);
  const out: Record<string, unknown> = {};
  for (const [key, inner] of entries.slice(0, KEYS_MAX)) out[cut(key, STRING_MAX_CHARS)] = SECRET_KEY.test(key) ? REDACTED : shorten(inner, depth + 1);
  if (entries.length > KEYS_MAX) out['…'] = `${entries.length - KEYS_MAX} more keys`;
  return out;
}
