import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesLike, parseLikePattern } from '../src/like-pattern.js';

describe('parseLikePattern', () => {
  it.each([
    ['order-*', [{ kind: 'literal', text: 'order-' }, { kind: 'any' }]],
    ['?anual-review', [{ kind: 'one' }, { kind: 'literal', text: 'anual-review' }]],
    ['*-sync', [{ kind: 'any' }, { kind: 'literal', text: '-sync' }]],
    ['a**b', [{ kind: 'literal', text: 'a' }, { kind: 'any' }, { kind: 'literal', text: 'b' }]],
    ['a*?*b', [{ kind: 'literal', text: 'a' }, { kind: 'any' }, { kind: 'one' }, { kind: 'any' }, { kind: 'literal', text: 'b' }]],
    ['100%_done', [{ kind: 'literal', text: '100%_done' }]],
    ['back\\slash[x]', [{ kind: 'literal', text: 'back\\slash[x]' }]],
    ['??', [{ kind: 'one' }, { kind: 'one' }]],
    ['', []],
  ])('%j', (pattern, expected) => {
    expect(parseLikePattern(pattern)).toEqual(expected);
  });

  it('matches with * as any run, ? as one character, everything else literal', () => {
    const m = (p: string, v: string): boolean => matchesLike(parseLikePattern(p), v);
    expect(m('order-*', 'order-intake')).toBe(true);
    expect(m('order-*', 'order-')).toBe(true);
    expect(m('order-*', 'Order-intake')).toBe(false);
    expect(m('?anual-review', 'manual-review')).toBe(true);
    expect(m('?anual-review', 'anual-review')).toBe(false);
    expect(m('100%', '100%')).toBe(true);
    expect(m('100%', '1000')).toBe(false);
    expect(m('a_c', 'abc')).toBe(false);
    expect(m('a_c', 'a_c')).toBe(true);
    expect(m('?', '📦')).toBe(true);
  });

  it('agrees with an equivalent regular expression (property)', () => {
    const alphabet = fc.constantFrom('a', 'b', '%', '_', '*', '?', '.');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 8 }).map((cs) => cs.join('')), fc.array(fc.constantFrom('a', 'b', '%', '_', '.'), { maxLength: 8 }).map((cs) => cs.join('')), (pattern, value) => {
        const regex = new RegExp(`^${Array.from(pattern).map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('')}$`, 's');
        expect(matchesLike(parseLikePattern(pattern), value)).toBe(regex.test(value));
      }),
    );
  });
});
