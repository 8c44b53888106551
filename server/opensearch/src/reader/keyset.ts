// Keyset positions (Reader KeysetPosition): "the rows strictly after this one" in a sort order. A position with a
// value for every key is OpenSearch's own `search_after` (searchAfterValues): the sort's comparators skip what comes
// before it, with no extra query clause (a range on the `id` tie-breaker costs a walk of the keyword's terms, and the
// disjunction is read for every candidate row). A position with a null (nulls sort last in both directions: after a
// row without a value of a key come only rows without one), or a page that also skips an offset (search_after needs
// `from` 0), is the same order as an explicit range query:
//   after([k, …rest], [v, …]) = k beyond v (or k missing, when v has a value)  OR  (k = v AND after(rest, …))
import { microsToIso } from '@workflow-index/events';
import { micros } from './filter-dsl.js';
import type { OrderKey } from './sort-dsl.js';
import { MATCH_NONE, type Query, and, exists, not, or, range, term } from './query-dsl.js';

/** One value per key of `order`: keyword text, or a Timestamp for a time key; null for a missing value. */
export type PositionValues = readonly (string | null)[];

export function afterDsl(order: readonly OrderKey[], values: PositionValues): Query {
  if (values.length !== order.length) {
    throw new Error(`keyset position has ${values.length} values for ${order.length} sort keys`);
  }
  return after(order, values);
}

function after(order: readonly OrderKey[], values: PositionValues): Query {
  const [first, ...rest] = order;
  if (first === undefined) return MATCH_NONE;
  const { key, direction } = first;
  const v = values[0] ?? null;
  let strictly: Query;
  let equal: Query;
  if (v === null) {
    strictly = MATCH_NONE;
    equal = not(exists(key.field));
  } else {
    const value = key.time ? micros(v) : v;
    const beyond = range(key.field, direction === 'ASC' ? { gt: value } : { lt: value });
    strictly = key.nullable ? or([beyond, not(exists(key.field))]) : beyond;
    equal = term(key.field, value);
  }
  if (rest.length === 0) return strictly;
  return or([strictly, and([equal, after(rest, values.slice(1))])]);
}

/**
 * The position as `search_after` values for the sort of sortDsl(order) (keywords as they are, times as epoch-µs text,
 * which OpenSearch parses as a long exactly), or null when a value is null: the sort's missing-value markers are not
 * written here, the range query answers those positions (afterDsl).
 */
export function searchAfterValues(order: readonly OrderKey[], values: PositionValues): string[] | null {
  if (values.length !== order.length) {
    throw new Error(`keyset position has ${values.length} values for ${order.length} sort keys`);
  }
  if (values.some((v) => v === null)) return null;
  return order.map(({ key }, i) => (key.time ? micros(values[i]!) : values[i]!));
}

/** The position of a hit: the `_source` value of each key (the ISO text for times), null when missing. */
export function positionOf(order: readonly OrderKey[], source: Readonly<Record<string, unknown>>): (string | null)[] {
  return order.map(({ key }) => {
    const value = source[key.source];
    return value === undefined || value === null ? null : String(value);
  });
}

// OpenSearch reports a missing long as Long.MAX_VALUE / MIN_VALUE in a hit's sort values; no real time comes near.
const MISSING_LONG = 9e18;

/**
 * The position of a hit from its sort values (searches that read no `_source`): keywords as they are, times from the
 * epoch-µs long (exact below 2^53 µs, i.e. before the year 2255), the missing-value markers as null.
 */
export function positionOfSort(order: readonly OrderKey[], sort: readonly unknown[]): (string | null)[] {
  return order.map(({ key }, i) => {
    const value = sort[i];
    if (value === undefined || value === null) return null;
    // A missing long that is not a time (duration_us) has the same markers.
    if (!key.time) return typeof value === 'number' && Math.abs(value) >= MISSING_LONG ? null : String(value);
    const us = Number(value);
    return Math.abs(us) >= MISSING_LONG ? null : microsToIso(us);
  });
}
