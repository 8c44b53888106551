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

export class FluentBitJsonError extends Error {}

const INT64_MIN = -9223372036854775808n;
const UINT64_MAX = 18446744073709551615n;
const TWO_POW_63 = 9223372036854775808;

/** Whether the double x is exactly digits × 10^exponent (exact binary arithmetic). */
function exactlyEquals(x: number, digits: bigint, exponent: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mantissa = bits & ((1n << 52n) - 1n);
  let binaryExponent = -1074;
  if (biased !== 0) {
    mantissa |= 1n << 52n;
    binaryExponent = biased - 1075;
  }
  let left = mantissa;
  let right = digits;
  if (binaryExponent >= 0) left <<= BigInt(binaryExponent);
  else right <<= BigInt(-binaryExponent);
  if (exponent >= 0) right *= 10n ** BigInt(exponent);
  else left *= 10n ** BigInt(-exponent);
  return left === right;
}

/** The 16 significant digits of |x| and the decimal exponent of the first, rounded as glibc does: to nearest,
 * exact ties to even (JavaScript's toExponential rounds exact ties up). */
function sixteenDigits(x: number): { digits: string; exponent: number } {
  const [m17, e17] = Math.abs(x).toExponential(16).split('e') as [string, string];
  const d17 = m17.replace('.', '');
  if (d17.endsWith('5') && exactlyEquals(x, BigInt(d17), Number(e17) - 16)) {
    let kept = BigInt(d17.slice(0, 16));
    if (kept % 2n === 1n) kept += 1n;
    const text = kept.toString();
    return text.length > 16 ? { digits: text.slice(0, 16), exponent: Number(e17) + 1 } : { digits: text, exponent: Number(e17) };
  }
  const [m16, e16] = Math.abs(x).toExponential(15).split('e') as [string, string];
  return { digits: m16.replace('.', ''), exponent: Number(e16) };
}

/** C's printf("%.16g", x) for a double. */
export function formatG16(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { digits, exponent } = sixteenDigits(x);
  let out: string;
  if (exponent < -4 || exponent >= 16) {
    const fraction = digits.slice(1).replace(/0+$/, '');
    out = `${digits[0]}${fraction === '' ? '' : `.${fraction}`}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  } else if (exponent >= 0) {
    const whole = digits.slice(0, exponent + 1);
    const fraction = digits.slice(exponent + 1).replace(/0+$/, '');
    out = fraction === '' ? whole : `${whole}.${fraction}`;
  } else {
    out = `0.${'0'.repeat(-exponent - 1)}${digits.replace(/0+$/, '')}`;
  }
  return x < 0 ? `-${out}` : out;
}

/** How Fluent Bit prints a double it holds. */
export function formatFluentBitDouble(x: number): string {
  // (double)(long long)x == x: integral and inside the int64 range (outside it the cast does not round-trip).
  if (Object.is(x, -0)) return '-0.0';
  if (Number.isInteger(x) && x >= -TWO_POW_63 && x < TWO_POW_63) return x.toFixed(1);
  return formatG16(x);
}

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
