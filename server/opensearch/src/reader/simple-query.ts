// A list of field conditions only, in an order of stored fields, is one search (filter-dsl.ts, paged-search.ts); a
// filter with a JSON operator beyond equality, a duration or a relation, or the `duration` order, goes to the lookup
// reader (lookups/lookup-reader.ts), which may search first to translate it.
import type { FilterNode, SimpleFilterNode, SortKey } from '@workflow-index/core';

/** Whether the tree holds only field conditions (and, or, not over string, time, int and JSON equality leaves). */
function isSimple<S extends string, T extends string>(node: FilterNode<S, T>): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.nodes.every(isSimple);
    case 'not':
      return isSimple(node.node);
    case 'string':
    case 'time':
    case 'int':
    case 'json':
      return true;
    case 'jsonOp':
    case 'duration':
    case 'tasks':
    case 'instance':
      return false;
  }
}

/** The filter as a tree of field conditions when it is one (null for none), undefined otherwise. */
export function asSimpleFilter<S extends string, T extends string>(node: FilterNode<S, T> | null): SimpleFilterNode<S, T> | null | undefined {
  if (node === null) return null;
  return isSimple(node) ? (node as SimpleFilterNode<S, T>) : undefined;
}

/** The sort keys when none is `duration`, undefined otherwise. */
export function asSimpleOrder<F extends string>(keys: readonly SortKey<F>[]): SortKey<Exclude<F, 'duration'>>[] | undefined {
  return keys.some((k) => k.field === 'duration') ? undefined : (keys as SortKey<Exclude<F, 'duration'>>[]);
}
