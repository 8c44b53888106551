// How Fluent Bit prints a record as JSON (src/flb_pack.c msgpack2json, src/flb_utils.c flb_utils_write_str),
// which is what the pgsql output puts into its statement:
//   - doubles: an integral value below 2^63 in magnitude as `%.1f` (`1778577243.0`), otherwise `%.16g`, so a
//     double that needs 17 significant digits loses its last one; non-finite values as `inf`, `-inf`, `nan`
//     (not JSON: PostgreSQL would reject the whole statement);
//   - integers exactly (int64 and uint64);
//   - strings: `"` `\` and control characters escaped (\n \r \t \b \f short, the others and DEL as \u00xx), and
//     EVERY non-ASCII character as a lowercase `\uXXXX` escape (a surrogate pair above U+FFFF);
//   - maps: an entry whose key occurs again later in the same map is NOT printed (key_exists_in_map), at every
//     level: a repeated key prints once, with its last value, at the place of its last entry. So when an output puts
//     its own key first (pgsql's Timestamp_Key, opensearch's Time_Key) and the record holds that key too, the
//     output's value is the one dropped.
// Invalid UTF-8 in a byte string is printed here as \ufffd per WHATWG decoding; the binary's exact treatment
// differs by version (replaced or skipped), which the line repair makes unreachable (R1 runs first).

import { formatFluentBitDouble } from '@workflow-index/events';
import { FluentMap, type FluentValue, textOf } from './fluent-value.js';

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 0x22: '\\"', 0x5c: '\\\\', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x08: '\\b', 0x0c: '\\f' };

export function printFluentString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const short = SHORT_ESCAPES[code];
    if (short !== undefined) out += short;
    else if (code < 0x20 || code === 0x7f) out += `\\u${hex4(code)}`;
    else if (code < 0x80) out += char;
    else if (code <= 0xffff) out += `\\u${hex4(code)}`;
    else {
      const offset = code - 0x10000;
      out += `\\u${hex4(0xd800 + (offset >> 10))}\\u${hex4(0xdc00 + (offset & 0x3ff))}`;
    }
  }
  return `${out}"`;
}

function hex4(code: number): string {
  return code.toString(16).padStart(4, '0');
}

/** A msgpack float64 as Fluent Bit prints it (server/core/src/fluent-bit-double.ts; nan and inf as C prints them). */
export function printFluentDouble(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return formatFluentBitDouble(x);
}

// Iterative: a 20,000-level line (which only a forwarder without our repair lets through) prints as it does in
// the binary instead of overflowing the model's stack.
export function printFluentJson(value: FluentValue): string {
  const out: string[] = [];
  type Work = { readonly value: FluentValue } | { readonly text: string };
  const stack: Work[] = [{ value }];
  while (stack.length > 0) {
    const work = stack.pop()!;
    if ('text' in work) {
      out.push(work.text);
      continue;
    }
    const v = work.value;
    if (v === null) out.push('null');
    else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
    else if (typeof v === 'bigint') out.push(v.toString());
    else if (typeof v === 'number') out.push(printFluentDouble(v));
    else if (typeof v === 'string' || Buffer.isBuffer(v)) out.push(printFluentString(textOf(v)!));
    else if (Array.isArray(v)) {
      const items: Work[] = [{ text: '[' }];
      v.forEach((item, i) => items.push(...(i > 0 ? [{ text: ',' }] : []), { value: item }));
      items.push({ text: ']' });
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!);
    } else {
      const items: Work[] = [{ text: '{' }];
      lastEntries(v).forEach(([k, item], i) => items.push({ text: `${i > 0 ? ',' : ''}${printFluentString(k)}:` }, { value: item }));
      items.push({ text: '}' });
      for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]!);
    }
  }
  return out.join('');
}

/** The entries msgpack2json prints: each key's last entry, in the order of those last entries. */
function lastEntries(map: FluentMap): readonly (readonly [string, FluentValue])[] {
  const entries = map.entries;
  const seen = new Set<string>();
  const kept: (readonly [string, FluentValue])[] = [];
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!;
    if (seen.has(entry[0])) continue;
    seen.add(entry[0]);
    kept.push(entry);
  }
  return kept.length === entries.length ? entries : kept.reverse();
}

/** A record printed with the output's own entries first (pgsql's Timestamp_Key, opensearch's Time_Key), as one map. */
export function printFluentMap(map: FluentMap, leading: readonly (readonly [string, FluentValue])[] = []): string {
  return printFluentJson(leading.length === 0 ? map : new FluentMap([...leading, ...map.entries]));
}
