// The Reader's filter tree (server/core/src/reader.ts) as OpenSearch query DSL over the normalized documents.
// Semantics of CONTRACT §2: a leaf on a missing value is false (`ne` needs the field present), `not` is the exact
// complement (bool must_not), `in []` matches nothing, string matching is case-sensitive on keywords, `like` patterns
// arrive parsed and become wildcard queries with every literal character escaped.
import type { SimpleFilterNode, IntPredicate, JsonField, LikeSegment, StringPredicate, TimePredicate } from '@workflow-index/core';
import { parseDateTimeToMicros } from '@workflow-index/core';
import { leafEntries } from '../json-leaves.js';
import type { FilterFields } from './fields.js';
import { type LongStringChecks, longStringDsl, NO_LONG_STRINGS } from './long-detail-filter.js';
import { MATCH_ALL, MATCH_NONE, type Query, and, escapeWildcard, exists, not, or, range, term, terms, WILDCARD_LIMIT } from './query-dsl.js';

export { escapeWildcard, WILDCARD_LIMIT } from './query-dsl.js';
import { idsQuery } from './source-check.js';

/** Ids of documents whose capped or unindexed leaves were checked against the payload text (json-fallback.ts). */
export type JsonFallbackIds = (field: JsonField, path: readonly string[], value: string) => readonly string[];

export const NO_FALLBACK: JsonFallbackIds = () => [];

export function filterDsl<S extends string, T extends string>(
  node: SimpleFilterNode<S, T> | null,
  fields: FilterFields<S, T>,
  fallback: JsonFallbackIds = NO_FALLBACK,
  longStrings: LongStringChecks = NO_LONG_STRINGS,
): Query {
  if (node === null) return MATCH_ALL;
  switch (node.kind) {
    case 'and':
      return and(node.nodes.map((n) => filterDsl(n, fields, fallback, longStrings)));
    case 'or':
      return or(node.nodes.map((n) => filterDsl(n, fields, fallback, longStrings)));
    case 'not':
      return not(filterDsl(node.node, fields, fallback, longStrings));
    case 'string': {
      const keywordQuery = stringDsl(fields.string[node.field], node.predicate);
      const long = fields.longString?.[node.field];
      return long === undefined ? keywordQuery : longStringDsl(long, node.predicate, keywordQuery, longStrings);
    }
    case 'time':
      return timeDsl(fields.time[node.field], node.predicate);
    case 'int':
      return intDsl(fields.int[node.field], node.predicate);
    case 'json': {
      const doc = fields.json[node.field];
      const checked = fallback(node.field, node.path, node.value);
      return or([terms(doc.leaves, leafEntries(node.path, node.value)), idsQuery(checked)]);
    }
  }
}

/**
 * The field has an indexed value. (A keyword longer than its `ignore_above` — only error.detail has one, fields.ts — is
 * not indexed: long-detail-filter.ts answers those documents.)
 */
export function present(field: string): Query {
  return exists(field);
}

function stringDsl(field: string, p: StringPredicate): Query {
  switch (p.op) {
    case 'eq':
      return term(field, p.value);
    case 'ne':
      return and([present(field), not(term(field, p.value))]);
    case 'in':
      return terms(field, p.values);
    case 'isNull':
      return p.value ? not(present(field)) : present(field);
    case 'startsWith':
      return { prefix: { [field]: { value: p.value } } };
    case 'contains':
      return likeDsl(field, [{ kind: 'any' }, { kind: 'literal', text: p.value }, { kind: 'any' }]);
    case 'endsWith':
      return likeDsl(field, [{ kind: 'any' }, { kind: 'literal', text: p.value }]);
    case 'like':
      return likeDsl(field, p.pattern);
  }
}


/**
 * A parsed `like` pattern as the cheapest exact query: a term when it has no wildcard, a prefix query for
 * `literal*`, else a wildcard query (Lucene's `?` is one code point, as PostgreSQL's `_` in UTF-8). Lucene refuses to
 * build the automaton of a long wildcard (`*` + 600 characters + `*` already exceeds its determinization effort), or of
 * a short one with many `?` after a `*` and a literal (explodesWhenDeterminized), so such a pattern is matched by a
 * script instead (likeScriptDsl).
 */
export function likeDsl(field: string, pattern: readonly LikeSegment[]): Query {
  const segments = mergeLiterals(pattern);
  if (segments.every((s) => s.kind === 'literal')) return term(field, segments.map((s) => (s as { text: string }).text).join(''));
  const [head, tail] = [segments[0], segments.slice(1)];
  if (segments.length === 2 && head?.kind === 'literal' && tail[0]?.kind === 'any') return { prefix: { [field]: { value: head.text } } };
  if (patternLength(segments) > WILDCARD_LIMIT || explodesWhenDeterminized(segments)) return likeScriptDsl(field, segments);
  const wildcard = segments.map((s) => (s.kind === 'literal' ? escapeWildcard(s.text) : s.kind === 'any' ? '*' : '?')).join('');
  return { wildcard: { [field]: { value: wildcard } } };
}

