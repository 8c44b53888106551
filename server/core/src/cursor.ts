// Keyset pagination cursors. A cursor is the position of one served row in the order of the list query that
// returned it: the row's values of the effective sort keys (the id last), with the query kind and that order, as
// base64url JSON. It is opaque to clients (only ever passed back as `after`) but deliberately not a secret: it
// holds nothing the row itself does not show. Decoding checks everything the backend relies on, so a malformed,
// edited, foreign or mismatched cursor is the client's error (BAD_USER_INPUT), never a backend failure.
import { checkClientText } from './client-text.js';
import { formatMicros, parseDateTimeToMicros } from './date-time.js';
import { durationMicros } from './duration.js';
import { badUserInput } from './errors.js';
import type { Direction, KeysetPosition, SortKey, TaskExecutionRecord, WorkflowInstanceRecord } from './reader.js';

export type CursorKind = 'instances' | 'tasks';

const MARK = 'wi1';
/** Longer cursors are refused before decoding (ids and names are bounded in practice; this bounds the work). */
export const MAX_CURSOR_LENGTH = 8192;
const TIME_FIELDS: ReadonlySet<string> = new Set(['startDate', 'endDate', 'lastUpdate']);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** A `duration` sort value: whole microseconds (computed from the row's times, see duration.ts). */
const MICROS = /^-?\d{1,18}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const QUERY_OF: Readonly<Record<CursorKind, string>> = { instances: 'getWorkflowInstances', tasks: 'getTaskExecutions' };

type Row = WorkflowInstanceRecord | TaskExecutionRecord;

/** Which query and order produced each served row (rows are per-request objects: entries go with them). */
const origins = new WeakMap<object, { readonly kind: CursorKind; readonly order: readonly SortKey<string>[] }>();

/** Remembers that these rows were returned by a `kind` list query with this effective order. */
export function rememberOrder(rows: readonly Row[], kind: CursorKind, order: readonly SortKey<string>[]): void {
  const origin = { kind, order };
  for (const row of rows) origins.set(row, origin);
}

/** The cursor of a served row; null for a row that did not come from a list query (single lookups, nested tasks). */
export function cursorOf(row: Row): string | null {
  const origin = origins.get(row);
  if (origin === undefined) return null;
  const values = origin.order.map((key) => {
    if (key.field === 'duration') return durationMicros(row)?.toString() ?? null;
    const value = (row as unknown as Readonly<Record<string, unknown>>)[key.field];
    return typeof value === 'string' ? value : null;
  });
  return encodeCursor(origin.kind, origin.order, values);
}

const orderText = (order: readonly SortKey<string>[]): string[] => order.map((k) => `${k.field}:${k.direction}`);
const orderForMessage = (order: readonly SortKey<string>[]): string => `{${order.map((k) => `${k.field}: ${k.direction}`).join(', ')}}`;

/** A cursor of `parts` (after the format mark): base64url JSON, as every cursor of this API is written. */
export function encodeCursorParts(parts: readonly unknown[]): string {
  return Buffer.from(JSON.stringify([MARK, ...parts]), 'utf8').toString('base64url');
}

/**
 * The `count` parts of a cursor written by encodeCursorParts; throws `invalid(why)` for an empty, overlong, non-base64url
 * or foreign one.
 */
export function cursorParts(cursor: string, count: number, invalid: (why: string) => Error): unknown[] {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) throw invalid(cursor.length === 0 ? 'empty' : `longer than ${MAX_CURSOR_LENGTH} characters`);
  if (!BASE64URL.test(cursor)) throw invalid('not base64url text');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('not a cursor encoding');
  }
  if (!Array.isArray(decoded) || decoded.length !== count + 1 || decoded[0] !== MARK) throw invalid('not a cursor encoding');
  return decoded.slice(1);
}

export function encodeCursor(kind: CursorKind, order: readonly SortKey<string>[], values: readonly (string | null)[]): string {
  return encodeCursorParts([kind, orderText(order), values]);
}

/**
 * The keyset position of an `after` argument for a `kind` query whose effective order is `order`; throws
 * BAD_USER_INPUT naming the problem.
 */
export function decodeCursor(kind: CursorKind, cursor: string, order: readonly SortKey<string>[]): KeysetPosition {
  const invalid = (why: string) => badUserInput(`after is not a cursor of ${QUERY_OF[kind]} (${why}); pass the cursor field of a row this query returned`);
  const [cursorKind, cursorOrder, values] = cursorParts(cursor, 3, invalid);
  if (cursorKind !== 'instances' && cursorKind !== 'tasks') throw invalid('not a cursor encoding');
  if (cursorKind !== kind) throw badUserInput(`after is a cursor of ${QUERY_OF[cursorKind]}, not of ${QUERY_OF[kind]}`);
  const expected = orderText(order);
  if (!Array.isArray(cursorOrder) || !cursorOrder.every((k) => typeof k === 'string')) throw invalid('not a cursor encoding');
  if (cursorOrder.length !== expected.length || cursorOrder.some((k, i) => k !== expected[i])) {
    const written = parseOrder(cursorOrder as string[]);
    throw badUserInput(
      `after is a cursor of the order ${written === null ? '(unknown)' : orderForMessage(written)}, but this query orders by ${orderForMessage(order)}` +
        ' (with id last); a cursor only continues the order it came from',
    );
  }
  if (!Array.isArray(values) || values.length !== order.length) throw invalid('wrong number of values');
  const checked = values.map((value: unknown, i) => {
    const key = order[i] as SortKey<string>;
    if (value === null) {
      if (key.field === 'id') throw invalid('no id');
      return null;
    }
    if (typeof value !== 'string') throw invalid(`the ${key.field} value is not text`);
    if (TIME_FIELDS.has(key.field) && !isServedTimestamp(value)) throw invalid(`the ${key.field} value is not a timestamp`);
    if (key.field === 'duration' && !MICROS.test(value)) throw invalid('the duration value is not a number of microseconds');
    return checkClientText(value, 'after');
  });
  return { values: checked };
}

/**
 * Whether `value` is exactly a timestamp as readers serve it (`YYYY-MM-DDTHH:MM:SS.ffffffZ`, a real instant
 * between 0001-01-01 and 9999-12-31). A round trip through the codebase's own parser and printer, not Date.parse:
 * V8 accepts 24:00, Feb 30, Apr 31 and year 0000, which then fail (or silently shift) in the backends.
 */
function isServedTimestamp(value: string): boolean {
  if (!TIMESTAMP.test(value)) return false;
  try {
    return formatMicros(parseDateTimeToMicros(value)) === value;
  } catch {
    return false;
  }
}

function parseOrder(keys: readonly string[]): SortKey<string>[] | null {
  const out: SortKey<string>[] = [];
  for (const key of keys) {
    const [field, direction] = key.split(':');
    if (field === undefined || (direction !== 'ASC' && direction !== 'DESC')) return null;
    out.push({ field, direction: direction as Direction });
  }
  return out;
}
