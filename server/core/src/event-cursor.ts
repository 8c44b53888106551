// The cursor of a run's event history: the order key of one served event (event-order.ts), base64url JSON, in the
// style of the list cursors (cursor.ts). Opaque to clients but not a secret: it holds nothing the event does not show
// (its time, type, position, whether accepted, and a digest). A malformed or foreign cursor is BAD_USER_INPUT.
import { checkClientText } from './client-text.js';
import { cursorParts, encodeCursorParts } from './cursor.js';
import { formatMicros, parseDateTimeToMicros } from './date-time.js';
import { badUserInput } from './errors.js';
import { type EventKey, eventKey } from './event-order.js';
import type { WorkflowEventRecord } from './reader.js';

const KIND = 'events';
const DIGEST = /^[0-9a-f]{32}$/;

export function eventCursor(event: WorkflowEventRecord): string {
  return encodeCursorParts([KIND, eventKey(event)]);
}

const isTimestamp = (value: string): boolean => {
  try {
    return formatMicros(parseDateTimeToMicros(value)) === value;
  } catch {
    return false;
  }
};

/** The order key an `after` argument of `events` continues after; throws BAD_USER_INPUT naming the problem. */
export function decodeEventCursor(cursor: string): EventKey {
  const invalid = (why: string) => badUserInput(`after is not a cursor of WorkflowInstance.events (${why}); pass the cursor field of an event it returned`);
  const [kind, key] = cursorParts(cursor, 2, invalid);
  if (kind !== KIND) throw badUserInput('after is a cursor of a list query, not of WorkflowInstance.events');
  if (!Array.isArray(key) || key.length !== 5) throw invalid('wrong number of values');
  const [time, type, position, accepted, digest] = key as unknown[];
  if (time !== null && (typeof time !== 'string' || !isTimestamp(time))) throw invalid('the time is not a timestamp');
  if (typeof type !== 'string') throw invalid('the type is not text');
  if (position !== null && typeof position !== 'string') throw invalid('the task position is not text');
  if (typeof accepted !== 'boolean') throw invalid('accepted is not a boolean');
  if (typeof digest !== 'string' || !DIGEST.test(digest)) throw invalid('the digest is not one');
  return [time, checkClientText(type, 'after'), position === null ? null : checkClientText(position, 'after'), accepted, digest];
}
