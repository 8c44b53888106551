// The leaves of a filter tree that a pre-search step needs (json-fallback.ts: JSON leaves; long-detail-filter.ts:
// string leaves on a long-string field), in tree order, through and/or/not.
import type { SimpleFilterNode } from '@workflow-index/core';

export type FilterLeaf<S extends string, T extends string> = Exclude<SimpleFilterNode<S, T>, { kind: 'and' | 'or' | 'not' }>;

/** What `pick` returns for each leaf of the tree (undefined: skipped). */
export function filterLeaves<S extends string, T extends string, L>(node: SimpleFilterNode<S, T> | null, pick: (leaf: FilterLeaf<S, T>) => L | undefined): L[] {
  const out: L[] = [];
  const walk = (n: SimpleFilterNode<S, T>): void => {
    if (n.kind === 'and' || n.kind === 'or') n.nodes.forEach(walk);
    else if (n.kind === 'not') walk(n.node);
    else {
      const picked = pick(n);
      if (picked !== undefined) out.push(picked);
    }
  };
  if (node !== null) walk(node);
  return out;
}
