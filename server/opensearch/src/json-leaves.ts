// Payload leaves as keywords, so a reader can answer the JSON filters of CONTRACT §2 inside OpenSearch with
// PostgreSQL's semantics (`payload #> path = ANY(candidates)`): one entry per string, number or boolean leaf,
// `<segment>\u001f<segment>…\u0000<type>:<value>`, where array indexes are segments too (as `#>` reads a digit
// segment as an index or a key), strings are `s:` + the text, booleans `b:true`/`b:false`, and numbers `n:` + their
// exact decimal without exponent or insignificant zeros (jsonb equality is numeric: 1000 = 1000.0 = 1E3). A JSON null
// never equals a filter value, so it has no entry. Huge payloads are capped: `complete: false` tells the reader to
// check the remaining candidates against the payload text itself. The same for entries the index cannot hold or the
// separators would make ambiguous: an entry longer than the keyword limit (not indexed: `contains`, `gt`, `exists`…
// would miss it), and an object key holding a separator (`{"a\u001fb": 1}` would read as the path a.b), whose
// subtree gets no entry at all.
import { numericText } from '@workflow-index/events';
import { KEYWORD_LIMIT } from './long-detail.js';
import { JsonNumber, type JsonValue } from '@workflow-index/events';

export const MAX_LEAVES = 1000;
export const PATH_SEPARATOR = '\u001f';
export const VALUE_SEPARATOR = '\u0000';

/** The exact decimal of a number token, for numeric equality (no exponent, no trailing fractional zeros). */
export function exactDecimal(token: string): string {
  let text = numericText(token);
  if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
  return text === '-0' ? '0' : text;
}

/** An object key the entries cannot spell unambiguously (it holds a separator). */
export const ambiguousKey = (key: string): boolean => key.includes(PATH_SEPARATOR) || key.includes(VALUE_SEPARATOR);

/** The entry a filter `{key: path, value}` looks for, per candidate type (string, number, boolean); none for a path
 * with a segment holding a separator, which no stored entry spells (the reader checks every payload's text). */
export function leafEntries(path: readonly string[], value: string): string[] {
  if (path.some(ambiguousKey)) return [];
  const prefix = `${path.join(PATH_SEPARATOR)}${VALUE_SEPARATOR}`;
  const entries = [`${prefix}s:${value}`];
  if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(value)) entries.push(`${prefix}n:${exactDecimal(value)}`);
  if (value === 'true' || value === 'false') entries.push(`${prefix}b:${value}`);
  return entries;
}

export function jsonLeaves(value: JsonValue): { leaves: string[]; complete: boolean } {
  const leaves: string[] = [];
  let complete = true;
  const work: [JsonValue, string[]][] = [[value, []]];
  while (work.length > 0) {
    const [v, path] = work.pop()!;
    if (leaves.length >= MAX_LEAVES) return { leaves, complete: false };
    if (v === null) continue;
    const prefix = `${path.join(PATH_SEPARATOR)}${VALUE_SEPARATOR}`;
    let leaf: string | undefined;
    if (typeof v === 'string') leaf = `${prefix}s:${v}`;
    else if (typeof v === 'boolean') leaf = `${prefix}b:${v}`;
    else if (v instanceof JsonNumber) leaf = `${prefix}n:${exactDecimal(v.text)}`;
    else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) work.push([v[i]!, [...path, String(i)]]);
    else {
      for (const [k, x] of [...v].reverse()) {
        if (ambiguousKey(k)) complete = false;
        else work.push([x, [...path, k]]);
      }
    }
    if (leaf === undefined) continue;
    if (leaf.length > KEYWORD_LIMIT) complete = false;
    else leaves.push(leaf);
  }
  return { leaves, complete };
}
