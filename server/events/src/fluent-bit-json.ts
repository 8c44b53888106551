// How a JSON event line looks after Fluent Bit has read it and printed it again (its JSON parser packs the line
// into msgpack, its outputs print msgpack back to JSON; src/flb_pack.c, src/flb_utils.c). What changes:
// - numbers: a token with '.' or an exponent with a sign ('e-', 'E+') becomes a double (strtod); other tokens are
//   integers (strtoll / strtoull; out of range: a double). Doubles print as "%.1f" when integral (and within the
//   int64 range), else "%.16g": a 17-digit double loses its last digit, 1.0E9 prints as 1000000000.0. A token
//   like 1E9 (exponent without sign) is read by strtoull as 1, as Fluent Bit does.
// - strings: escapes decoded, then printed with only the escapes JSON needs (quote, backslash, control
//   characters), other characters as UTF-8; a lone surrogate escape cannot be UTF-8 and becomes U+FFFD.
// - whitespace disappears; key order stays, but of duplicate keys only the last is printed (at its place).
// Everything that stands in for Fluent Bit's opensearch output prints events through this function.

import { formatFluentBitDouble } from './fluent-bit-double.js';


export class FluentBitJsonError extends Error {}

const INT64_MIN = -9223372036854775808n;
const UINT64_MAX = 18446744073709551615n;

function isFloatToken(token: string): boolean {
  return token.includes('.') || /[eE][-+]/.test(token);
}

/** A number token as Fluent Bit packs and prints it. */
export function fluentBitNumber(token: string): string {
  if (isFloatToken(token)) return formatFluentBitDouble(Number.parseFloat(token));
  // strtoll/strtoull read the leading digits only (so 1E9 is 1).
  const match = /^-?[0-9]+/.exec(token);
  if (!match) throw new FluentBitJsonError(`not a number: ${token}`);
  const value = BigInt(match[0]);
  if (token.startsWith('-')) return value < INT64_MIN ? formatFluentBitDouble(Number.parseFloat(token)) : value.toString();
  if (value > UINT64_MAX) return formatFluentBitDouble(Number.parseFloat(token));
  return value.toString(); // int64, or uint64 above INT64_MAX: printed as the same digits
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function printString(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const ch = value[i]!;
    if (SHORT_ESCAPES[ch] !== undefined) out += SHORT_ESCAPES[ch];
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < value.length && value.charCodeAt(i + 1) >= 0xdc00 && value.charCodeAt(i + 1) <= 0xdfff) {
      out += value.slice(i, i + 2);
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

class Reprinter {
  private i = 0;
  constructor(private readonly text: string) {}

  /** The top-level members, keys decoded and values printed. */
  members(): (readonly [string, string])[] {
    this.skipWhitespace();
    if (this.text[this.i] !== '{') throw new FluentBitJsonError('an event line must be a JSON object');
    const members = this.objectMembers();
    this.skipWhitespace();
    if (this.i !== this.text.length) throw new FluentBitJsonError(`unexpected text after the JSON object at offset ${this.i}`);
    return members;
  }

  private fail(what: string): never {
    throw new FluentBitJsonError(`invalid JSON at offset ${this.i}: ${what}`);
  }

  private skipWhitespace(): void {
    while (this.i < this.text.length && ' \t\n\r'.includes(this.text[this.i]!)) this.i++;
  }

  private value(): string {
    this.skipWhitespace();
    const c = this.text[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return printString(this.string());
    const literal = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)/.exec(this.text.slice(this.i, this.i + 400));
    if (!literal) this.fail('expected a value');
    this.i += literal[0].length;
    const token = literal[0];
    return token === 'true' || token === 'false' || token === 'null' ? token : fluentBitNumber(token);
  }

  private objectMembers(): (readonly [string, string])[] {
    this.i++;
    const members: (readonly [string, string])[] = [];
    this.skipWhitespace();
    if (this.text[this.i] === '}') {
      this.i++;
      return members;
    }
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.i] !== '"') this.fail('expected a key');
      const key = this.string();
      this.skipWhitespace();
      if (this.text[this.i] !== ':') this.fail('expected :');
      this.i++;
      members.push([key, this.value()]);
      this.skipWhitespace();
      const next = this.text[this.i++];
      if (next === '}') return members;
      if (next !== ',') this.fail('expected , or }');
    }
  }

  private object(): string {
    return printFluentBitObject(this.objectMembers());
  }

  private array(): string {
    this.i++;
    const items: string[] = [];
    this.skipWhitespace();
    if (this.text[this.i] === ']') {
      this.i++;
      return '[]';
    }
    for (;;) {
      items.push(this.value());
      this.skipWhitespace();
      const next = this.text[this.i++];
      if (next === ']') return `[${items.join(',')}]`;
      if (next !== ',') this.fail('expected , or ]');
    }
  }

  /** Reads a string token and returns its decoded value. */
  private string(): string {
    const start = this.i;
    this.i++;
    while (this.i < this.text.length && this.text[this.i] !== '"') {
      if (this.text[this.i] === '\\') this.i++;
      this.i++;
    }
    if (this.i >= this.text.length) this.fail('unterminated string');
    this.i++;
    try {
      return JSON.parse(this.text.slice(start, this.i)) as string;
    } catch (error) {
      return this.fail((error as Error).message);
    }
  }
}

/** Prints a map the way Fluent Bit does: of duplicate keys only the last one, at its own place. */
export function printFluentBitObject(members: readonly (readonly [string, string])[]): string {
  const last = new Map<string, number>();
  members.forEach(([key], index) => last.set(key, index));
  return `{${members.filter(([key], index) => last.get(key) === index).map(([key, value]) => `${printString(key)}:${value}`).join(',')}}`;
}

/** The top-level members of an event line (a JSON object) as Fluent Bit holds them: keys decoded, values printed. */
export function fluentBitMembers(line: string): (readonly [string, string])[] {
  return new Reprinter(line).members();
}

/** An event line (a JSON object) as Fluent Bit prints it. */
export function fluentBitJson(line: string): string {
  return printFluentBitObject(fluentBitMembers(line));
}
