// The line-repair rule: the one spelling, on every writer path, of the few changes that keep a producer line from
// failing a whole flush (PostgreSQL rejects the statement, or a forwarder's JSON parser loses or corrupts the
// event). It works on the raw line before any JSON parser sees it, so everything it does not repair (key order,
// number spelling, whitespace, escapes) reaches the database byte for byte.
//
//   R1 invalid UTF-8         each maximal invalid subsequence → U+FFFD (exactly WHATWG TextDecoder, non-fatal)
//   R2 `\u0000` escape       → `\ufffd` (JSONB cannot hold U+0000)
//   R3 lone surrogate escape → `\ufffd` (valid pairs stay)
//   R4 out-of-range number   → a JSON string holding the literal (`1e999` → `"1e999"`)
//   R5 container at depth ≥ 1001 (top-level object = 1) → a JSON string holding its exact text (Jackson's limit)
//   R6 bare token that is not a JSON number → a JSON string holding its text (`1.e999` → `"1.e999"`, `1.0.0` →
//      `"1.0.0"`, `01` → `"01"`)
//   R7 exponent without sign in a number without `.` → `+` added (`5e3` → `5e+3`: the same number to every JSON
//      reader)
//
// R4, R6 and R7 exist because of Fluent Bit 4.0.13's JSON tokenizer (jsmn, src/flb_pack.c): a bare value is any
// run of printable ASCII up to whitespace, `,`, `]` or `}` that starts with `-` or a digit; a run holding `.` or
// an exponent with a sign is read with strtod (`1.e999` → inf, printed `inf`, which OpenSearch refuses for the whole
// chunk for ever; `1.0.0` → 1), any other with strtoll (`5e3` → 5, `1e999` → 1). Runs are delimited exactly so
// (R6 and R7 look only at runs starting with `-` or a digit, and not at one followed by `:`, a key jsmn refuses
// anyway), so every path reads the repaired line alike: 4.0.13, 4.2.8 (yyjson) and JSON.parse.
//
// R1 applies to every line (a text column must hold valid UTF-8 whatever the line is); R2–R7 only to lines that
// start, after JSON whitespace, with `{` (anything else is not an event and is left to the writer's
// classification). R5 needs the container's closing bracket: a line that ends inside it is not JSON and keeps
// that text as it is. fluent-bit/postgresql/repair-line.lua is the same rule for Fluent Bit; both are held to
// fixtures/line-repairs.json byte for byte.
import { isUtf8 } from 'node:buffer';

export type LineRepair = 'invalid-utf8' | 'nul-escape' | 'lone-surrogate' | 'number-overflow' | 'nesting-depth' | 'number-token' | 'exponent-sign';

/** Deepest nesting kept as JSON (the top-level object is level 1). */
export const MAX_EVENT_NESTING_DEPTH = 1000;

/** The kinds in rule order: `repairs` lists each kind found once, in this order. */
export const LINE_REPAIRS: readonly LineRepair[] = ['invalid-utf8', 'nul-escape', 'lone-surrogate', 'number-overflow', 'nesting-depth', 'number-token', 'exponent-sign'];

// ignoreBOM keeps a leading U+FEFF: nothing but the seven rules may change the line.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const UNSIGNED_EXPONENT = /([eE])(\d)/;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const COMMA = 0x2c;
const COLON = 0x3a;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

export function repairEventLine(line: Uint8Array): { text: string; repairs: readonly LineRepair[] } {
  const text = decoder.decode(line);
  const found = new Set<LineRepair>();
  if (!isUtf8(line)) found.add('invalid-utf8');
  // R6 can apply to any bare value, so every line that starts with an object is scanned (strings are skipped with
  // indexOf, so the scan costs little more than one pass over the values outside strings).
  if (!startsWithObject(text)) return { text, repairs: [...found] };
  const repaired = repairJson(text, found);
  return { text: repaired, repairs: LINE_REPAIRS.filter((r) => found.has(r)) };
}

function startsWithObject(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === OPEN_BRACE) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}

