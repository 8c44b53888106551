// A list query's order as an OpenSearch sort: the keys as written, nulls last in both directions (`missing: _last`),
// `id ASC` as the final tie-breaker (effectiveSortKeys adds it). Keywords sort by their UTF-8 bytes, which is
// code-point order, as PostgreSQL's COLLATE "C".
import type { Direction } from '@workflow-index/core';
import type { SortFieldDoc } from './fields.js';

export interface OrderKey {
  readonly key: SortFieldDoc;
  readonly direction: Direction;
}

export function sortDsl(order: readonly OrderKey[]): Record<string, unknown>[] {
  return order.map(({ key, direction }) => ({
    [key.field]: { order: direction === 'ASC' ? 'asc' : 'desc', ...(key.nullable ? { missing: '_last' } : {}) },
  }));
}
