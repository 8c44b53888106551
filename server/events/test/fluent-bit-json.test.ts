// Fluent Bit's re-printing of an event line (numbers through msgpack, strings re-escaped, duplicate keys).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fluentBitJson, fluentBitNumber } from '../src/fluent-bit-json.js';
import { formatFluentBitDouble, formatG16 } from '../src/fluent-bit-double.js';

describe('Fluent Bit JSON printing', () => {
  it('prints doubles with %.16g (the 17th digit is lost) and integral doubles with %.1f', () => {
    expect(fluentBitNumber('1.7954415230510702E9')).toBe('1795441523.05107');
    expect(fluentBitNumber('1.778577243512337E9')).toBe('1778577243.512337');
    expect(fluentBitNumber('1.0E9')).toBe('1000000000.0');
    expect(fluentBitNumber('42.5')).toBe('42.5');
    expect(fluentBitNumber('1e-7')).toBe('1e-07');
    expect(fluentBitNumber('0.00001')).toBe('1e-05');
    expect(fluentBitNumber('1.0e30')).toBe('1e+30');
    expect(fluentBitNumber('1.5e999')).toBe('inf');
    expect(fluentBitNumber('-0.0')).toBe('-0.0');
  });

  it('rounds exact ties to even as glibc does (JavaScript rounds them up)', () => {
    expect(formatG16(1778577243512336.5)).toBe('1778577243512336');
    expect(formatG16(1778577243512337.5)).toBe('1778577243512338');
  });

  it('reads integer tokens with strtoll/strtoull: no sign after e means the digits before it', () => {
    expect(fluentBitNumber('1E9')).toBe('1');
    expect(fluentBitNumber('1778577243512337123')).toBe('1778577243512337123');
    expect(fluentBitNumber('18446744073709551615')).toBe('18446744073709551615');
    expect(fluentBitNumber('18446744073709551616')).toBe('1.844674407370955e+19');
    expect(fluentBitNumber('-9223372036854775809')).toBe('-9223372036854775808.0');
  });

  it('drops whitespace, keeps key order, keeps only the last of duplicate keys, re-escapes strings', () => {
    expect(fluentBitJson('{ "b" : 1 , "a" : [ 1 , 2.50 , { } ] , "b" : "x\\u00e9\\/\\n\\u0001\\ud800" }')).toBe('{"a":[1,2.5,{}],"b":"xé/\\n\\u0001\ufffd"}');
  });

  // printf rounds the double's exact binary value, ties to even; JavaScript's toPrecision breaks ties upward.
  function roundedLikeC(x: number): number {
    const exact = Math.abs(x).toExponential(60); // the exact value's leading digits (enough to see a tie at the 17th)
    const [mantissa = '', exponent = '0'] = exact.split('e');
    const digits = mantissa.replace('.', '');
    const tie = digits[16] === '5' && /^0*$/.test(digits.slice(17));
    if (!tie || Number(digits[15]) % 2 === 1) return Number(x.toPrecision(16));
    // an exact tie with an even 16th digit: round down (towards the even digit)
    const down = `${digits.slice(0, 1)}.${digits.slice(1, 16)}e${exponent}`;
    return Math.sign(x) * Number(down);
  }

  it('rounds an exact tie at the 17th digit to even, as printf does', () => {
    expect(formatFluentBitDouble(-17908923436357.125)).toBe('-17908923436357.12');
  });

  it('prints any double as C would: the value read back is the double rounded to 16 significant digits', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const printed = formatFluentBitDouble(x);
        expect(Number(printed)).toBe(Number.isInteger(x) && Math.abs(x) < 2 ** 63 ? x : roundedLikeC(x));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps every string value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(JSON.parse(fluentBitJson(JSON.stringify({ s })))).toEqual({ s });
      }),
      { numRuns: 500 },
    );
  });
});
