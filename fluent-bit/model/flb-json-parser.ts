// Fluent Bit's JSON parser (the `json` format of a [PARSER], used by the parser filter) as the two versions we
// run behave, reading bytes:
//   4.0.13 (jsmn built with JSMN_STRICT, lib/jsmn/jsmn.h; src/flb_pack.c tokens_to_msgpack, pack_numeric_token):
//     a bare value starts with `-`, a digit, `t`, `f` or `n` and is ANY run of printable ASCII up to whitespace,
//     `,`, `]` or `}` (a control byte or a byte >= 0x80 in it, or the end of the text, fails the line). A run
//     starting with t / f / n is true / false / null whatever follows (`nope` is null). Any other run is a number:
//     a double (strtod of the run) when it holds a `.` or an exponent followed by a sign — `1.e999`, `-.5e999` and
//     `1E999.` become ±inf (printed `inf`, which no JSON reader accepts), `1.0.0` becomes 1 —, else an integer
//     (strtoll/strtoull, which stop at the first non-digit: `5e3` is 5, `1e999` is 1, `1x` is 1); an integer beyond
//     int64/uint64 is strtod of the run. Strings may hold raw control characters (a TAB is kept).
//   4.2.8 (yyjson): strict JSON; numbers are read by value; an integer beyond int64/uint64 becomes a double; a
//     number that overflows a double fails the whole line (the record keeps its unparsed `log`).
// Both: a lone surrogate escape becomes U+FFFD, a valid pair one character; `\u0000` becomes a NUL character
// (which PostgreSQL's jsonb rejects); duplicate keys are kept in order; only a single JSON object is a record.
// The structure (brackets, colons, commas) is modelled as JSON for both versions: jsmn's structural leniencies
// (e.g. a missing colon) are not, and none of our lines reach them (the line repair quotes odd bare values first).
// Invalid UTF-8 inside strings is modelled as WHATWG replacement (the versions differ in detail; the line
// repair R1 runs before this parser, so such bytes never reach it).
// Iterative, so 20,000 levels of nesting parse as they do in the binary.

import { type FluentValue, FluentMap } from './fluent-value.js';

export const FLUENT_BIT_VERSIONS = ['4.0.13', '4.2.8'] as const;
export type FluentBitVersion = (typeof FLUENT_BIT_VERSIONS)[number];

class ParseFailure extends Error {}

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

/** The record a `Format json` parser makes of the text, or undefined when the parser fails. */
export function parseFluentJson(bytes: Buffer, version: FluentBitVersion): FluentMap | undefined {
  try {
    const value = new Reader(bytes, version).document();
    return value instanceof FluentMap ? value : undefined;
  } catch (error) {
    if (error instanceof ParseFailure) return undefined;
    throw error;
  }
}

/** One number token as the given version packs it (exported for the number tests). */
export function packNumber(text: string, version: FluentBitVersion): bigint | number {
  return version === '4.0.13' ? packNumberJsmn(text) : packNumberYyjson(text);
}

function packNumberJsmn(text: string): bigint | number {
  // is_float(): a `.` anywhere, or e/E followed by a sign.
  if (text.includes('.') || /[eE][+-]/.test(text)) return strtod(text);
  const digits = /^-?\d+/.exec(text)?.[0];
  if (digits === undefined) return 0n; // strtoll/strtoull read nothing: 0, no ERANGE
  const value = BigInt(digits);
  if (value < INT64_MIN || value > UINT64_MAX) return strtod(text); // ERANGE → strtod of the whole run
  return value;
}

/** C strtod (glibc) of the longest prefix it accepts: decimal, hexadecimal, inf/infinity, nan; 0 when none. */
export function strtod(text: string): number {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.replace(/^[+-]/, '');
  if (/^(?:inf|nan)/i.test(body)) return /^inf/i.test(body) ? sign * Infinity : Number.NaN;
  const hex = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?/.exec(body);
  if (hex && (hex[1] !== '' || (hex[2] ?? '') !== '')) {
    const mantissa = Number.parseInt(`${hex[1]}${hex[2] ?? ''}` || '0', 16);
    const exponent = Number(hex[3] ?? 0) - 4 * (hex[2] ?? '').length;
    return sign * mantissa * 2 ** exponent;
  }
  const decimal = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(body) ?? /^(?:\d+\.?\d*|\.\d+)/.exec(body);
  return decimal ? sign * Number(decimal[0].replace(/\.$/, '').replace(/\.(?=[eE])/, '')) : 0;
}

function packNumberYyjson(text: string): bigint | number {
  if (/^-?\d+$/.test(text)) {
    const value = BigInt(text);
    if (value >= INT64_MIN && value <= UINT64_MAX) return value;
    return Number(text);
  }
  const value = Number(text);
  if (!Number.isFinite(value)) throw new ParseFailure(`number overflows a double: ${text}`);
  return value;
}

type Frame = { kind: 'array'; items: FluentValue[] } | { kind: 'object'; entries: [string, FluentValue][]; key: string | undefined };

class Reader {
  private pos = 0;

  constructor(private readonly bytes: Buffer, private readonly version: FluentBitVersion) {}

  document(): FluentValue {
    this.space();
    const value = this.value();
    this.space();
    if (this.pos !== this.bytes.length) throw new ParseFailure('trailing content');
    return value;
  }

