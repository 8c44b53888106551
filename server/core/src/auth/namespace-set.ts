// A set of namespaces given by rule patterns: `*` matches any run of characters, everything else itself; `*` alone
// is every namespace, runs without a namespace included (they match no other pattern). As a filter it is a
// condition on the run's namespace that both backends already answer (`namespace` eq / like).
import { matchesLike } from '../like-pattern.js';
import type { InstanceFilter, LikeSegment } from '../reader.js';

export interface NamespaceSet {
  /** Every namespace, and runs without one. */
  readonly all: boolean;
  /** The patterns as written, without duplicates (empty when `all`). */
  readonly patterns: readonly string[];
}

export const NO_NAMESPACES: NamespaceSet = Object.freeze({ all: false, patterns: Object.freeze([]) });

export function namespaceSetOf(patterns: Iterable<string>): NamespaceSet {
  const unique = [...new Set(patterns)];
  if (unique.includes('*')) return { all: true, patterns: [] };
  return { all: false, patterns: unique.sort() };
}

/** Whether every namespace of `inner` is in `outer`. */
export function covers(outer: NamespaceSet, inner: NamespaceSet): boolean {
  if (outer.all) return true;
  if (inner.all) return false;
  return inner.patterns.every((pattern) => outer.patterns.some((candidate) => patternCovers(candidate, pattern)));
}

/**
 * Whether every name `inner` matches, `outer` matches too. With `*` the only wildcard this holds exactly when `outer`
 * matches `inner` written with each `*` as a character `outer` does not contain: such a name is one of `inner`'s, and
 * only a `*` of `outer` can match that character, so whatever `inner`'s `*` stands for, `outer`'s `*` takes it too.
 */
function patternCovers(outer: string, inner: string): boolean {
  let fresh = 0xe000;
  while (outer.includes(String.fromCodePoint(fresh))) fresh += 1;
  return matchesLike(segmentsOf(outer), inner.replaceAll('*', String.fromCodePoint(fresh)));
}

export function inNamespaceSet(set: NamespaceSet, namespace: string | null): boolean {
  if (set.all) return true;
  if (namespace === null) return false;
  return set.patterns.some((pattern) => matchesLike(segmentsOf(pattern), namespace));
}

/**
 * The runs of the set as an instance filter; null for every run. The plain names are one `in` (one index test on
 * both backends), each pattern with a `*` one `like`; an empty set matches nothing (an empty `or`).
 */
export function namespaceFilter(set: NamespaceSet): InstanceFilter | null {
  if (set.all) return null;
  const names = set.patterns.filter((pattern) => !pattern.includes('*'));
  const nodes: InstanceFilter[] = set.patterns.filter((pattern) => pattern.includes('*')).map(patternFilter);
  if (names.length > 0) nodes.unshift({ kind: 'string', field: 'namespace', predicate: { op: 'in', values: names } });
  return nodes.length === 1 ? (nodes[0] as InstanceFilter) : { kind: 'or', nodes };
}

function patternFilter(pattern: string): InstanceFilter {
  return { kind: 'string', field: 'namespace', predicate: { op: 'like', pattern: segmentsOf(pattern) } };
}

/** Only `*` is a wildcard in a rule: `?` is a character of the namespace like any other. */
function segmentsOf(pattern: string): LikeSegment[] {
  const segments: LikeSegment[] = [];
  pattern.split('*').forEach((text, index) => {
    if (index > 0 && segments.at(-1)?.kind !== 'any') segments.push({ kind: 'any' });
    if (text !== '') segments.push({ kind: 'literal', text });
  });
  return segments;
}
