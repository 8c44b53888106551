// graphql-js coerces input objects in type-definition order, so the order a client wrote its
// orderBy keys in is gone from resolver args. It is recovered from the document (a literal) or
// from the raw variables JSON (JSON.parse keeps key order).
import { Kind } from 'graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { Direction, InstanceSortField, TaskSortField, SortKey } from './reader.js';

export const INSTANCE_SORT_FIELDS: Readonly<Record<string, InstanceSortField>> = Object.freeze({
  id: 'id',
  name: 'name',
  namespace: 'namespace',
  version: 'version',
  status: 'status',
  startTime: 'startDate',
  endTime: 'endDate',
  startDate: 'startDate',
  endDate: 'endDate',
  lastUpdate: 'lastUpdate',
  duration: 'duration',
});

export const TASK_SORT_FIELDS: Readonly<Record<string, TaskSortField>> = Object.freeze({
  id: 'id',
  taskName: 'taskName',
  taskPosition: 'taskPosition',
  status: 'status',
  enter: 'startDate',
  exit: 'endDate',
  startDate: 'startDate',
  endDate: 'endDate',
  duration: 'duration',
});

/** The keys of the `argName` argument in the order the client wrote them, or null when unknown. */
export function writtenKeyOrder(info: Pick<GraphQLResolveInfo, 'fieldNodes'>, argName: string, rawVariables: unknown): string[] | null {
  const argument = info.fieldNodes[0]?.arguments?.find((a) => a.name.value === argName);
  if (argument === undefined) return null;
  const value = argument.value;
  if (value.kind === Kind.OBJECT) return value.fields.map((f) => f.name.value);
  if (value.kind === Kind.VARIABLE && isRecord(rawVariables)) {
    const raw = rawVariables[value.name.value];
    if (isRecord(raw)) return Object.keys(raw);
  }
  return null;
}

/**
 * Sort keys in written order, aliases mapped to their field; a field named twice (e.g. `startTime`
 * and `startDate`) counts where it first appears. Empty when absent: the reader's default applies.
 */
export function toSortKeys<F extends string>(
  coerced: Readonly<Record<string, Direction | null | undefined>> | null | undefined,
  written: readonly string[] | null,
  fields: Readonly<Record<string, F>>,
): SortKey<F>[] {
  if (coerced === null || coerced === undefined) return [];
  const keys = [...(written ?? []), ...Object.keys(coerced)];
  const seen = new Set<F>();
  const out: SortKey<F>[] = [];
  for (const key of keys) {
    const direction = coerced[key];
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (direction === null || direction === undefined || field === undefined || seen.has(field)) continue;
    seen.add(field);
    out.push({ field, direction });
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
