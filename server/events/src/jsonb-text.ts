// PostgreSQL's jsonb text (what `jsonb::text` prints), so payloads and event identities here are the very strings
// the PostgreSQL backend serves and hashes: keys sorted by byte length then bytes (the last duplicate wins), ", "
// and ": " separators, strings escaped as escape_json does, numbers as numeric_out prints the token's numeric
// (no exponent, the token's display scale: `1.0E21` → 1000000000000000000000, `-3.0E-7` → -0.00000030).
import { JsonNumber, type JsonObject, type JsonValue } from './lossless-json.js';

/** numeric_out(numeric_in(token)) for a JSON number token. */
export function numericText(token: string): string {
  const m = /^([-+]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?$/.exec(token);
  if (!m) throw new RangeError(`not a number token: ${token}`);
  const negative = m[1] === '-';
  const intPart = m[2] ?? '';
  const fracPart = m[3] ?? '';
  const exponent = m[4] === undefined ? 0 : Number(m[4]);
  const scale = Math.max(0, fracPart.length - exponent);
  // All digits with the decimal point moved by the exponent: value = digits × 10^(exponent − fracPart.length).
  const digits = (intPart + fracPart).replace(/^0+/, '');
  const shift = exponent - fracPart.length; // power of ten applied to `digits`
  let whole: string;
  let fraction: string;
  if (digits === '') {
    whole = '0';
    fraction = '0'.repeat(scale);
  } else if (shift >= 0) {
    whole = digits + '0'.repeat(shift);
    fraction = '0'.repeat(scale);
  } else {
    const cut = digits.length + shift;
    whole = cut > 0 ? digits.slice(0, cut) : '0';
    const f = cut > 0 ? digits.slice(cut) : '0'.repeat(-cut) + digits;
    fraction = f.padEnd(scale, '0');
  }
  const isZero = /^0*$/.test(whole) && /^0*$/.test(fraction);
  const text = fraction.length > 0 ? `${whole}.${fraction}` : whole;
  return negative && !isZero ? `-${text}` : text;
}

function escapeJson(s: string): string {
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(from, i);
    from = i + 1;
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      case 0x08: out += '\\b'; break;
      case 0x0c: out += '\\f'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0d: out += '\\r'; break;
      case 0x09: out += '\\t'; break;
      default: out += `\\u${c.toString(16).padStart(4, '0')}`;
    }
  }
  return `${out}${s.slice(from)}"`;
}

/** jsonb's key order: shorter UTF-8 first, then bytewise (lengthCompareJsonbStringValue). */
export function compareJsonbKeys(a: string, b: string): number {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length !== bb.length ? ab.length - bb.length : Buffer.compare(ab, bb);
}

export function sortedJsonbEntries(o: JsonObject): [string, JsonValue][] {
  return [...o.entries()].sort(([a], [b]) => compareJsonbKeys(a, b));
}

/** `jsonb::text` of a value. */
export function jsonbText(v: JsonValue): string {
  // Iterative: payloads may nest deeply.
  const parts: string[] = [];
  const work: (JsonValue | { raw: string })[] = [v];
  while (work.length > 0) {
    const x = work.pop()!;
    if (x !== null && typeof x === 'object' && !(x instanceof JsonNumber) && !Array.isArray(x) && !(x instanceof Map)) {
      parts.push(x.raw);
      continue;
    }
    const value = x as JsonValue;
    if (value === null) parts.push('null');
    else if (value === true) parts.push('true');
    else if (value === false) parts.push('false');
    else if (typeof value === 'string') parts.push(escapeJson(value));
    else if (value instanceof JsonNumber) parts.push(numericText(value.text));
    else if (Array.isArray(value)) {
      const seq: (JsonValue | { raw: string })[] = [{ raw: '[' }];
      value.forEach((item, index) => {
        if (index > 0) seq.push({ raw: ', ' });
        seq.push(item);
      });
      seq.push({ raw: ']' });
      for (let i = seq.length - 1; i >= 0; i--) work.push(seq[i]!);
    } else {
      const seq: (JsonValue | { raw: string })[] = [{ raw: '{' }];
      sortedJsonbEntries(value).forEach(([key, item], index) => {
        seq.push({ raw: `${index > 0 ? ', ' : ''}${escapeJson(key)}: ` });
        seq.push(item);
      });
      seq.push({ raw: '}' });
      for (let i = seq.length - 1; i >= 0; i--) work.push(seq[i]!);
    }
  }
  return parts.join('');
}
