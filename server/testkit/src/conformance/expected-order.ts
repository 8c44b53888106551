// The ordering rules of CONTRACT.md applied to the expected tables: keys in the order given, each with nulls
// last in both directions, strings by Unicode code point (not UTF-16 code units, which differ for characters
// beyond U+FFFF), timestamps chronologically, and `id` ascending as the final tie-breaker.
import type { ExpectedInstance, ExpectedTask } from './expected-data.js';
import { microsOf } from './timestamps.js';

export type Direction = 'ASC' | 'DESC';
export type InstanceOrderKey = 'id' | 'name' | 'namespace' | 'version' | 'status' | 'startTime' | 'endTime' | 'startDate' | 'endDate' | 'lastUpdate';
export type TaskOrderKey = 'id' | 'taskName' | 'taskPosition' | 'status' | 'enter' | 'exit' | 'startDate' | 'endDate';

export function compareCodePoints(a: string, b: string): number {
  const left = Array.from(a, (c) => c.codePointAt(0)!);
  const right = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! < right[i]! ? -1 : 1;
  }
  return left.length - right.length;
}

type SortValue = string | bigint | null;

function compareValues(a: SortValue, b: SortValue, direction: Direction): number {
  if (a === null && b === null) return 0;
  if (a === null) return 1; // nulls last, whatever the direction
  if (b === null) return -1;
  const natural = typeof a === 'bigint' && typeof b === 'bigint' ? (a < b ? -1 : a > b ? 1 : 0) : compareCodePoints(String(a), String(b));
  return direction === 'ASC' ? natural : -natural;
}

function sortBy<T extends { readonly id: string }>(rows: readonly T[], keys: readonly (readonly [string, Direction])[], value: (row: T, key: string) => SortValue): T[] {
  return [...rows].sort((x, y) => {
    for (const [key, direction] of keys) {
      const c = compareValues(value(x, key), value(y, key), direction);
      if (c !== 0) return c;
    }
    return compareCodePoints(x.id, y.id);
  });
}

const time = (value: string | null): bigint | null => (value === null ? null : microsOf(value));

export function sortInstances(rows: readonly ExpectedInstance[], keys: readonly (readonly [InstanceOrderKey, Direction])[]): ExpectedInstance[] {
  return sortBy(rows, keys, (row, key) => {
    switch (key as InstanceOrderKey) {
      case 'startTime':
      case 'startDate':
        return time(row.startDate);
      case 'endTime':
      case 'endDate':
        return time(row.endDate);
      case 'lastUpdate':
        return time(row.lastUpdate);
      case 'id':
        return row.id;
      case 'name':
        return row.name;
      case 'namespace':
        return row.namespace;
      case 'version':
        return row.version;
      case 'status':
        return row.status;
    }
  });
}

export function sortTasks(rows: readonly ExpectedTask[], keys: readonly (readonly [TaskOrderKey, Direction])[]): ExpectedTask[] {
  return sortBy(rows, keys, (row, key) => {
    switch (key as TaskOrderKey) {
      case 'enter':
      case 'startDate':
        return time(row.startDate);
      case 'exit':
      case 'endDate':
        return time(row.endDate);
      case 'id':
        return row.id;
      case 'taskName':
        return row.taskName;
      case 'taskPosition':
        return row.taskPosition;
      case 'status':
        return row.status;
    }
  });
}

export const ids = (rows: readonly { readonly id: string }[]): string[] => rows.map((r) => r.id);
