// plugins/filter_lua with our scripts: the script must exist next to the configuration and define `call`; what it
// does is its TypeScript stand-in (BUILTIN_LUA_SCRIPTS, proved equal to the Lua in lua-filter.ts's tests).
import { readFileSync } from 'node:fs';
import { repairEventLine } from '@workflow-index/events';
import { ClassicConfigError, requiredProperty } from '../classic-config.js';
import { eventKubernetesLine } from '../event-kubernetes.js';
import { textOf } from '../fluent-value.js';
import type { FluentMap } from '../fluent-value.js';
import { configFilePath } from '../load-config.js';
import { type LuaFunction, luaRepack, partialLineJoiner, replaceLog } from '../lua-filter.js';
import { opensearchDocumentLine } from '../opensearch-document.js';
import { drop, type FilterPlugin, keep, type RecordInFlight } from './filter.js';

/** The TypeScript stand-ins of our Lua scripts (see lua-filter.ts for how each is proved equal). */
const BUILTIN_LUA_SCRIPTS: Readonly<Record<string, () => LuaFunction>> = {
  'join-partial-lines.lua': () => partialLineJoiner(),
  'repair-line.lua': () => (_tag, record) => {
    const log = record.get('log');
    const bytes = typeof log === 'string' ? Buffer.from(log, 'utf8') : Buffer.isBuffer(log) ? log : undefined;
    if (!bytes) return { code: 0 };
    const repaired = repairEventLine(bytes);
    return repaired.repairs.length === 0 ? { code: 0 } : { code: 2, record: replaceLog(record, Buffer.from(repaired.text, 'utf8')) };
  },
  'event-kubernetes.lua': () => (_tag, record) => {
    const log = record.get('log');
    const bytes = typeof log === 'string' ? Buffer.from(log, 'utf8') : Buffer.isBuffer(log) ? log : undefined;
    const changed = bytes ? eventKubernetesLine(bytes) : undefined;
    return changed ? { code: 2, record: replaceLog(record, changed) } : { code: 0 };
  },
  'opensearch-document.lua': () => (_tag, record) => {
    const log = record.get('log');
    const bytes = typeof log === 'string' ? Buffer.from(log, 'utf8') : Buffer.isBuffer(log) ? log : undefined;
    const changed = bytes ? opensearchDocumentLine(bytes) : undefined;
    return changed ? { code: 2, record: replaceLog(record, changed) } : { code: 0 };
  },
};

export const luaScriptFilter: FilterPlugin = (section, alias, context) => {
  const script = requiredProperty(section, 'script');
  const call = requiredProperty(section, 'call');
  let source: string;
  try {
    source = readFileSync(configFilePath(context.configDirectory, script), 'utf8');
  } catch {
    throw new ClassicConfigError(`[FILTER] ${alias}: script ${script} not found next to the configuration`);
  }
  if (!new RegExp(`^function ${call}\\(`, 'm').test(source)) throw new ClassicConfigError(`[FILTER] ${alias}: ${script} defines no function ${call}`);
  const standIn = context.luaScripts[script] ?? BUILTIN_LUA_SCRIPTS[script];
  if (!standIn) throw new ClassicConfigError(`[FILTER] ${alias}: no model of ${script}`);
  const fn = standIn();
  // Bookkeeping of the model, not of Fluent Bit: which physical lines a joined record was made of. The join
  // script holds parts per (tag, stream); a part it drops is held, and its lines go to the next record it
  // emits for that key.
  const joins = script === 'join-partial-lines.lua';
  const heldLines = new Map<string, number[]>();
  const keyOf = (item: RecordInFlight): string => `${item.tag}\u0000${textOf(item.record.get('stream')) ?? ''}`;
  return {
    held: () => [...heldLines.values()].flat(),
    apply: (item) => {
      const result = fn(item.tag, item.record);
      if (result.code === -1) {
        if (!joins) return drop();
        const key = keyOf(item);
        if (item.record.get('_p') === 'F') {
          // The end of a line cut at the cap: its discarded parts are gone with it.
          heldLines.delete(key);
          return drop();
        }
        heldLines.set(key, [...(heldLines.get(key) ?? []), ...item.sourceLines]);
        return { ...drop(), held: true };
      }
      let sourceLines = item.sourceLines;
      if (joins && (item.record.get('_p') === 'F' || ('record' in result && result.record.has('wi_join_truncated')))) {
        sourceLines = [...(heldLines.get(keyOf(item)) ?? []), ...item.sourceLines];
        heldLines.delete(keyOf(item));
      }
      if (!('record' in result)) return keep({ ...item, sourceLines });
      return keep({ ...item, sourceLines, record: luaRepack(result.record) as FluentMap });
    },
  };
};
