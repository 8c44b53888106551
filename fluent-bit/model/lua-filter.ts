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
 * Stand-in for join_partial_lines in join-partial-lines.lua: one instance per filter, state across files. The
 * joining is the one every reader shares (PartialLineJoiner, per tail tag and stream, no timer); the script's own
 * parts: a held part is dropped (-1), the F record carries the joined line (2, its own fields and time), an F with
 * nothing held passes unchanged (0), and the cap.
 */
export function partialLineJoiner(maxJoinedBytes = MAX_JOINED_BYTES): LuaFunction {
  const joiner = new PartialLineJoiner<Buffer>();
  // Lines cut at the cap: their remaining parts are discarded, up to and with their F part.
  const cut = new Set<string>();
  return (tag, record) => {
    const flag = record.get('_p');
    if (flag !== 'P' && flag !== 'F') return { code: 0 };
    // An empty F part has no `log` (Skip_Empty_Values): it still ends the line.
    const log = record.has('log') ? bytesOf(record.get('log')) : Buffer.alloc(0);
    if (!log) return { code: 0 };
    const key = `${tag}\u0000${String(record.get('stream'))}`;
    if (cut.has(key)) {
      if (flag === 'F') cut.delete(key);
      return { code: -1 };
    }
    const held = joiner.held(key);
    if (flag === 'F' && held.length === 0) return { code: 0 };
    const seen = byteLength(held) + log.length;
    if (seen > maxJoinedBytes) {
      const text = cutAtCap(joiner.take(key), log, maxJoinedBytes);
      if (flag === 'F') return { code: 2, record: replaceLog(record, text).with('wi_join_truncated', String(seen)) };
      cut.add(key);
      return { code: 2, record: cutPartRecord(record, text, seen) };
    }
    const line = joiner.add(key, log, flag === 'F');
    return line ? { code: 2, record: replaceLog(record, Buffer.concat(line)) } : { code: -1 };
  };
}

function byteLength(parts: readonly Buffer[]): number {
  return parts.reduce((sum, part) => sum + part.length, 0);
}

/** The held parts and as much of `log` as fits under the cap. */
function cutAtCap(held: readonly Buffer[], log: Buffer, maxJoinedBytes: number): Buffer {
  const room = maxJoinedBytes - byteLength(held);
  return Buffer.concat(room > 0 ? [...held, log.subarray(0, room)] : held);
}

/** The table the script returns for the P part that crosses the cap: a new one, with the CRI fields only. */
function cutPartRecord(record: FluentMap, text: Buffer, seen: number): FluentMap {
  return new FluentMap([
    ['time', record.get('time') ?? null], ['stream', record.get('stream') ?? null], ['_p', 'P'],
    ['log', text], ['wi_join_truncated', String(seen)],
  ]);
}

/** A Lua table assignment `record["log"] = x`: an existing key keeps its place. */
export function replaceLog(record: FluentMap, log: FluentValue): FluentMap {
  return record.has('log') ? new FluentMap(record.entries.map(([k, v]) => [k, k === 'log' ? log : v])) : record.with('log', log);
}
