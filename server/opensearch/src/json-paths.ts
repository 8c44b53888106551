// What the JSON operators beyond `eq` (ne, gt…lte, in, contains, exists) need besides the leaves
// (json-leaves.ts), as keywords a reader can query without scripts:
//  - `paths`: every path present in the payload, whatever its value (object, array, scalar or JSON null), segments
//    joined as in the leaves: `exists` is a term on it, `ne` needs it (present and not equal).
//  - `numbers`: one entry per number leaf, `<path>\u0000<sortable>`, where `sortable` orders as the number's value
//    (sortableNumber), so `gt`/`lt` on a JSON number is a keyword range inside the path's prefix, exact to every digit
//    as PostgreSQL's numeric comparison (a double would round).
// Both are capped like the leaves: `complete: false` sends the reader to the payload text for that document; so do an
// entry longer than the keyword limit (not indexed) and a key holding a separator (no entry for its subtree), as in
// json-leaves.ts.
import { ambiguousKey, exactDecimal, MAX_LEAVES, PATH_SEPARATOR, VALUE_SEPARATOR } from './json-leaves.js';
import { KEYWORD_LIMIT } from './long-detail.js';
import { isJsonObject, JsonNumber, type JsonValue } from '@workflow-index/events';

/** Exponents are written with this offset in EXPONENT_WIDTH digits (|exponent| far beyond any payload's). */
const EXPONENT_OFFSET = 5_000_000_000;
const EXPONENT_WIDTH = 10;
const EXPONENT_MAX = 9_999_999_999;

/**
 * A decimal number as text whose code-point order is the numbers' order: `1` negative, `2` zero, `3` positive; then
 * the decimal exponent e (value = 0.d1d2… × 10^e, d1 ≠ 0) as fixed-width digits, then the significant digits without
 * trailing zeros. For negatives the exponent and digits are complemented (larger magnitude sorts first) and a `~`
 * closes the digits (so -0.5, `…4~`, sorts after -0.51, `…48~`). Equal values (1000, 1E3, 1000.0) encode the same.
 * `token` is a JSON number token.
 */
export function sortableNumber(token: string): string {
  const decimal = exactDecimal(token);
  const negative = decimal.startsWith('-');
  const [intPart = '', fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  const digits = `${intPart}${fraction}`;
  const firstSignificant = digits.search(/[1-9]/);
  if (firstSignificant < 0) return '2';
  const exponent = intPart.length - firstSignificant;
  const significant = digits.slice(firstSignificant).replace(/0+$/, '');
  const biased = exponent + EXPONENT_OFFSET;
  if (!negative) return `3${String(biased).padStart(EXPONENT_WIDTH, '0')}${significant}`;
  const complemented = [...significant].map((d) => String(9 - Number(d))).join('');
  return `1${String(EXPONENT_MAX - biased).padStart(EXPONENT_WIDTH, '0')}${complemented}~`;
}

export interface JsonPathEntries {
  readonly paths: string[];
  readonly numbers: string[];
  /** false when either list was capped at MAX_LEAVES entries. */
  readonly complete: boolean;
}

/** The paths and number entries of a payload (none for an absent payload). */
export function jsonPathEntries(value: JsonValue): JsonPathEntries {
  const paths: string[] = [];
  const numbers: string[] = [];
  let complete = true;
  const keep = (list: string[], entry: string): void => {
    if (entry.length > KEYWORD_LIMIT) complete = false;
    else list.push(entry);
  };
  const work: [JsonValue, string[]][] = [[value, []]];
  while (work.length > 0) {
    const [v, path] = work.pop()!;
    if (paths.length >= MAX_LEAVES || numbers.length >= MAX_LEAVES) return { paths, numbers, complete: false };
    if (path.length > 0) keep(paths, path.join(PATH_SEPARATOR));
    if (v instanceof JsonNumber) keep(numbers, `${path.join(PATH_SEPARATOR)}${VALUE_SEPARATOR}${sortableNumber(v.text)}`);
    else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) work.push([v[i]!, [...path, String(i)]]);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of [...v].reverse()) {
        if (ambiguousKey(k)) complete = false;
        else work.push([x, [...path, k]]);
      }
    }
  }
  return { paths, numbers, complete };
}

/**
 * The value at `path` as PostgreSQL's `#>` reads it (object keys; a segment of digits indexes an array); undefined:
 * missing. What the reader checks a payload's text with when the keywords cannot decide (reader/json-fallback.ts,
 * reader/lookups/json-operators.ts).
 */
export function valueAtPath(value: JsonValue, path: readonly string[]): JsonValue | undefined {
  let v: JsonValue | undefined = value;
  for (const segment of path) {
    if (v === undefined || v === null) return undefined;
    if (isJsonObject(v)) v = v.get(segment);
    else if (Array.isArray(v)) v = /^(?:0|[1-9]\d*)$/.test(segment) ? v[Number(segment)] : undefined;
    else return undefined;
  }
  return v;
}
