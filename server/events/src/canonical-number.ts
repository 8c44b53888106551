// Canonical numbers (server/postgresql/normalizer/045-event-identity.sql, the rule and what it means): a number is
// the double Fluent Bit's printing of it as a double leaves — read as a double, printed as Fluent Bit prints a double
// ("%.1f" when integral within the int64 range, else "%.16g"), read again —, written as the shortest decimal that
// reads back as that double, in plain notation without trailing zeros; a number whose magnitude is below 1e-307 or
// above 1e308 stays as written (as jsonb prints it). So `99.99` (init-job ingest) and `99.98999999999999` (Fluent
// Bit's re-print) are both `99.99`, and event identities do not depend on the path. Only identities use it: served
// payloads keep the first delivery's spelling.
import { formatG16 } from './fluent-bit-double.js';
import { numericText } from './jsonb-text.js';
import { JsonNumber, type JsonValue } from './lossless-json.js';

const TWO_POW_63 = 9223372036854775808;
const NUMBER = /^-?([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?$/;

/** The power of ten of the first significant digit, and whether the digits after it are all zero; undefined for 0. */
function magnitude(text: string): { power: number; restZero: boolean } | undefined {
  const m = NUMBER.exec(text);
  if (!m) throw new RangeError(`not a number token: ${text}`);
  const all = `${m[1] ?? ''}${m[2] ?? ''}`;
  const significant = all.replace(/^0+/, '');
  if (/^0*$/.test(significant)) return undefined;
  const leadingZeros = all.length - significant.length;
  return { power: (m[1] ?? '').length + Number(m[3] ?? 0) - leadingZeros - 1, restZero: /^0*$/.test(significant.slice(1)) };
}

/** Between 1e-307 and 1e308 (inclusive) in magnitude. */
function normalDoubleRange(m: { power: number; restZero: boolean }): boolean {
  return m.power >= -307 && (m.power < 308 || (m.power === 308 && m.restZero));
}

/** The double Fluent Bit's printing of the double x leaves (fluent_bit_double). */
export function fluentBitDouble(x: number): number {
  if (Number.isInteger(x) && x >= -TWO_POW_63 && x < TWO_POW_63) return x;
  return Number(formatG16(x));
}

/** canonical_number: one number token's canonical text. */
export function canonicalNumber(text: string): string {
  const m = magnitude(text);
  if (m === undefined) return '0';
  if (!normalDoubleRange(m)) return numericText(text);
  return numericText(String(fluentBitDouble(Number(text))));
}

/** canonical_json: the value with every number canonical (a new tree; the given one is left as it is). */
export function canonicalJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof JsonNumber) return new JsonNumber(canonicalNumber(value.text));
  // Iterative: payloads may nest deeply. Each container is copied, then its members are filled in.
  const root: JsonValue = Array.isArray(value) ? [] : new Map();
  const work: [JsonValue, JsonValue][] = [[value, root]];
  while (work.length > 0) {
    const [from, to] = work.pop()!;
    const copy = (item: JsonValue): JsonValue => {
      if (item === null || typeof item !== 'object') return item;
      if (item instanceof JsonNumber) return new JsonNumber(canonicalNumber(item.text));
      const container: JsonValue = Array.isArray(item) ? [] : new Map();
      work.push([item, container]);
      return container;
    };
    if (Array.isArray(from)) for (const item of from) (to as JsonValue[]).push(copy(item));
    else for (const [key, item] of from as Map<string, JsonValue>) (to as Map<string, JsonValue>).set(key, copy(item));
  }
  return root;
}
