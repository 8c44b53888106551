// Reading `_source` without losing a digit, at any depth, and printing it as PostgreSQL's jsonb does.
import { describe, expect, it } from 'vitest';
import { numericText, jsonbText } from '@workflow-index/events';
import type { JsonNumber } from '@workflow-index/events';
import { parseLosslessJson, toPlainJson } from '@workflow-index/events';
import { asForwarded } from '../src/raw-event-parse.js';
import { documentId } from '../src/normalizer-recompute.js';

describe('lossless JSON', () => {
  it('keeps every number token as written', () => {
    const v = parseLosslessJson('{"big":12345678901234567890,"d":1.795441525350899E9,"neg":-0.0,"arr":[1e2,0.30000000000000004]}') as Map<string, unknown>;
    expect((v.get('big') as JsonNumber).text).toBe('12345678901234567890');
    expect((v.get('d') as JsonNumber).text).toBe('1.795441525350899E9');
    expect(jsonbText(parseLosslessJson('{"big":12345678901234567890,"b":true,"a":null,"ccc":"x\\"y\\u0001"}'))).toBe('{"a": null, "b": true, "big": 12345678901234567890, "ccc": "x\\"y\\u0001"}');
  });

  it('reads and prints 20,000 levels of nesting without exhausting the stack', () => {
    const depth = 20_000;
    const text = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const value = parseLosslessJson(text);
    expect(jsonbText(value)).toBe(text);
  });

  it('the last of duplicate keys wins, as in jsonb', () => {
    expect(toPlainJson(parseLosslessJson('{"a":1,"a":2}'))).toEqual({ a: 2 });
    expect(toPlainJson(parseLosslessJson('{"__proto__":{"x":1}}'))).toEqual(JSON.parse('{"__proto__":{"x":1}}'));
  });

  it('rejects what is not JSON', () => {
    expect(() => parseLosslessJson('{"a":}')).toThrow(/offset 5/);
    expect(() => parseLosslessJson('{"a":1} x')).toThrow(/after the value/);
    expect(() => parseLosslessJson('"abc')).toThrow(/unterminated/);
  });

  it('prints numbers as numeric_out does', () => {
    expect(['1.0E21', '-3.0E-7', '1.50', '0.000', '-0.0', '1e2', '2.5e-1', '12.5e-1', '1.25e1', '-0'].map(numericText)).toEqual([
      '1000000000000000000000', '-0.00000030', '1.50', '0.000', '0.0', '100', '0.25', '1.25', '12.5', '0',
    ]);
  });

  it('re-prints doubles as Fluent Bit printed them for PostgreSQL, and repairs NUL and lone surrogates', () => {
    const forwarded = asForwarded(parseLosslessJson('{"a":1.0E9,"b":1.795441525350899E9,"c":12,"k\\u0000":"x\\u0000y\\ud800"}'));
    expect(jsonbText(forwarded)).toBe('{"a": 1000000000.0, "b": 1795441525.350899, "c": 12, "k\ufffd": "x\ufffdy\ufffd"}');
  });

  it('gives execution ids beyond 512 bytes a hashed document id', () => {
    const short = `i:${'p'.repeat(500)}`;
    expect(documentId(short)).toBe(short);
    const long = `i:${'p'.repeat(600)}`;
    expect(documentId(long)).toMatch(/^#sha256:[0-9a-f]{64}$/);
    expect(documentId(long)).not.toBe(documentId(`${long}x`));
  });
});
