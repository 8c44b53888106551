// The test helpers that play a forwarder: Fluent Bit's number printing, key reordering, CRI time stamps.
import { describe, expect, it } from 'vitest';
import { flbDouble, reprintNumbers, rotateMembers, topLevelMembers } from './support/forwarder-reprint.js';
import { criLog, rfc3339Nano } from '@workflow-index/testkit';

describe('forwarder re-printing', () => {
  it('prints doubles as C printf %.16g and integral doubles as x.0', () => {
    expect(flbDouble(1.7954415230510702e9)).toBe('1795441523.05107');
    expect(flbDouble(1.778577243512337e9)).toBe('1778577243.512337');
    expect(flbDouble(5)).toBe('5.0');
    expect(flbDouble(-3e-7)).toBe('-3e-07');
    expect(flbDouble(1e21)).toBe('1e+21');
    expect(flbDouble(0.1)).toBe('0.1');
    expect(flbDouble(2.5)).toBe('2.5');
  });

  it('re-prints only double literals outside strings; integers, strings and escapes stay as printed', () => {
    const line = '{"a":1.7954415230510702E9,"b":"1.5E9 \\"2.0\\"","c":[0,-1,2.50,-3.0E-7,12345678901234567890],"d":{"e":1.0E21}}';
    expect(reprintNumbers(line)).toBe('{"a":1795441523.05107,"b":"1.5E9 \\"2.0\\"","c":[0,-1,2.5,-3e-07,12345678901234567890],"d":{"e":1e+21}}');
  });

  it('rotates top-level members without touching nested ones', () => {
    const line = '{"x":{"p":1,"q":[1,2]},"y":"a,b}","z":3}';
    expect(topLevelMembers(line)).toEqual(['"x":{"p":1,"q":[1,2]}', '"y":"a,b}"', '"z":3']);
    expect(rotateMembers(line, 1)).toBe('{"y":"a,b}","z":3,"x":{"p":1,"q":[1,2]}}');
    expect(JSON.parse(rotateMembers(line, 2))).toEqual(JSON.parse(line));
  });

  it('writes CRI lines with Go RFC3339Nano times and P/F parts split at byte offsets', () => {
    expect(rfc3339Nano(1_795_441_523_051_070_200n)).toBe('2026-11-23T13:45:23.0510702Z');
    expect(rfc3339Nano(1_795_441_523_000_000_000n)).toBe('2026-11-23T13:45:23Z');
    const log = criLog([{ content: 'é'.repeat(3), timeNanos: 1_795_441_523_100_000_000n }], 4).toString('latin1');
    expect(log.split('\n').slice(0, -1)).toEqual([
      '2026-11-23T13:45:23.1Z stdout P \xC3\xA9\xC3\xA9',
      '2026-11-23T13:45:23.1Z stdout F \xC3\xA9',
    ]);
  });
});