  private value(): FluentValue {
    const stack: Frame[] = [];
    let result: FluentValue | undefined;
    for (;;) {
      this.space();
      let value: FluentValue | undefined;
      const byte = this.bytes[this.pos];
      if (byte === 0x7b) {
        this.pos++;
        this.space();
        if (this.bytes[this.pos] === 0x7d) {
          this.pos++;
          value = new FluentMap([]);
        } else {
          stack.push({ kind: 'object', entries: [], key: this.key() });
          continue;
        }
      } else if (byte === 0x5b) {
        this.pos++;
        this.space();
        if (this.bytes[this.pos] === 0x5d) {
          this.pos++;
          value = [];
        } else {
          stack.push({ kind: 'array', items: [] });
          continue;
        }
      } else {
        value = this.scalar();
      }
      // Attach the finished value to its container; close containers as long as they end here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (!top) {
          result = value;
          break;
        }
        if (top.kind === 'array') top.items.push(value);
        else top.entries.push([top.key!, value]);
        this.space();
        const next = this.bytes[this.pos++];
        if (next === 0x2c) {
          if (top.kind === 'object') top.key = this.key();
          break;
        }
        if ((top.kind === 'array' && next === 0x5d) || (top.kind === 'object' && next === 0x7d)) {
          stack.pop();
          value = top.kind === 'array' ? top.items : new FluentMap(top.entries);
          continue;
        }
        throw new ParseFailure('expected , or a closing bracket');
      }
      if (result !== undefined) return result;
    }
  }

  private key(): string {
    this.space();
    if (this.bytes[this.pos] !== 0x22) throw new ParseFailure('expected a key');
    const key = this.string();
    this.space();
    if (this.bytes[this.pos++] !== 0x3a) throw new ParseFailure('expected :');
    return key;
  }

  private scalar(): FluentValue {
    const byte = this.bytes[this.pos];
    if (byte === 0x22) return this.string();
    if (this.version === '4.0.13') return this.jsmnPrimitive();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (this.bytes.toString('latin1', this.pos, this.pos + word.length) === word) {
        this.pos += word.length;
        return value;
      }
    }
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.bytes.toString('latin1', this.pos, this.pos + 1100));
    if (!match || match[0] === '' || match[0] === '-') throw new ParseFailure('unexpected character');
    this.pos += match[0].length;
    return packNumber(match[0], this.version);
  }

  /** jsmn_parse_primitive (JSMN_STRICT) and tokens_to_msgpack's reading of the run. */
  private jsmnPrimitive(): FluentValue {
    const first = this.bytes[this.pos];
    if (first === undefined || !(first === 0x2d || (first >= 0x30 && first <= 0x39) || first === 0x74 || first === 0x66 || first === 0x6e)) {
      throw new ParseFailure('unexpected character');
    }
    const start = this.pos;
    let end = start;
    for (;;) {
      const c = this.bytes[end];
      if (c === undefined) throw new ParseFailure('a bare value at the end of the text');
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x2c || c === 0x5d || c === 0x7d) break;
      if (c < 0x20 || c >= 0x7f) throw new ParseFailure('a control or non-ASCII byte in a bare value');
      end++;
    }
    this.pos = end;
    if (first === 0x74) return true;
    if (first === 0x66) return false;
    if (first === 0x6e) return null;
    return packNumberJsmn(this.bytes.toString('latin1', start, end));
  }

  private string(): string {
    this.pos++; // opening quote
    const units: number[] = [];
    const raw: number[] = [];
    const flushRaw = (): void => {
      if (raw.length === 0) return;
      const text = new TextDecoder('utf-8').decode(Buffer.from(raw));
      for (let i = 0; i < text.length; i++) units.push(text.charCodeAt(i));
      raw.length = 0;
    };
    for (;;) {
      const byte = this.bytes[this.pos++];
      if (byte === undefined) throw new ParseFailure('unterminated string');
      if (byte === 0x22) break;
      if (byte < 0x20 && this.version !== '4.0.13') throw new ParseFailure('control character in string');
      if (byte !== 0x5c) {
        raw.push(byte);
        continue;
      }
      flushRaw();
      const escape = this.bytes[this.pos++];
      const simple: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9 };
      if (escape !== undefined && simple[escape] !== undefined) {
        units.push(simple[escape]!);
        continue;
      }
      if (escape !== 0x75) throw new ParseFailure('bad escape');
      const unit = this.hex4();
      if (unit >= 0xd800 && unit <= 0xdbff && this.bytes[this.pos] === 0x5c && this.bytes[this.pos + 1] === 0x75) {
        const save = this.pos;
        this.pos += 2;
        const low = this.hex4();
        if (low >= 0xdc00 && low <= 0xdfff) {
          units.push(unit, low);
          continue;
        }
        this.pos = save;
      }
      units.push(unit >= 0xd800 && unit <= 0xdfff ? 0xfffd : unit);
    }
    flushRaw();
    let text = '';
    for (let i = 0; i < units.length; i += 8192) text += String.fromCharCode(...units.slice(i, i + 8192));
    return text;
  }

  private hex4(): number {
    const text = this.bytes.toString('latin1', this.pos, this.pos + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(text)) throw new ParseFailure('bad \\u escape');
    this.pos += 4;
    return Number.parseInt(text, 16);
  }

  private space(): void {
    while (this.pos < this.bytes.length && [0x20, 0x09, 0x0a, 0x0d].includes(this.bytes[this.pos]!)) this.pos++;
  }
}
