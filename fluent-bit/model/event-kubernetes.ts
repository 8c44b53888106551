// TypeScript twin of fluent-bit/postgresql/event-kubernetes.lua: an event's own top-level `kubernetes` and
// `wi_record_time` members are renamed `wi_event_kubernetes` and `wi_event_wi_record_time` on the raw line, so the
// kubernetes filter's metadata and the pgsql output's record time are never the event's (see the script's header). The model runs this twin; fluent-bit/test/
// event-kubernetes-lua.test.ts runs the real script under luajit and holds both to the same bytes.
// Works on bytes (a latin1 string: one character per byte), as the Lua script does.

import { closingQuote, isSpace } from '@workflow-index/opensearch';

/** The names a forwarder stage of ours adds at the top level (wi_record_time: the pgsql outputs' Timestamp_Key). */
export const FORWARDER_NAMES: ReadonlySet<string> = new Set(['kubernetes', 'wi_record_time']);
const PREFIX = 'wi_event_';

/** The name a key's raw text decodes to when it can be a forwarder name (only \u00XX escapes below 0x80), else undefined. */
function asciiName(raw: string): string | undefined {
  if (!raw.includes('\\')) return raw;
  const out = raw.replace(/\\u00([0-7][0-9a-fA-F])/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  return out.includes('\\') ? undefined : out;
}

/** Offsets (after the key's opening quote) of the top-level keys with a forwarder name; undefined when not one object. */
function matches(s: string): number[] | undefined {
  const len = s.length;
  let i = 0;
  while (i < len && isSpace(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) !== 123) return undefined;
  let depth = 0;
  const found: number[] = [];
  let expectKey = false;
  while (i < len) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      const j = closingQuote(s, i);
      if (j === undefined) return undefined;
      if (depth === 1 && expectKey && FORWARDER_NAMES.has(asciiName(s.slice(i + 1, j)) ?? '')) found.push(i + 1);
      expectKey = false;
      i = j + 1;
    } else if (c === 123 || c === 91) {
      depth++;
      expectKey = c === 123;
      i++;
    } else if (c === 125 || c === 93) {
      if (depth === 0) return undefined;
      depth--;
      expectKey = false;
      i++;
      if (depth === 0) {
        while (i < len && isSpace(s.charCodeAt(i))) i++;
        if (i < len) return undefined;
      }
    } else if (c === 44) {
      if (depth === 0) return undefined;
      expectKey = depth === 1;
      i++;
    } else {
      if (depth === 0) return undefined;
      i++;
    }
  }
  return depth === 0 ? found : undefined;
}

/** The line with the event's own top-level forwarder names renamed, or undefined when nothing changes (code 0). */
export function eventKubernetesLine(line: Buffer): Buffer | undefined {
  const s = line.toString('latin1');
  const found = matches(s);
  if (!found || found.length === 0) return undefined;
  let out = '';
  let copied = 0;
  for (const at of found) {
    out += s.slice(copied, at) + PREFIX;
    copied = at;
  }
  return Buffer.from(out + s.slice(copied), 'latin1');
}
