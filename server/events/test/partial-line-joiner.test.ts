import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartialLineJoiner } from '../src/container-log/partial-line-joiner.js';

interface Part {
  readonly stream: string;
  readonly text: string;
  readonly last: boolean;
  /** Index of the line among its stream's lines. */
  readonly line: number;
}

/** Each line cut at the given offsets into parts, the last one marked. */
function cut(stream: string, lines: readonly { text: string; cuts: readonly number[] }[]): Part[] {
  return lines.flatMap(({ text, cuts }, line) => {
    const offsets = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
    const bounds = [0, ...offsets, text.length];
    const texts = bounds.slice(1).map((end, i) => text.slice(bounds[i], end));
    return texts.map((t, i) => ({ stream, text: t, last: i === texts.length - 1, line }));
  });
}

/** Merges the streams' parts in an order the choices pick, keeping each stream's own order. */
function interleave(streams: readonly Part[][], choices: readonly number[]): Part[] {
  const queues = streams.map((s) => [...s]);
  const out: Part[] = [];
  let c = 0;
  while (queues.some((q) => q.length > 0)) {
    const open = queues.filter((q) => q.length > 0);
    out.push(open[(choices[c++] ?? 0) % open.length]!.shift()!);
  }
  return out;
}

const lines = fc.array(fc.record({ text: fc.string({ maxLength: 12 }), cuts: fc.array(fc.nat({ max: 12 }), { maxLength: 4 }) }), { maxLength: 6 });

describe('PartialLineJoiner', () => {
  it('rejoins any split of any lines, whatever the interleaving of streams', () => {
    fc.assert(fc.property(fc.array(lines, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 60 }), (streams, choices) => {
      const joiner = new PartialLineJoiner<Part>();
      const joined = new Map<string, string[]>();
      for (const part of interleave(streams.map((s, i) => cut(`s${i}`, s)), choices)) {
        const whole = joiner.add(part.stream, part, part.last);
        if (whole) joined.set(part.stream, [...(joined.get(part.stream) ?? []), whole.map((p) => p.text).join('')]);
      }
      streams.forEach((s, i) => expect(joined.get(`s${i}`) ?? []).toEqual(s.map((l) => l.text)));
      expect(joiner.drain()).toEqual([]);
    }));
  });

  it('hands out unfinished lines in the order their first parts were read, and forgets them', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.boolean()), { maxLength: 30 }), (reads) => {
      const joiner = new PartialLineJoiner<string>();
      // What is still open per key, with the position of its first part.
      const open = new Map<string, { first: number; parts: string[] }>();
      reads.forEach(([key, last], i) => {
        joiner.add(key, `${key}${i}`, last);
        if (last) open.delete(key);
        else if (open.has(key)) open.get(key)!.parts.push(`${key}${i}`);
        else open.set(key, { first: i, parts: [`${key}${i}`] });
      });
      const expected = [...open.values()].sort((x, y) => x.first - y.first).map((o) => o.parts);
      expect(joiner.drain()).toEqual(expected);
      expect(joiner.drain()).toEqual([]);
    }));
  });

  it('a last part with nothing held is a line of one part; held() and take() show and remove what is held', () => {
    const joiner = new PartialLineJoiner<string>();
    expect(joiner.add('x', 'whole', true)).toEqual(['whole']);
    expect(joiner.add('x', 'a', false)).toBeUndefined();
    expect(joiner.add('y', 'b', false)).toBeUndefined();
    expect(joiner.add('x', 'c', false)).toBeUndefined();
    expect(joiner.held('x')).toEqual(['a', 'c']);
    expect(joiner.take('x')).toEqual(['a', 'c']);
    expect(joiner.held('x')).toEqual([]);
    expect(joiner.take('x')).toEqual([]);
    expect(joiner.add('x', 'd', true)).toEqual(['d']);
    expect(joiner.add('y', 'e', true)).toEqual(['b', 'e']);
  });
});
