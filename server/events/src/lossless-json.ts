// JSON read without losing a number. OpenSearch returns `_source` re-serialized by Jackson (an integer beyond 64
// bits as its digits, a double as Java's shortest form), and the normalizer must hold every number exactly as text
// to print payloads the way PostgreSQL's jsonb does: JSON.parse would round 12345678901234567890. Objects are Maps
// (no prototype keys, the last of duplicate keys wins, as in jsonb).

/** A JSON number kept as its token. */
export class JsonNumber {
  constructor(readonly text: string) {}
  /** The IEEE double the token denotes (what every JSON reader holds). */
  toDouble(): number {
    return Number(this.text);
  }
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

export class LosslessJsonError extends Error {}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;

class Parser {
  private i = 0;
  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    const value = this.value();
    this.skip();
    if (this.i !== this.text.length) this.fail('unexpected text after the value');
    return value;
  }

  private fail(what: string): never {
    throw new LosslessJsonError(`invalid JSON at offset ${this.i}: ${what}`);
  }

  private skip(): void {
    const t = this.text;
    while (this.i < t.length && WHITESPACE.has(t.charCodeAt(this.i))) this.i++;
  }

  // Iterative over containers: a 20,000-level payload must not overflow the stack.
  private value(): JsonValue {
    const stack: { container: JsonValue[] | JsonObject; key: string | undefined }[] = [];
    let result: JsonValue | undefined;
    for (;;) {
      this.skip();
      let v: JsonValue;
      const c = this.text.charCodeAt(this.i);
      if (c === 0x7b /* { */) {
        this.i++;
        this.skip();
        const obj: JsonObject = new Map();
        if (this.text.charCodeAt(this.i) === 0x7d) {
          this.i++;
          v = obj;
        } else {
          stack.push({ container: obj, key: this.key() });
          continue;
        }
      } else if (c === 0x5b /* [ */) {
        this.i++;
        this.skip();
        const arr: JsonValue[] = [];
        if (this.text.charCodeAt(this.i) === 0x5d) {
          this.i++;
          v = arr;
        } else {
          stack.push({ container: arr, key: undefined });
          continue;
        }
      } else {
        v = this.scalar();
      }
      // Attach v to its parent and close every container that ends here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          result = v;
          break;
        }
        if (Array.isArray(top.container)) top.container.push(v);
        else top.container.set(top.key!, v);
        this.skip();
        const next = this.text.charCodeAt(this.i++);
        if (next === 0x2c /* , */) {
          if (!Array.isArray(top.container)) top.key = this.key();
          break;
        }
        if (next !== (Array.isArray(top.container) ? 0x5d : 0x7d)) this.fail('expected , or the end of a container');
        stack.pop();
        v = top.container;
      }
      if (result !== undefined) return result;
    }
  }

  private key(): string {
    this.skip();
    if (this.text.charCodeAt(this.i) !== 0x22) this.fail('expected a key');
    const key = this.string();
    this.skip();
    if (this.text.charCodeAt(this.i) !== 0x3a) this.fail('expected :');
    this.i++;
    return key;
  }

  private scalar(): JsonValue {
    const t = this.text;
    const c = t.charCodeAt(this.i);
    if (c === 0x22) return this.string();
    if (t.startsWith('true', this.i)) {
      this.i += 4;
      return true;
    }
    if (t.startsWith('false', this.i)) {
      this.i += 5;
      return false;
    }
    if (t.startsWith('null', this.i)) {
      this.i += 4;
      return null;
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(t);
    if (!m || m[0].length === 0) this.fail('expected a value');
    this.i += m[0].length;
    return new JsonNumber(m[0]);
  }

  private string(): string {
    const t = this.text;
    const start = ++this.i;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(this.i);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        this.i += 2;
      } else this.i++;
    }
    const raw = t.slice(start, this.i);
    this.i++;
    if (!escaped) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch (error) {
      return this.fail((error as Error).message);
    }
  }
}

export function parseLosslessJson(text: string): JsonValue {
  return new Parser(text).parseDocument();
}

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return v instanceof Map;
}

/** JSON type names as PostgreSQL's jsonb_typeof gives them. */
export function jsonTypeOf(v: JsonValue): 'null' | 'boolean' | 'string' | 'number' | 'array' | 'object' {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (v instanceof JsonNumber) return 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** Plain JavaScript value (numbers as doubles): for documents OpenSearch maps, never for payload text. */
export function toPlainJson(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return v.toDouble();
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) Object.defineProperty(out, k, { value: toPlainJson(x), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}
