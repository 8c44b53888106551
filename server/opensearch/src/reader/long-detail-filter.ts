// String filters on a field whose long values the keyword does not index (error.detail beyond IGNORE_ABOVE:
// ../long-detail.ts). The filter is exact in two parts:
//   unmarked documents  the keyword query (filter-dsl.ts stringDsl), as for every other string field
//   marked documents    (`<flag>: true`, the text is longer than IGNORE_ABOVE UTF-16 units and not null) either a query
//                       that decides them (isNull; eq/in/ne of a value the keyword would index, which no marked text
//                       equals; startsWith of a value no longer than the indexed head; contains of at most
//                       WILDCARD_LIMIT code points, a wildcard on the overlapping chunks), or the ids of those whose
//                       `_source` text passes PostgreSQL's rule (source-check.ts), read after a prefilter: the head
//                       (eq/in/ne of a long value, a long startsWith, a like pattern's leading literal) and the chunks
//                       (a 64-code-point slice of a long contains, of endsWith's end, of each of a like pattern's
//                       literals); a like of wildcards only reads every marked document.
import type { SimpleFilterNode, LikeSegment, StringPredicate } from '@workflow-index/core';
import { KEYWORD_LIMIT, keywordHead } from '../long-detail.js';
import type { FilterFields, LongStringDoc } from './fields.js';
import { filterLeaves } from './filter-leaves.js';
import { MATCH_ALL, MATCH_NONE, type Query, and, escapeWildcard, not, or, term, terms, WILDCARD_LIMIT } from './query-dsl.js';
import type { Searcher } from './search-requests.js';
import { checkedIds, idsQuery } from './source-check.js';

/** The ids of the marked documents that passed the check of a predicate (resolveLongStrings). */
export type LongStringChecks = (doc: LongStringDoc, predicate: StringPredicate) => readonly string[] | undefined;

export const NO_LONG_STRINGS: LongStringChecks = () => undefined;

type Plan =
  | { readonly decided: Query }
  /** Read the marked documents of `candidates`; they match when `rule` holds (or, `complement`, when it does not). */
  | { readonly candidates: Query; readonly rule: (text: string) => boolean; readonly complement?: true };

const isLong = (value: string): boolean => value.length > KEYWORD_LIMIT;

/** How the marked documents (a non-null text beyond the limit) are answered. */
function plan(doc: LongStringDoc, p: StringPredicate): Plan {
  switch (p.op) {
    case 'isNull':
      return { decided: p.value ? MATCH_NONE : MATCH_ALL };
    case 'eq':
    case 'ne': {
      const value = p.value;
      if (!isLong(value)) return { decided: p.op === 'eq' ? MATCH_NONE : MATCH_ALL };
      return { candidates: term(doc.head, keywordHead(value)), rule: (t) => t === value, ...(p.op === 'ne' ? { complement: true as const } : {}) };
    }
    case 'in': {
      const long = p.values.filter(isLong);
      if (long.length === 0) return { decided: MATCH_NONE };
      return { candidates: terms(doc.head, long.map(keywordHead)), rule: (t) => long.includes(t) };
    }
    case 'startsWith': {
      const value = p.value;
      // The head holds at least KEYWORD_LIMIT − 1 units (one less when a surrogate pair would be cut).
      if (value.length < KEYWORD_LIMIT) return { decided: { prefix: { [doc.head]: { value } } } };
      return { candidates: { prefix: { [doc.head]: { value: keywordHead(value) } } }, rule: (t) => t.startsWith(value) };
    }
    case 'contains': {
      const value = p.value;
      if (value === '') return { decided: MATCH_ALL };
      // Up to WILDCARD_LIMIT code points (at most 2 × 200 units, within CHUNK_OVERLAP): it occurs iff a chunk holds it.
      if (codePointLength(value) <= WILDCARD_LIMIT) return { decided: inChunks(doc, value) };
      return { candidates: inChunks(doc, slice(value, 0)), rule: (t) => t.includes(value) };
    }
    case 'endsWith': {
      const value = p.value;
      if (value === '') return { decided: MATCH_ALL };
      return { candidates: inChunks(doc, slice(value, Math.max(0, codePointLength(value) - SLICE))), rule: (t) => t.endsWith(value) };
    }
    case 'like': {
      const pattern = p.pattern;
      const head = pattern[0];
      // Every literal of the pattern occurs in the text: each (its first 64 code points, the 8 longest) in a chunk.
      const literals = [...new Set(pattern.flatMap((x) => (x.kind === 'literal' && x.text !== '' ? [slice(x.text, 0)] : [])))]
        .sort((a, b) => b.length - a.length)
        .slice(0, 8);
      const candidates = and([
        head?.kind === 'literal' && head.text !== '' ? { prefix: { [doc.head]: { value: keywordHead(head.text) } } } : MATCH_ALL,
        ...literals.map((literal) => inChunks(doc, literal)),
      ]);
      return { candidates, rule: (t) => likeMatches(t, pattern) };
    }
  }
}

