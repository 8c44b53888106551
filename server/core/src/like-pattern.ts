import type { LikeSegment } from './reader.js';

/**
 * `*` matches any run (also empty), `?` exactly one character, everything else literally —
 * SQL's `%` and `_` included, so backends never see a wildcard they did not get from `*`/`?`.
 * Adjacent literals are merged and runs of `*` collapse to one.
 */
export function parseLikePattern(pattern: string): LikeSegment[] {
  const segments: LikeSegment[] = [];
  let literal = '';
  const flush = (): void => {
    if (literal !== '') segments.push({ kind: 'literal', text: literal });
    literal = '';
  };
  // Iterating by code point keeps a surrogate pair together as one literal character.
  for (const ch of pattern) {
    if (ch === '*') {
      flush();
      if (segments.at(-1)?.kind !== 'any') segments.push({ kind: 'any' });
    } else if (ch === '?') {
      flush();
      segments.push({ kind: 'one' });
    } else {
      literal += ch;
    }
  }
  flush();
  return segments;
}

/** Reference semantics of a parsed pattern (used by tests and in-memory readers). */
export function matchesLike(pattern: readonly LikeSegment[], value: string): boolean {
  const chars = Array.from(value);
  const memo = new Map<string, boolean>();
  const match = (si: number, ci: number): boolean => {
    const key = `${si}:${ci}`;
    const cached = memo.get(key);
    if (cached !== undefined) return cached;
    let result: boolean;
    const segment = pattern[si];
    if (segment === undefined) result = ci === chars.length;
    else if (segment.kind === 'one') result = ci < chars.length && match(si + 1, ci + 1);
    else if (segment.kind === 'any') result = match(si + 1, ci) || (ci < chars.length && match(si, ci + 1));
    else {
      const text = Array.from(segment.text);
      result = text.every((c, i) => chars[ci + i] === c) && match(si + 1, ci + text.length);
    }
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}