/**
 * `?`s after a `*` and a literal: from there on the matcher can be at any of those positions at once, and Lucene's
 * determinization needs a state per subset of them (`*X` + 13 `?`, or `*` + a UUID mask `????????-????-…`, exceed its
 * work limit and the node refuses the query). Measured: 12 pass, 13 fail; random patterns with fewer than 8 such `?`
 * never failed. At this many the script answers instead (the same rows, reading the prefiltered documents).
 */
const BRANCHING_WILDCARDS = 8;

function explodesWhenDeterminized(segments: readonly LikeSegment[]): boolean {
  let afterStar = false;
  let afterLiteral = false;
  let branching = 0;
  for (const s of segments) {
    if (s.kind === 'any') afterStar = true;
    else if (s.kind === 'literal') afterLiteral ||= afterStar;
    else if (afterLiteral) branching++;
  }
  return branching >= BRANCHING_WILDCARDS;
}

/** The literal slice a long pattern's prefilter searches for (a wildcard that is always cheap to build). */
const PREFILTER_SLICE = 64;

function patternLength(segments: readonly LikeSegment[]): number {
  return segments.reduce((n, s) => n + (s.kind === 'literal' ? [...s.text].length : 1), 0);
}

// Glob matching over code points (`*` = -1, `?` = -2), the classic two-pointer walk with one backtrack point: exact for
// patterns of `*`, `?` and literals. It reads the keyword's doc values, i.e. the same indexed value the queries see.
const GLOB_SCRIPT = `
if (doc[params.f].size() == 0) { return false; }
String s = doc[params.f].value;
int n = s.codePointCount(0, s.length());
int[] t = new int[n];
int k = 0;
for (int x = 0; x < s.length(); ) { int c = s.codePointAt(x); t[k++] = c; x += Character.charCount(c); }
def p = params.p;
int m = p.length;
int i = 0; int j = 0; int star = -1; int mark = 0;
while (i < n) {
  if (j < m && (p[j] == -2 || p[j] == t[i])) { i++; j++; }
  else if (j < m && p[j] == -1) { star = j; mark = i; j++; }
  else if (star != -1) { j = star + 1; mark++; i = mark; }
  else { return false; }
}
while (j < m && p[j] == -1) { j++; }
return j == m;`;

/**
 * A long pattern: a cheap prefilter (the pattern's leading literal as a prefix, and a slice of its longest literal as
 * `*slice*`) narrows the documents, and a script checks the whole pattern on each of them.
 */
export function likeScriptDsl(field: string, segments: readonly LikeSegment[]): Query {
  const codes = segments.flatMap((s) => (s.kind === 'literal' ? [...s.text].map((c) => c.codePointAt(0)!) : [s.kind === 'any' ? -1 : -2]));
  const literals = segments.filter((s): s is { kind: 'literal'; text: string } => s.kind === 'literal');
  const longest = literals.reduce<string>((best, s) => (s.text.length > best.length ? s.text : best), '');
  const head = segments[0];
  const prefilter = [
    ...(head?.kind === 'literal' ? [{ prefix: { [field]: { value: head.text } } }] : []),
    ...(longest === '' ? [exists(field)] : [{ wildcard: { [field]: { value: `*${escapeWildcard([...longest].slice(0, PREFILTER_SLICE).join(''))}*` } } }]),
  ];
  return and([...prefilter, { script: { script: { lang: 'painless', source: GLOB_SCRIPT, params: { f: field, p: codes } } } }]);
}

/** Adjacent literals joined, runs of `*` collapsed (equivalent patterns, fewer automaton states). */
function mergeLiterals(pattern: readonly LikeSegment[]): LikeSegment[] {
  const out: LikeSegment[] = [];
  for (const s of pattern) {
    const last = out[out.length - 1];
    if (s.kind === 'literal' && s.text === '') continue;
    if (s.kind === 'literal' && last?.kind === 'literal') out[out.length - 1] = { kind: 'literal', text: last.text + s.text };
    else if (s.kind === 'any' && last?.kind === 'any') continue;
    else out.push(s);
  }
  if (out.length === 0) out.push({ kind: 'literal', text: '' });
  return out;
}

/** A Timestamp as the `*_us` long, sent as a string so no double rounds it. */
export function micros(timestamp: string): string {
  return parseDateTimeToMicros(timestamp).toString();
}

function timeDsl(field: string, p: TimePredicate): Query {
  switch (p.op) {
    case 'isNull':
      return p.value ? not(exists(field)) : exists(field);
    case 'eq':
      return term(field, micros(p.value));
    case 'ne':
      return and([exists(field), not(term(field, micros(p.value)))]);
    case 'between':
      return range(field, { gte: micros(p.from), lte: micros(p.to) });
    default:
      return range(field, { [p.op]: micros(p.value) });
  }
}

function intDsl(field: string, p: IntPredicate): Query {
  switch (p.op) {
    case 'eq':
      return term(field, p.value);
    case 'ne':
      return and([exists(field), not(term(field, p.value))]);
    case 'in':
      return p.values.length === 0 ? MATCH_NONE : terms(field, p.values);
    default:
      return range(field, { [p.op]: p.value });
  }
}
