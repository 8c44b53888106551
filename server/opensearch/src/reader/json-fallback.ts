// JSON filters on documents whose leaves cannot answer them (json-leaves.ts): a payload with more than MAX_LEAVES
// leaves has `*_leaves_complete: false` (only its first leaves are indexed), and a leaf longer than the keyword limit is
// stored but not indexed. For those documents the reader checks the payload text itself,
// with the rule of `payload #> path = ANY(candidates)`, and the filter then matches their ids besides the leaves.
// Such payloads are rare; the check costs one extra search per JSON leaf of the filter, and reads only them
// (source-check.ts).
import type { SimpleFilterNode, JsonField } from '@workflow-index/core';
import { exactDecimal, leafEntries, PATH_SEPARATOR, VALUE_SEPARATOR } from '../json-leaves.js';
import { valueAtPath } from '../json-paths.js';
import { JsonNumber, parseLosslessJson } from '@workflow-index/events';
import { type FilterFields, IGNORE_ABOVE } from './fields.js';
import type { JsonFallbackIds } from './filter-dsl.js';
import { filterLeaves } from './filter-leaves.js';
import { MATCH_ALL, type Query, and, not, term, terms } from './query-dsl.js';
import type { Searcher } from './search-requests.js';
import { checkedIds } from './source-check.js';

interface JsonLeaf {
  readonly field: JsonField;
  readonly path: readonly string[];
  readonly value: string;
}

const keyOf = (field: JsonField, path: readonly string[], value: string): string =>
  `${field}${VALUE_SEPARATOR}${path.join(PATH_SEPARATOR)}${VALUE_SEPARATOR}${value}`;



/** Whether the payload text has, at `path`, a value one of the filter's candidates equals (as the leaves would say). */
export function payloadMatches(payloadText: string, path: readonly string[], value: string): boolean {
  const v = valueAtPath(parseLosslessJson(payloadText), path);
  let entry: string;
  if (typeof v === 'string') entry = `s:${v}`;
  else if (typeof v === 'boolean') entry = `b:${v}`;
  else if (v instanceof JsonNumber) entry = `n:${exactDecimal(v.text)}`;
  else return false;
  // the candidates' entries at the root path: the same values, and no path segment that could have none
  return leafEntries([], value).includes(`${VALUE_SEPARATOR}${entry}`);
}

/**
 * Checks, for each JSON leaf of the filter, the documents the leaves cannot decide, and returns the ids that match.
 * `served` restricts the documents to the ones the query may return anyway.
 */
export async function resolveJsonFallback<S extends string, T extends string>(
  requests: Searcher,
  index: string,
  filter: SimpleFilterNode<S, T> | null,
  fields: FilterFields<S, T>,
  served: Query,
): Promise<JsonFallbackIds> {
  const leaves = filterLeaves<S, T, JsonLeaf>(filter, (n) => (n.kind === 'json' ? { field: n.field, path: n.path, value: n.value } : undefined));
  if (leaves.length === 0) return () => [];
  const matched = new Map<string, string[]>();
  for (const leaf of leaves) {
    const key = keyOf(leaf.field, leaf.path, leaf.value);
    if (matched.has(key)) continue;
    const doc = fields.json[leaf.field];
    const entries = leafEntries(leaf.path, leaf.value);
    // A capped payload may lack any leaf. A leaf longer than the keyword limit is stored but not indexed, and nothing
    // marks the documents that have one, so an entry that long is checked against every payload (such a filter value
    // is over 8 KiB: rare, and correct rather than fast).
    // A path with a segment holding a separator has no entry at all (json-leaves.ts): every payload is checked too.
    const undecided = entries.length === 0 || entries.some((e) => e.length > IGNORE_ABOVE) ? MATCH_ALL : term(doc.complete, false);
    const query = and([served, undecided, not(terms(doc.leaves, entries))]);
    const ids = await checkedIds(requests, index, query, doc.text, (text) => text !== null && payloadMatches(text, leaf.path, leaf.value));
    matched.set(key, ids);
  }
  return (field, path, value) => matched.get(keyOf(field, path, value)) ?? [];
}