function hex4(s: string, at: number): number {
  if (at + 4 > s.length) return -1;
  let v = 0;
  for (let k = at; k < at + 4; k++) {
    const c = s.charCodeAt(k);
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** A byte jsmn keeps in a bare value: printable ASCII other than `,` `]` `}` (space and controls end it). */
function isTokenChar(c: number): boolean {
  return c > 0x20 && c < 0x7f && c !== COMMA && c !== CLOSE_BRACKET && c !== CLOSE_BRACE;
}

function followedByColon(s: string, from: number): boolean {
  let j = from;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c === COLON;
    j++;
  }
  return false;
}

/** R4, R6, R7 for one bare value (a run starting with `-` or a digit): its new text and kind, or undefined. */
function numberTokenRepair(token: string): { text: string; kind: LineRepair } | undefined {
  if (!JSON_NUMBER.test(token)) return { text: JSON.stringify(token), kind: 'number-token' };
  if (outOfDoubleRange(token)) return { text: `"${token}"`, kind: 'number-overflow' };
  if (!token.includes('.') && UNSIGNED_EXPONENT.test(token)) return { text: token.replace(UNSIGNED_EXPONENT, '$1+$2'), kind: 'exponent-sign' };
  return undefined;
}

/** A JSON number literal a double cannot hold in magnitude: it parses to ±Infinity, or to ±0 despite a non-zero digit. */
function outOfDoubleRange(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isFinite(value)) return true;
  return value === 0 && /[1-9]/.test(literal.split(/[eE]/)[0] ?? '');
}

/**
 * One left-to-right pass over strings, escapes, numbers and depth. Output is collected in pieces: unchanged spans
 * are sliced from the input, so a repaired 2 MB line is copied once. While a too-deep container is being
 * captured its pieces go to a separate list, which becomes one JSON string when the container closes.
 */
function repairJson(s: string, found: Set<LineRepair>): string {
  const n = s.length;
  const out: string[] = [];
  let capture: string[] | null = null;
  let captureDepth = -1;
  let sink = out;
  let copied = 0;
  let depth = 0;
  const flushTo = (end: number): void => {
    if (end > copied) sink.push(s.slice(copied, end));
    copied = end;
  };
  const replace = (from: number, to: number, text: string, kind: LineRepair): void => {
    flushTo(from);
    sink.push(text);
    copied = to;
    found.add(kind);
  };

  // Strings are skipped with indexOf. Both next positions are remembered until passed, so each search covers new
  // text only (a long string full of escapes stays linear).
  let nextBackslash = -1;
  let nextQuote = -1;
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      i++;
      while (i < n) {
        if (nextBackslash < i) {
          nextBackslash = s.indexOf('\\', i);
          if (nextBackslash < 0) nextBackslash = n;
        }
        if (nextQuote < i) {
          nextQuote = s.indexOf('"', i);
          if (nextQuote < 0) nextQuote = n;
        }
        if (nextQuote < nextBackslash) {
          i = nextQuote + 1;
          break;
        }
        i = nextBackslash;
        if (i >= n) break;
        const code = s.charCodeAt(i + 1) === LOWER_U ? hex4(s, i + 2) : -1;
        if (code < 0) {
          i += 2; // any other escape: the escaped character is never structural
        } else if (code === 0) {
          replace(i, i + 6, '\\ufffd', 'nul-escape');
          i += 6;
        } else if (code >= 0xd800 && code <= 0xdbff) {
          const next = s.charCodeAt(i + 6) === BACKSLASH && s.charCodeAt(i + 7) === LOWER_U ? hex4(s, i + 8) : -1;
          if (next >= 0xdc00 && next <= 0xdfff) {
            i += 12;
          } else {
            replace(i, i + 6, '\\ufffd', 'lone-surrogate');
            i += 6;
          }
        } else if (code >= 0xdc00 && code <= 0xdfff) {
          replace(i, i + 6, '\\ufffd', 'lone-surrogate');
          i += 6;
        } else {
          i += 6;
        }
      }
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (capture === null && depth >= MAX_EVENT_NESTING_DEPTH) {
        flushTo(i);
        capture = [];
        sink = capture;
        captureDepth = depth;
      }
      depth++;
      i++;
      continue;
    }
    if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth > 0) depth--;
      i++;
      if (capture !== null && depth === captureDepth) {
        flushTo(i);
        sink = out;
        out.push(JSON.stringify(capture.join('')));
        capture = null;
        found.add('nesting-depth');
      }
      continue;
    }
    // A bare value as jsmn delimits it. Runs starting with `+` or `.` are skipped whole but left alone (jsmn refuses
    // them, so every reader refuses the line); inside a captured container nothing is repaired.
    if (c === MINUS || c === PLUS || c === DOT || (c >= DIGIT_0 && c <= DIGIT_9)) {
      let j = i + 1;
      while (j < n && isTokenChar(s.charCodeAt(j))) j++;
      if (capture === null && c !== PLUS && c !== DOT && !followedByColon(s, j)) {
        const repair = numberTokenRepair(s.slice(i, j));
        if (repair) replace(i, j, repair.text, repair.kind);
      }
      i = j;
      continue;
    }
    i++;
  }
  flushTo(n);
  // A container still open at the end of the line: not JSON, so its text stays as it is.
  if (capture !== null) out.push(capture.join(''));
  return out.join('');
}
