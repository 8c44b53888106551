// The normalizer's fields for an error.detail beyond the keyword limit (src/long-detail.ts) and the reader's check of
// a like pattern on the stored text (reader/long-detail-filter.ts likeMatches), over texts whose lengths lie around
// the limit and beyond, of ASCII, 2-byte and non-BMP characters. The backends' answers themselves are compared in
// cross-backend.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LikeSegment } from '@workflow-index/core';
import { CHUNK_OVERLAP, KEYWORD_LIMIT, keywordChunks, keywordHead, longDetailFields } from '../src/long-detail.js';
import { likeMatches } from '../src/reader/long-detail-filter.js';

const EMOJI = '😀';
/** Text of about `units` UTF-16 units from a small alphabet (so substrings repeat), pairs included. */
const text = (min: number, max: number): fc.Arbitrary<string> =>
  fc.tuple(fc.integer({ min, max }), fc.array(fc.constantFrom('a', 'b', 'é', EMOJI, '\n'), { minLength: 1, maxLength: 4 }), fc.nat())
    .map(([units, alphabet, seed]) => {
      let s = '';
      for (let i = 0; s.length < units; i++) s += alphabet[(seed + i * 7 + (i >> 3)) % alphabet.length]!;
      return s;
    });

const wellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe('long error.detail fields', () => {
  it('only a detail beyond the limit is marked; its head is its first units, its chunks cover it with the overlap', () => {
    fc.assert(
      fc.property(text(KEYWORD_LIMIT - 6, KEYWORD_LIMIT + 6), (detail) => {
        const fields = longDetailFields(detail);
        expect(fields.detail_long === true).toBe(detail.length > KEYWORD_LIMIT);
        if (fields.detail_long !== true) return;
        expect(detail.startsWith(fields.detail_head!)).toBe(true);
        expect(fields.detail_head!.length).toBeGreaterThanOrEqual(KEYWORD_LIMIT - 1);
        expect(wellFormed(fields.detail_head!)).toBe(true);
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it('every piece of at most CHUNK_OVERLAP units lies inside one chunk; chunks are indexable and well-formed', () => {
    fc.assert(
      fc.property(text(KEYWORD_LIMIT + 1, 5 * KEYWORD_LIMIT), fc.nat(), fc.integer({ min: 1, max: CHUNK_OVERLAP }), (detail, at, length) => {
        const chunks = keywordChunks(detail);
        for (const c of chunks) {
          expect(c.length).toBeLessThanOrEqual(KEYWORD_LIMIT);
          expect(wellFormed(c)).toBe(true);
        }
        expect(chunks[0]).toBe(keywordHead(detail));
        expect(detail.endsWith(chunks[chunks.length - 1]!)).toBe(true);
        let start = at % (detail.length - length + 1);
        if (/[\uDC00-\uDFFF]/.test(detail[start]!)) start--;
        const piece = detail.slice(start, start + length);
        expect(chunks.some((c) => c.includes(piece))).toBe(true);
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it('likeMatches is PostgreSQL LIKE over code points (a regular-expression reference)', () => {
    const segment: fc.Arbitrary<LikeSegment> = fc.oneof(
      fc.constant<LikeSegment>({ kind: 'any' }),
      fc.constant<LikeSegment>({ kind: 'one' }),
      fc.array(fc.constantFrom('a', 'b', 'é', EMOJI), { minLength: 1, maxLength: 3 }).map((cs): LikeSegment => ({ kind: 'literal', text: cs.join('') })),
    );
    const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'é', EMOJI), { maxLength: 12 }), fc.array(segment, { maxLength: 6 }), (chars, pattern) => {
        const t = chars.join('');
        const reference = new RegExp(`^${pattern.map((s) => (s.kind === 'any' ? '[^]*' : s.kind === 'one' ? '[^]' : escape(s.text))).join('')}$`, 'u');
        expect(likeMatches(t, pattern)).toBe(reference.test(t));
      }),
      { numRuns: 2000, seed: 13 },
    );
  });
});
