// Fluent Bit's lua filter (plugins/filter_lua) around the scripts of fluent-bit/postgresql:
//   return -1: the record is dropped (and counted in the filter's drop metric);
//   return  0: the original record is kept byte for byte, whatever the script did to its table;
//   return 1/2: the returned table is packed again (1 takes the returned timestamp as a double, 2 keeps the
//     original one). That Lua → msgpack conversion is lossy: a key whose value is null does not exist in a Lua
//     table and disappears, every number went through a Lua double, so integers above 2^53 are rounded, and a
//     double with an integral value (1.0) is packed as the integer 1.
// Our two scripts run before the JSON parser, while the record only holds strings, so the loss cannot touch an
// event; the model applies it anyway so a script that ran later would show the damage.
// Each script has a TypeScript stand-in here: join-partial-lines.lua (proved equal under luajit in
// fluent-bit/test/join-partial-lines-lua.test.ts) and repair-line.lua (repairEventLine, its TypeScript twin).

import { PartialLineJoiner } from '@workflow-index/events';
import { type FluentValue, FluentMap } from './fluent-value.js';

export interface LuaRecord {
  readonly tag: string;
  readonly record: FluentMap;
}

/** What a filter function returned: the code, and the table when the code is 1 or 2. */
export type LuaResult = { readonly code: -1 | 0 } | { readonly code: 1 | 2; readonly record: FluentMap };

export type LuaFunction = (tag: string, record: FluentMap) => LuaResult;

/** A value after the round trip msgpack → Lua → msgpack. */
export function luaRepack(value: FluentValue): FluentValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string' || Buffer.isBuffer(value)) return value;
  if (typeof value === 'bigint' || typeof value === 'number') {
    const double = Number(value);
    return Number.isInteger(double) && Math.abs(double) < 2 ** 63 ? BigInt(double) : double;
  }
  if (Array.isArray(value)) return value.map(luaRepack);
  return new FluentMap(value.entries.filter(([, v]) => v !== null).map(([k, v]) => [k, luaRepack(v)]));
}

/** The default cap of join-partial-lines.lua (MAX_JOINED_BYTES). */
export const MAX_JOINED_BYTES = 8 * 1024 * 1024;

const bytesOf = (value: FluentValue | undefined): Buffer | undefined =>
  typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.isBuffer(value) ? value : undefined;

/**
 * Stand-in for join_partial_lines in join-partial-lines.lua: one instance per filter (one Fluent Bit process), state
 * across files. The joining is the one every reader shares (PartialLineJoiner, per tail tag and stream, no timer);
 * the script's own parts: a held part is dropped (-1), the F record carries the joined line (2, its own fields and
 * time), an F with nothing held passes unchanged (0) unless it is the first part of its (tag, stream) and the end of
 * a JSON object without its beginning (`wi_join_orphan`), and the cap (parts beyond it counted, not kept; the F part
 * carries the line's size in `wi_join_truncated`).
 */
export function partialLineJoiner(maxJoinedBytes = MAX_JOINED_BYTES): LuaFunction {
  const joiner = new PartialLineJoiner<Buffer>();
  // Bytes of each unfinished line so far (held or beyond the cap), and every (tag, stream) seen.
  const seen = new Map<string, number>();
  const known = new Set<string>();
  // Unfinished lines that began with the first part this process saw of their (tag, stream).
  const beganFirst = new Set<string>();
  return (tag, record) => {
    const flag = record.get('_p');
    if (flag !== 'P' && flag !== 'F') return { code: 0 };
    // An empty F part has no `log` (Skip_Empty_Values): it still ends the line.
    const log = record.has('log') ? bytesOf(record.get('log')) : Buffer.alloc(0);
    if (!log) return { code: 0 };
    const key = `${tag}\u0000${String(record.get('stream'))}`;
    const first = !known.has(key);
    known.add(key);
    const held = joiner.held(key);
    if (flag === 'F' && !seen.has(key)) {
      if (first && looksLikeOrphan(log)) return { code: 2, record: record.with('wi_join_orphan', String(log.length)) };
      return { code: 0 };
    }
    const heldBytes = byteLength(held);
    const total = (seen.get(key) ?? 0) + log.length;
    const kept = log.subarray(0, Math.max(0, maxJoinedBytes - heldBytes));
    if (flag === 'P') {
      if (first) beganFirst.add(key);
      joiner.add(key, kept, false);
      seen.set(key, total);
      return { code: -1 };
    }
    seen.delete(key);
    const text = Buffer.concat(joiner.add(key, kept, true)!);
    let line = replaceLog(record, text);
    if (total > maxJoinedBytes) line = line.with('wi_join_truncated', String(total));
    if (beganFirst.delete(key) && looksLikeOrphan(text)) line = line.with('wi_join_orphan', String(total));
    return { code: 2, record: line };
  };
}

/** join-partial-lines.lua's looks_like_orphan: does not start a JSON object, ends one (Lua's %s whitespace). */
function looksLikeOrphan(log: Buffer): boolean {
  const text = log.toString('latin1');
  return !/^[ \t\n\v\f\r]*\{/.test(text) && /\}[ \t\n\v\f\r]*$/.test(text);
}

function byteLength(parts: readonly Buffer[]): number {
  return parts.reduce((sum, part) => sum + part.length, 0);
}

/** A Lua table assignment `record["log"] = x`: an existing key keeps its place. */
export function replaceLog(record: FluentMap, log: FluentValue): FluentMap {
  return record.has('log') ? new FluentMap(record.entries.map(([k, v]) => [k, k === 'log' ? log : v])) : record.with('log', log);
}
