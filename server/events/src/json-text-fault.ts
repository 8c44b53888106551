// Why a text is not one JSON value, in words that name the fault: the reason an ingest error gives for a record no
// parser could read (Fluent Bit's unparsed line, held under `log`; an element of a Fluent Bit statement PostgreSQL
// could not parse; a line `init-job ingest` counts as malformed). The parsers' own messages cannot be that reason:
// they differ between parsers (PostgreSQL, Jackson, V8, yyjson), between releases, and PostgreSQL's follow the
// server's lc_messages, so one line would be explained differently by each backend and path.
//
// The fault is defined on the text alone, read left to right as a strict JSON parser (RFC 8259) reads it, token by
// token. The first token with a fault names it; within a token, the token's own spelling is read first (a string's
// raw control character or bad escape, a bare word that is no JSON value), then whether it may stand where it
// stands, then, for a bracket, whether it opens a container deeper than 1000 levels (the top-level container is
// level 1): MAX_EVENT_NESTING_DEPTH, the line-repair rule's R5, which every writer applies and beyond which Jackson
// does not write and OpenSearch does not read. Tokens: whitespace (space, TAB, LF, CR), the six punctuators
// `{ } [ ] : ,`, a string (`"` to the next quote not taken by a backslash, or to the end of the text), a control
// character outside a string, and any other run of characters up to one of those. Positions count characters
// (code points) from 1.
//
// server/postgresql/normalizer/042-json-text-fault.sql is the same definition for PostgreSQL; the two are held
// to the same answer for every text by server/postgresql/test/json-text-fault.test.ts.
import { MAX_EVENT_NESTING_DEPTH } from './event-line-repair.js';

/** The start of every reason given for a text that is not valid JSON. */
export const NOT_VALID_JSON = 'event is not valid JSON: ';

export const ENDS_EARLY = 'ends before the JSON text is complete';

/** Characters of a token shown in a fault; a longer token is cut and followed by `…`. */
export const SHOWN_TOKEN_CHARACTERS = 40;

export type JsonTextType = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export type JsonTextReading = { readonly valid: true; readonly type: JsonTextType } | { readonly valid: false; readonly fault: string };

type Kind = 'string' | 'word' | '{' | '}' | '[' | ']' | ':' | ',';

type Expectation = 'value' | 'value or ]' | 'name or }' | 'name' | 'colon' | 'comma or }' | 'comma or ]' | 'end';

const EXPECTED_WORDS: Readonly<Record<Expectation, string>> = {
  value: 'a value',
  'value or ]': 'a value or "]"',
  'name or }': 'a member name or "}"',
  name: 'a member name',
  colon: '":"',
  'comma or }': '"," or "}"',
  'comma or ]': '"," or "]"',
  end: 'the end of the text',
};