/** Code points of a literal a chunk query looks for when the whole text cannot be (a cheap automaton, within the overlap). */
const SLICE = 64;
const codePointLength = (text: string): number => Array.from(text).length;
const slice = (text: string, from: number): string => Array.from(text).slice(from, from + SLICE).join('');

/** Marked documents one of whose chunks contains `text` (at most CHUNK_OVERLAP units: then exactly those holding it). */
function inChunks(doc: LongStringDoc, text: string): Query {
  return { wildcard: { [doc.chunks]: { value: `*${escapeWildcard(text)}*` } } };
}

/** The filter on one long-string field: the keyword query on unmarked documents, the plan's answer on marked ones. */
export function longStringDsl(doc: LongStringDoc, predicate: StringPredicate, keywordQuery: Query, checks: LongStringChecks): Query {
  const marked = term(doc.flag, true);
  const how = plan(doc, predicate);
  let answer: Query;
  if ('decided' in how) answer = how.decided;
  else {
    const ids = checks(doc, predicate);
    if (ids === undefined) throw new Error(`the ${doc.text} filter's stored-text check was not resolved before translation`);
    answer = how.complement === true ? not(idsQuery(ids)) : idsQuery(ids);
  }
  return or([and([not(marked), keywordQuery]), and([marked, answer])]);
}

const keyOf = (doc: LongStringDoc, predicate: StringPredicate): string => `${doc.text}\u0000${JSON.stringify(predicate)}`;


/**
 * Reads and checks, for each predicate of the filter on a long-string field that needs it, the marked documents among
 * `served`; one search (in pages) per distinct predicate, only over marked documents.
 */
export async function resolveLongStrings<S extends string, T extends string>(
  requests: Searcher,
  index: string,
  filter: SimpleFilterNode<S, T> | null,
  fields: FilterFields<S, T>,
  served: Query,
): Promise<LongStringChecks> {
  const checked = new Map<string, string[]>();
  const leaves = filterLeaves(filter, (n): [LongStringDoc, StringPredicate] | undefined => {
    const doc = n.kind === 'string' ? fields.longString?.[n.field] : undefined;
    return doc === undefined || n.kind !== 'string' ? undefined : [doc, n.predicate];
  });
  for (const [doc, predicate] of leaves) {
    const key = keyOf(doc, predicate);
    const how = plan(doc, predicate);
    if (checked.has(key) || 'decided' in how) continue;
    const query = and([served, term(doc.flag, true), how.candidates]);
    checked.set(key, await checkedIds(requests, index, query, doc.text, (text) => text !== null && how.rule(text)));
  }
  return (doc, predicate) => checked.get(keyOf(doc, predicate));
}

/**
 * PostgreSQL's LIKE on a parsed pattern over code points (`_` is one character, `%` any run): the two-pointer walk with
 * one backtrack point that filter-dsl.ts's GLOB_SCRIPT runs on indexed keywords.
 */
export function likeMatches(text: string, pattern: readonly LikeSegment[]): boolean {
  const t = Array.from(text, (c) => c.codePointAt(0)!);
  const p = pattern.flatMap((s) => (s.kind === 'literal' ? Array.from(s.text, (c) => c.codePointAt(0)!) : [s.kind === 'any' ? -1 : -2]));
  let [i, j, star, mark] = [0, 0, -1, 0];
  while (i < t.length) {
    if (j < p.length && (p[j] === -2 || p[j] === t[i])) {
      i++;
      j++;
    } else if (j < p.length && p[j] === -1) {
      star = j;
      mark = i;
      j++;
    } else if (star !== -1) {
      j = star + 1;
      mark++;
      i = mark;
    } else return false;
  }
  while (j < p.length && p[j] === -1) j++;
  return j === p.length;
}
