// Fluent Bit record accessor syntax as our filters use it: `$key`, `$key['sub']['sub2']`, `$key[0]`.
// A grep key without the leading `$` is a top-level key, as in Fluent Bit.
import { type FluentValue, type FluentMap, isMap } from './fluent-value.js';

export type RecordPath = readonly (string | number)[];

const ACCESSOR = /^\$([^[\s'"]+)((?:\[(?:'[^']*'|"[^"]*"|\d+)\])*)$/;
const SUBSCRIPT = /\[(?:'([^']*)'|"([^"]*)"|(\d+))\]/g;

export function parseRecordAccessor(text: string): RecordPath {
  if (!text.startsWith('$')) {
    if (/[\s[\]'"]/.test(text) || text === '') throw new Error(`not a record key: ${text}`);
    return [text];
  }
  const match = ACCESSOR.exec(text);
  if (!match) throw new Error(`not a record accessor: ${text}`);
  const path: (string | number)[] = [match[1]!];
  for (const sub of match[2]!.matchAll(SUBSCRIPT)) {
    path.push(sub[3] !== undefined ? Number(sub[3]) : (sub[1] ?? sub[2] ?? ''));
  }
  return path;
}

export function readPath(record: unknown, path: RecordPath): unknown {
  let value: unknown = record;
  for (const segment of path) {
    if (typeof segment === 'number') {
      if (!Array.isArray(value)) return undefined;
      value = value[segment];
    } else {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      value = (value as Record<string, unknown>)[segment];
    }
  }
  return value;
}

/** Record accessor lookup on a msgpack-shaped record (the last entry of a repeated key, as src/flb_ra_key.c). */
export function readValue(record: FluentMap, path: RecordPath): FluentValue | undefined {
  let value: FluentValue | undefined = record;
  for (const segment of path) {
    if (typeof segment === 'number') {
      if (!Array.isArray(value)) return undefined;
      value = value[segment];
    } else {
      if (!isMap(value)) return undefined;
      value = value.get(segment);
    }
  }
  return value;
}