const JSON_WORD = /^(?:true|false|null|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)$/;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isPunctuator(c: number): boolean {
  return c === 0x7b || c === 0x7d || c === 0x5b || c === 0x5d || c === 0x3a || c === 0x2c;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function codePoint(c: number): string {
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}

function shown(token: string): string {
  const chars = Array.from(token);
  return chars.length > SHOWN_TOKEN_CHARACTERS ? `${chars.slice(0, SHOWN_TOKEN_CHARACTERS).join('')}…` : token;
}

class Fault {
  constructor(readonly message: string, readonly at: number | undefined) {}
}

/** How a strict JSON parser reads `text`: one JSON value and its type, or the first fault. */
export function readJsonText(text: string): JsonTextReading {
  const n = text.length;
  // Characters (code points) before UTF-16 index i, counted on demand: only the fault's position needs it.
  const position = (i: number): number => {
    let count = 1;
    for (let j = 0; j < i; j++) {
      const c = text.charCodeAt(j);
      if (c >= 0xd800 && c <= 0xdbff && j + 1 < i) {
        const d = text.charCodeAt(j + 1);
        if (d >= 0xdc00 && d <= 0xdfff) j++;
      }
      count++;
    }
    return count;
  };
  const fail = (message: string, at?: number): JsonTextReading => ({
    valid: false,
    fault: at === undefined ? message : `${message} at character ${position(at)}`,
  });

  /** The fault of a string's body, text[from, to); `open`: the text ended before its closing quote. */
  const stringFault = (from: number, to: number, open: boolean): Fault | undefined => {
    let k = from;
    while (k < to) {
      const c = text.charCodeAt(k);
      if (c < 0x20) return new Fault(`control character ${codePoint(c)} in a string`, k);
      if (c !== BACKSLASH) {
        k++;
        continue;
      }
      if (k + 1 >= to) return open ? new Fault(ENDS_EARLY, undefined) : new Fault('invalid escape \\ in a string', k);
      const e = text.charCodeAt(k + 1);
      if (e === QUOTE || e === BACKSLASH || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
        k += 2;
        continue;
      }
      if (e === 0x75) {
        let hex = 0;
        while (hex < 4 && k + 2 + hex < to && isHex(text.charCodeAt(k + 2 + hex))) hex++;
        if (hex === 4) {
          k += 6;
          continue;
        }
        if (open && k + 2 + hex >= to) return new Fault(ENDS_EARLY, undefined);
        return new Fault(`invalid escape ${text.slice(k, k + 2 + hex)} in a string`, k);
      }
      if (e < 0x20) return new Fault(`control character ${codePoint(e)} in a string`, k + 1);
      return new Fault(`invalid escape \\${String.fromCodePoint(text.codePointAt(k + 1)!)} in a string`, k);
    }
    return open ? new Fault(ENDS_EARLY, undefined) : undefined;
  };

  const containers: ('object' | 'array')[] = [];
  let expect: Expectation = 'value';
  let type: JsonTextType | undefined;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isWhitespace(c)) {
      i++;
      continue;
    }
    const start = i;
    let kind: Kind;
    let token: string;
    if (isPunctuator(c)) {
      kind = text[i] as Kind;
      token = text[i]!;
      i++;
    } else if (c === QUOTE) {
      let j = i + 1;
      while (j < n && text.charCodeAt(j) !== QUOTE) j += text.charCodeAt(j) === BACKSLASH ? 2 : 1;
      const open = j >= n;
      const fault = stringFault(i + 1, Math.min(j, n), open);
      if (fault) return fail(fault.message, fault.at);
      kind = 'string';
      token = '';
      i = j + 1;
    } else if (c < 0x20) {
      return fail(`control character ${codePoint(c)} outside a string`, i);
    } else {
      let j = i;
      while (j < n) {
        const d = text.charCodeAt(j);
        if (isWhitespace(d) || isPunctuator(d) || d === QUOTE || d < 0x20) break;
        j++;
      }
      token = text.slice(i, j);
      if (!JSON_WORD.test(token)) return fail(`invalid token "${shown(token)}"`, i);
      kind = 'word';
      i = j;
    }

    const allowed =
      expect === 'value' ? kind === 'string' || kind === 'word' || kind === '{' || kind === '['
      : expect === 'value or ]' ? kind === 'string' || kind === 'word' || kind === '{' || kind === '[' || kind === ']'
      : expect === 'name or }' ? kind === 'string' || kind === '}'
      : expect === 'name' ? kind === 'string'
      : expect === 'colon' ? kind === ':'
      : expect === 'comma or }' ? kind === ',' || kind === '}'
      : expect === 'comma or ]' ? kind === ',' || kind === ']'
      : false;
    if (!allowed) {
      const found = kind === 'string' ? 'a string' : `"${shown(token)}"`;
      return fail(`expected ${EXPECTED_WORDS[expect]} but found ${found}`, start);
    }
    if (type === undefined) {
      type = kind === '{' ? 'object' : kind === '[' ? 'array' : kind === 'string' ? 'string'
        : token === 'true' || token === 'false' ? 'boolean' : token === 'null' ? 'null' : 'number';
    }

    const naming = (expect === 'name or }' || expect === 'name') && kind === 'string';
    let valueEnded = false;
    if (kind === '{' || kind === '[') {
      if (containers.length + 1 > MAX_EVENT_NESTING_DEPTH) return fail(`nested deeper than ${MAX_EVENT_NESTING_DEPTH} levels`, start);
      containers.push(kind === '{' ? 'object' : 'array');
      expect = kind === '{' ? 'name or }' : 'value or ]';
    } else if (kind === '}' || kind === ']') {
      containers.pop();
      valueEnded = true;
    } else if (kind === ':') {
      expect = 'value';
    } else if (kind === ',') {
      expect = containers[containers.length - 1] === 'array' ? 'value' : 'name';
    } else if (naming) {
      expect = 'colon';
    } else {
      valueEnded = true;
    }
    if (valueEnded) {
      const top = containers[containers.length - 1];
      expect = top === undefined ? 'end' : top === 'object' ? 'comma or }' : 'comma or ]';
    }
  }
  if (expect !== 'end' || type === undefined) return fail(ENDS_EARLY);
  return { valid: true, type };
}

/**
 * The longest text whose fault is looked for: the longest line our Fluent Bit configuration reads (Buffer_Max_Size
 * 256k). Finding the fault costs a few µs per token, in the flush that carries the record: a 2 MB line of a million
 * tokens from a forwarder without that bound held its flush for 6-8 s.
 */
export const MAX_EXAMINED_CHARACTERS = 262_144;

/** Whether `text` holds more than `max` code points (without counting a long text to its end). */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false;
  if (text.length > 2 * max) return true;
  let points = 0;
  for (const _ of text) if (++points > max) return true;
  return false;
}

/**
 * The ingest-error reason for a record that is this text: `event is not valid JSON: <the fault>`, `event is not a
 * JSON object (got <type>)` for a valid JSON value that is not an object, undefined for a JSON object; a text longer
 * than MAX_EXAMINED_CHARACTERS is not examined (it is no JSON object any parser on the way could read).
 */
export function jsonTextProblem(text: string): string | undefined {
  if (longerThan(text, MAX_EXAMINED_CHARACTERS)) return `event is not a readable JSON object: longer than ${MAX_EXAMINED_CHARACTERS} characters, not examined further`;
  const reading = readJsonText(text);
  if (!reading.valid) return `${NOT_VALID_JSON}${reading.fault}`;
  return reading.type === 'object' ? undefined : `event is not a JSON object (got ${reading.type})`;
}
