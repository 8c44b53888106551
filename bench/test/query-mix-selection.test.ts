// bench:query --queries (both backends): which rows of the mix a run measures.
import { describe, expect, it } from 'vitest';
import { selectQueries } from '../mix/query-mix.js';

const mix = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];

describe('selectQueries', () => {
  it('no --queries: the whole mix; named rows in the order of the mix; names beyond the mix only when allowed', () => {
    expect(selectQueries(mix, undefined)).toEqual(mix);
    expect(selectQueries(mix, 'c, a')).toEqual([{ name: 'a' }, { name: 'c' }]);
    expect(selectQueries(mix, 'b,heavy', ['heavy'])).toEqual([{ name: 'b' }]);
    expect(() => selectQueries(mix, 'b,heavy')).toThrow('--queries: unknown heavy; the mix: a, b, c');
  });

  it('a list naming nothing is refused (it measured nothing and printed a run)', () => {
    for (const empty of ['', ' ', ',', ' , ']) expect(() => selectQueries(mix, empty)).toThrow('--queries names no query');
  });
});
