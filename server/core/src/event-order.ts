// The order of a run's event history and its pages (CONTRACT §9: "in event-time order"). One total order, computed
// here for both backends from the records they derive alike (event-record.ts), so both answer in the same order:
//  1. time ascending, by the event's own timestamp (microseconds); events whose time cannot be read come after every
//     timed one (their place in time is unknown; a run stuck on an unreadable timestamp shows that event last, where
//     one looks first);
//  2. at one instant (or among untimed events): type by code point — so `task.completed` comes before `task.started`
//     at the same instant, as the write path closes executions before it opens new ones at one instant;
//  3. task position by code point, a workflow event (no position) first;
//  4. accepted before rejected;
//  5. the digest of the content and rejection: distinct events never share it (records with equal content and
//     reason are one, distinctEventRecords), so the order is total and never depends on arrival.
// A page continues strictly after the key of its cursor: events present throughout are neither skipped nor repeated
// however many arrive between pages; an event that arrives later is shown when its key sorts after the cursor.
import type { WorkflowEventRecord } from './reader.js';

/** The order key of an event: [time, type, taskPosition, accepted, digest]. */
export type EventKey = readonly [string | null, string, string | null, boolean, string];

export function eventKey(event: WorkflowEventRecord): EventKey {
  return [event.time, event.type, event.taskPosition, event.accepted, event.digest];
}

/**
 * Unicode code point order (PostgreSQL's COLLATE "C"); JavaScript's `<` compares UTF-16 units, which differs only
 * where a surrogate (a code point above U+FFFF) meets a unit from U+E000 up: the surrogate's code point is greater.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    return sx === sy ? x - y : sx ? 1 : -1;
  }
  return a.length - b.length;
}

/** Served timestamps have one width (YYYY-MM-DDTHH:MM:SS.ffffffZ), so their text order is time order. */
function compareNullable(a: string | null, b: string | null, nulls: 'first' | 'last'): number {
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === (nulls === 'last') ? 1 : -1;
  }
  return compareCodePoints(a, b);
}

export function compareEventKeys(a: EventKey, b: EventKey): number {
  return (
    compareNullable(a[0], b[0], 'last') ||
    compareCodePoints(a[1], b[1]) ||
    compareNullable(a[2], b[2], 'first') ||
    (a[3] === b[3] ? 0 : a[3] ? -1 : 1) ||
    compareCodePoints(a[4], b[4])
  );
}

export function orderEvents(events: readonly WorkflowEventRecord[]): WorkflowEventRecord[] {
  const keyed = events.map((event) => ({ event, key: eventKey(event) }));
  keyed.sort((a, b) => compareEventKeys(a.key, b.key));
  return keyed.map((k) => k.event);
}

/** At most `limit` events of an ordered history, strictly after `after` (from the start when null). */
export function pageOfEvents(ordered: readonly WorkflowEventRecord[], after: EventKey | null, limit: number): WorkflowEventRecord[] {
  if (limit === 0) return [];
  let start = 0;
  if (after !== null) {
    // Binary search for the first key after the cursor's.
    let hi = ordered.length;
    while (start < hi) {
      const mid = (start + hi) >>> 1;
      if (compareEventKeys(eventKey(ordered[mid]!), after) <= 0) start = mid + 1;
      else hi = mid;
    }
  }
  return ordered.slice(start, start + limit);
}
