// Record values as Fluent Bit holds them (msgpack), so the model can show what the binary does to them:
// integers (int64/uint64) and doubles are different types, a string read from a file is bytes, and a map is an
// ordered list of entries that may repeat a key (filters append without deduplicating; only the JSON printer drops
// the earlier entries of a repeated key, flb-json-printer.ts).
//   null | boolean | string (valid text) | Buffer (raw bytes, e.g. tail's `log`) | bigint (msgpack int) |
//   number (msgpack float64) | FluentValue[] | FluentMap

export type FluentValue = null | boolean | string | Buffer | bigint | number | FluentValue[] | FluentMap;

export class FluentMap {
  constructor(readonly entries: readonly (readonly [string, FluentValue])[]) {}

  /** The last entry of that key, as Fluent Bit's record accessor finds it (src/flb_ra_key.c searches from the end). */
  get(key: string): FluentValue | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const [k, v] = this.entries[i]!;
      if (k === key) return v;
    }
    return undefined;
  }

  has(key: string): boolean {
    return this.entries.some(([k]) => k === key);
  }

  keys(): string[] {
    return this.entries.map(([k]) => k);
  }

  without(keys: readonly string[]): FluentMap {
    return new FluentMap(this.entries.filter(([k]) => !keys.includes(k)));
  }

  with(key: string, value: FluentValue): FluentMap {
    return new FluentMap([...this.entries, [key, value]]);
  }
}

export function isMap(value: FluentValue | undefined): value is FluentMap {
  return value instanceof FluentMap;
}

/** Text of a string value (bytes decoded as UTF-8 with U+FFFD for invalid sequences); undefined otherwise. */
export function textOf(value: FluentValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return new TextDecoder('utf-8').decode(value);
  return undefined;
}

/**
 * A plain JavaScript view for assertions: integers as numbers (exact below 2^53), bytes as text, a repeated key
 * as its last value (as PostgreSQL's `->>` reads it).
 */
export function toPlain(value: FluentValue): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (Buffer.isBuffer(value)) return textOf(value);
  if (Array.isArray(value)) return value.map(toPlain);
  const out: Record<string, unknown> = {};
  for (const [k, v] of value.entries) out[k] = toPlain(v);
  return out;
}

/** Builds a value from plain JavaScript: integral numbers become integers, others doubles. */
export function fromPlain(value: unknown): FluentValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'string' || typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) return value.map(fromPlain);
  if (value instanceof FluentMap) return value;
  return new FluentMap(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromPlain(v)]));
}
