// The JSON operators beyond eq (reader.ts JsonPredicate) on the normalized documents, with PostgreSQL's semantics
// (postgresql-filter-sql.ts jsonOperatorSql):
//   exists  a term on `*_paths` (every path present, JSON null included; json-paths.ts)
//   ne      present and none of eq's leaf entries (an object, array or null at the path differs from every value)
//   in      any of eq's leaf entries
//   contains a wildcard inside the path's string leaves (`<path>\0s:*text*`)
//   gt…lte  a number operand: a keyword range inside the path's `*_numbers` (order-preserving form, exact digits);
//           otherwise a keyword range inside the path's string leaves (UTF-8 byte order = code point order)
// These queries only decide documents whose leaves and paths are complete (not capped, normalized with the paths);
// for the others `jsonPredicateMatches` checks the payload text itself (the reader reads those few documents).
import type { JsonPredicate } from '@workflow-index/core';
import { leafEntries, PATH_SEPARATOR, VALUE_SEPARATOR } from '../../json-leaves.js';
import { sortableNumber, valueAtPath } from '../../json-paths.js';
import { JsonNumber, type JsonValue, parseLosslessJson } from '@workflow-index/events';
import { escapeWildcard } from '../filter-dsl.js';
import { type Query, and, MATCH_NONE, not, range, term, terms } from '../query-dsl.js';

export interface JsonOperatorFields {
  readonly leaves: string;
  readonly leavesComplete: string;
  readonly paths: string;
  readonly numbers: string;
  readonly pathsComplete: string;
  readonly text: string;
}

export const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Documents the keyword fields decide (neither list capped, the paths present: normalized by this release). */
export function decided(fields: JsonOperatorFields): Query {
  return and([term(fields.leavesComplete, true), term(fields.pathsComplete, true)]);
}

/** Documents that need the payload-text check instead (`not decided`). */
export function undecided(fields: JsonOperatorFields): Query {
  return not(decided(fields));
}

const pathKey = (path: readonly string[]): string => path.join(PATH_SEPARATOR);

/** The query of a JSON operator over decided documents. */
export function jsonOperatorDsl(fields: JsonOperatorFields, path: readonly string[], predicate: JsonPredicate): Query {
  const prefix = `${pathKey(path)}${VALUE_SEPARATOR}`;
  const strings = `${prefix}s:`;
  // Every entry of the path's strings sorts below this (':' + 1 = ';').
  const stringsEnd = `${prefix}s;`;
  switch (predicate.op) {
    case 'exists':
      return predicate.value ? term(fields.paths, pathKey(path)) : not(term(fields.paths, pathKey(path)));
    case 'ne':
      return and([term(fields.paths, pathKey(path)), not(terms(fields.leaves, leafEntries(path, predicate.value)))]);
    case 'in':
      return predicate.values.length === 0 ? MATCH_NONE : terms(fields.leaves, predicate.values.flatMap((v) => leafEntries(path, v)));
    case 'contains':
      return predicate.value === ''
        ? { prefix: { [fields.leaves]: { value: strings } } }
        : { wildcard: { [fields.leaves]: { value: `${escapeWildcard(strings)}*${escapeWildcard(predicate.value)}*` } } };
    default: {
      const op = predicate.op;
      if (JSON_NUMBER.test(predicate.value)) {
        // Sortable forms start with 1 (negative), 2 (zero) or 3 (positive): the path's numbers lie in (prefix, prefix4).
        const bound = `${prefix}${sortableNumber(predicate.value)}`;
        return op === 'gt' || op === 'gte' ? range(fields.numbers, { [op]: bound, lt: `${prefix}4` }) : range(fields.numbers, { gt: prefix, [op]: bound });
      }
      const bound = `${strings}${predicate.value}`;
      return op === 'gt' || op === 'gte' ? range(fields.leaves, { [op]: bound, lt: stringsEnd }) : range(fields.leaves, { gte: strings, [op]: bound });
    }
  }
}


const compareText = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Whether a scalar equals a filter value as eq does (the string, the number by value, the boolean). */
function equals(v: JsonValue, value: string): boolean {
  if (typeof v === 'string') return v === value;
  if (typeof v === 'boolean') return String(v) === value;
  if (v instanceof JsonNumber) return JSON_NUMBER.test(value) && sortableNumber(v.text) === sortableNumber(value);
  return false;
}

const COMPARE: Readonly<Record<'gt' | 'gte' | 'lt' | 'lte', (c: number) => boolean>> = {
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
  lt: (c) => c < 0,
  lte: (c) => c <= 0,
};

/** The operator on a payload's jsonb text (null: no payload), for documents the keyword fields cannot decide. */
export function jsonPredicateMatches(payloadText: string | null, path: readonly string[], predicate: JsonPredicate): boolean {
  const v = payloadText === null ? undefined : valueAtPath(parseLosslessJson(payloadText), path);
  switch (predicate.op) {
    case 'exists':
      return (v !== undefined) === predicate.value;
    case 'ne':
      return v !== undefined && !equals(v, predicate.value);
    case 'in':
      return v !== undefined && predicate.values.some((value) => equals(v, value));
    case 'contains':
      return typeof v === 'string' && v.includes(predicate.value);
    default: {
      if (JSON_NUMBER.test(predicate.value)) {
        return v instanceof JsonNumber && COMPARE[predicate.op](compareText(sortableNumber(v.text), sortableNumber(predicate.value)));
      }
      return typeof v === 'string' && COMPARE[predicate.op](compareText(v, predicate.value));
    }
  }
}
