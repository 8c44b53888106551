// The OpenSearch document rule, in TypeScript: the twin of fluent-bit/opensearch/opensearch-document.lua (the last of
// repeated member names is kept, top-level names OpenSearch takes as metadata or refuses are renamed
// `wi_event_<name>`, a member whose name is over 50,000 bytes becomes `"wi_event_long_name":"<its text>"`; see the
// script's header for each case). The one TypeScript place for the rule: the Fluent Bit model
// (fluent-bit/model/opensearch-document.ts re-exports it) and the bulk writer that stands in for Fluent Bit
// (fluent-bit-bulk.ts) both run it. fluent-bit/test/opensearch-document-lua.test.ts runs the real script under luajit
// and holds both to the same bytes. Works on bytes (a latin1 string: one character per byte), as the Lua script does.

const RENAME_PREFIX = 'wi_event_';
const RESERVED = new Set(['@timestamp', 'wi', 'kubernetes']);
/** OpenSearch's parser refuses longer names (StreamReadConstraints maxNameLength, in UTF-8 bytes). */
export const MAX_NAME_BYTES = 50_000;
const LONG_NAME = `${RENAME_PREFIX}long_name`;
const QUOTE_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

/** JSON string of a member's text (bytes as latin1; the spelling of the script's json_quote). */
function jsonQuote(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what JSON strings must escape
  return `"${text.replace(/[\x00-\x1f"\\]/g, (c) => QUOTE_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}
const SHORT: Readonly<Record<number, string>> = { 34: '"', 92: '\\', 47: '/', 98: '\b', 102: '\f', 110: '\n', 114: '\r', 116: '\t' };

/** UTF-8 bytes of a code point, as a latin1 string. */
function utf8Of(code: number): string {
  return Buffer.from(String.fromCodePoint(code), 'utf8').toString('latin1');
}

function hex4(s: string, at: number): number | undefined {
  const h = s.slice(at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(h) ? Number.parseInt(h, 16) : undefined;
}

/** The decoded bytes of a string token's inner text (a lone surrogate decodes to U+FFFD). */
export function decodeKey(raw: string): string {
  if (!raw.includes('\\')) return raw;
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const b = raw.indexOf('\\', i);
    if (b < 0) {
      out += raw.slice(i);
      break;
    }
    out += raw.slice(i, b);
    const e = raw.charCodeAt(b + 1);
    if (e === 117) {
      let code = hex4(raw, b + 2) ?? 0xfffd;
      let step = 6;
      if (code >= 0xd800 && code <= 0xdbff && raw.charCodeAt(b + 6) === 92 && raw.charCodeAt(b + 7) === 117) {
        const low = hex4(raw, b + 8) ?? 0;
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = 0x10000 + (code - 0xd800) * 1024 + (low - 0xdc00);
          step = 12;
        } else {
          code = 0xfffd;
        }
      } else if (code >= 0xd800 && code <= 0xdfff) {
        code = 0xfffd;
      }
      out += utf8Of(code);
      i = b + step;
    } else {
      out += SHORT[e] ?? '';
      i = b + 2;
    }
  }
  return out;
}

/**
 * A dotted name OpenSearch splits into object fields and refuses when one of them is empty or only characters up to
 * U+0020 (`.a`, `a..b`, `.`, ` ..`, `a. .b`: "object field cannot contain only whitespace"); trailing dots are
 * ignored (`a..` is taken), and a name without a dot is one field (` ` is taken).
 */
function hasEmptySegment(name: string): boolean {
  if (!name.includes('.')) return false;
  return name.replace(/\.+$/, '').split('.').some((segment) => [...segment].every((c) => c <= ' '));
}

function topLevelRename(name: string, raw: string): string | undefined {
  if (name === '' || hasEmptySegment(name)) return RENAME_PREFIX + raw.replace(/\./g, '_');
  if (name.startsWith('_') || RESERVED.has(name)) return RENAME_PREFIX + raw;
  return undefined;
}

export const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/** Offset of the quote that closes the JSON string opened at `open` (one not escaped by an odd run of backslashes). */
export function closingQuote(s: string, open: number): number | undefined {
  for (let from = open + 1; ;) {
    const q = s.indexOf('"', from);
    if (q < 0) return undefined;
    let k = q - 1;
    while (k > open && s.charCodeAt(k) === 92) k--;
    if ((q - 1 - k) % 2 === 0) return q;
    from = q + 1;
  }
}

interface Frame {
  readonly object: boolean;
  readonly members: number[];
  readonly names: Map<string, number>;
  /** D3: members with a too long name so far, and the one not yet ended (its key's offset and new name). */
  long: number;
  pending?: { readonly from: number; readonly name: string };
}

interface Edit {
  readonly from: number;
  /** exclusive */
  readonly to: number;
  readonly text: string;
}

function plan(s: string): Edit[] | undefined {
  const len = s.length;
  let i = 0;
  while (i < len && isSpace(s.charCodeAt(i))) i++;
  if (s.charCodeAt(i) !== 123) return undefined;
  const stack: Frame[] = [];
  const deletions: [Frame, number][] = [];
  const edits: Edit[] = [];
  let expectKey = false;
  const finishLong = (frame: Frame, at: number): void => {
    const pending = frame.pending!;
    frame.pending = undefined;
    let last = at - 1;
    while (last > pending.from && isSpace(s.charCodeAt(last))) last--;
    edits.push({ from: pending.from, to: last + 1, text: `"${pending.name}":${jsonQuote(s.slice(pending.from, last + 1))}` });
  };
  while (i < len) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      const j = closingQuote(s, i);
      if (j === undefined) return undefined;
      const frame = stack[stack.length - 1];
      if (frame?.object && expectKey) {
        const raw = s.slice(i + 1, j);
        let name = decodeKey(raw);
        if (name.length > MAX_NAME_BYTES) {
          frame.long++;
          name = frame.long === 1 ? LONG_NAME : `${LONG_NAME}_${frame.long}`;
          frame.pending = { from: i, name };
        } else if (stack.length === 1) {
          const renamed = topLevelRename(name, raw);
          if (renamed !== undefined) {
            edits.push({ from: i + 1, to: j, text: renamed });
            name = decodeKey(renamed);
          }
        }
        frame.members.push(i);
        const earlier = frame.names.get(name);
        if (earlier !== undefined) deletions.push([frame, earlier]);
        frame.names.set(name, frame.members.length - 1);
        expectKey = false;
      }
      i = j + 1;
    } else if (c === 123 || c === 91) {
      stack.push({ object: c === 123, members: [], names: new Map(), long: 0 });
      expectKey = c === 123;
      i++;
    } else if (c === 125 || c === 93) {
      const frame = stack.pop();
      if (!frame || frame.object !== (c === 125)) return undefined;
      if (frame.pending) finishLong(frame, i);
      i++;
      if (stack.length === 0) {
        while (i < len && isSpace(s.charCodeAt(i))) i++;
        if (i < len) return undefined;
      }
    } else if (c === 44) {
      const frame = stack[stack.length - 1];
      if (!frame) return undefined;
      if (frame.pending) finishLong(frame, i);
      expectKey = frame.object;
      i++;
    } else {
      if (stack.length === 0) return undefined;
      i++;
    }
  }
  if (stack.length !== 0) return undefined;
  for (const [frame, index] of deletions) edits.push({ from: frame.members[index]!, to: frame.members[index + 1]!, text: '' });
  return edits;
}

/** The line after the rule, or undefined when nothing changes (the filter returns 0). */
export function opensearchDocumentLine(line: Buffer): Buffer | undefined {
  const s = line.toString('latin1');
  const edits = plan(s);
  if (!edits || edits.length === 0) return undefined;
  // By start, the longer first: the script's order (a rename starts after its member's key quote, a deletion at
  // it; a deleted member's span contains a D3 edit of the same member, which is then skipped).
  edits.sort((a, b) => a.from - b.from || b.to - a.to);
  let out = '';
  let copied = 0;
  for (const e of edits) {
    if (e.from >= copied) {
      out += s.slice(copied, e.from) + e.text;
      copied = e.to;
    }
  }
  out += s.slice(copied);
  return Buffer.from(out, 'latin1');
}
