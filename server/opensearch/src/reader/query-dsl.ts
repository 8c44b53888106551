// Small builders for OpenSearch query DSL. Queries are built in filter context (no scoring), where `bool` is plain
// set logic over the documents: `must_not` is the exact complement, so a leaf on a missing field is false and its
// negation true — the two-valued logic CONTRACT §2 asks for, without extra null handling.

export type Query = Readonly<Record<string, unknown>>;

export const MATCH_ALL: Query = Object.freeze({ match_all: {} });
export const MATCH_NONE: Query = Object.freeze({ match_none: {} });

/** index.max_terms_count's default: the most values one terms query may carry. */
export const MAX_TERMS_COUNT = 65_536;

const isAll = (q: Query): boolean => q === MATCH_ALL;
const isNone = (q: Query): boolean => q === MATCH_NONE;

/** All of the queries (empty: everything). */
export function and(queries: readonly Query[]): Query {
  if (queries.some(isNone)) return MATCH_NONE;
  const kept = queries.filter((q) => !isAll(q));
  if (kept.length === 0) return MATCH_ALL;
  if (kept.length === 1) return kept[0]!;
  return { bool: { filter: kept } };
}

/** Any of the queries (empty: nothing). */
export function or(queries: readonly Query[]): Query {
  if (queries.some(isAll)) return MATCH_ALL;
  const kept = queries.filter((q) => !isNone(q));
  if (kept.length === 0) return MATCH_NONE;
  if (kept.length === 1) return kept[0]!;
  return { bool: { should: kept, minimum_should_match: 1 } };
}

/** Exactly the documents `query` does not match (missing fields included). */
export function not(query: Query): Query {
  if (isAll(query)) return MATCH_NONE;
  if (isNone(query)) return MATCH_ALL;
  return { bool: { must_not: [query] } };
}

export function term(field: string, value: string | number | boolean): Query {
  return { term: { [field]: { value } } };
}

export function terms(field: string, values: readonly (string | number)[]): Query {
  const distinct = [...new Set(values)];
  if (distinct.length === 0) return MATCH_NONE;
  if (distinct.length === 1) return term(field, distinct[0]!);
  return { terms: { [field]: distinct } };
}

export function exists(field: string): Query {
  return { exists: { field } };
}

export type RangeOp = 'gt' | 'gte' | 'lt' | 'lte';

export function range(field: string, bounds: Partial<Record<RangeOp, string | number>>): Query {
  return { range: { [field]: bounds } };
}

/** Lucene wildcard syntax: `*`, `?` and the escape `\`; everything else is literal (unlike regexp, no other operator). */
export function escapeWildcard(text: string): string {
  return text.replace(/[\\*?]/g, (c) => `\\${c}`);
}

/** Patterns up to this many code points run as wildcard queries (measured: 300 pass, 600 exceed Lucene's effort). */
export const WILDCARD_LIMIT = 200;
