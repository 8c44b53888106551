// The fingerprint of the normalizer definitions: what PostgreSQL executes, without what it ignores. Comments and
// whitespace do not count, so the migrator neither re-applies the definitions nor asks for a rules version bump when a
// file only gains a comment or is re-indented; anything else (a keyword, a literal, a renamed file order) counts.
//
// The text is read as PostgreSQL's lexer reads it: `--` and `/* */` comments (nested) outside literals are dropped;
// quoted strings ('…', with doubled quotes; E'…' also with backslash escapes) and quoted identifiers ("…") are kept
// byte for byte; a dollar-quoted string is read as code, so its comments and whitespace do not count either (in
// server/postgresql/normalizer every one is a function body: a data literal there is written with quotes). Between
// two pieces of code, whitespace and comments become one space where the two characters could otherwise join into
// one token (two word characters, two operator characters), and nothing elsewhere.
import { createHash } from 'node:crypto';

/** The text as PostgreSQL reads it, without comments and with whitespace normalized (module comment). */
export function normalizeSqlText(sql: string): string {
  const out: string[] = [];
  let last = ''; // last character written
  let gap = false; // whitespace or a comment since `last`
  const write = (text: string): void => {
    if (text === '') return;
    if (gap && last !== '' && joins(last, text[0]!)) out.push(' ');
    gap = false;
    out.push(text);
    last = text[text.length - 1]!;
  };
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (WHITESPACE.test(c)) {
      gap = true;
      i++;
    } else if (sql.startsWith('--', i)) {
      LINE_END.lastIndex = i;
      i = LINE_END.exec(sql) === null ? sql.length : LINE_END.lastIndex;
      gap = true;
    } else if (sql.startsWith('/*', i)) {
      i = blockCommentEnd(sql, i);
      gap = true;
    } else if (c === "'") {
      const end = quotedEnd(sql, i, "'", escapeString(sql, i));
      write(sql.slice(i, end));
      i = end;
    } else if (c === '"') {
      const end = quotedEnd(sql, i, '"', false);
      write(sql.slice(i, end));
      i = end;
    } else {
      const tag = c === '$' && !IDENTIFIER_PART.test(sql[i - 1] ?? ' ') ? dollarTag(sql, i) : null;
      if (tag === null) {
        write(c);
        i++;
        continue;
      }
      const close = sql.indexOf(tag, i + tag.length);
      const end = close < 0 ? sql.length : close;
      write(`${tag}${normalizeSqlText(sql.slice(i + tag.length, end))}${close < 0 ? '' : tag}`);
      i = close < 0 ? sql.length : close + tag.length;
    }
  }
  return out.join('');
}

/** sha256 of the normalized text of one definition file. */
export function sqlFingerprint(sql: string): string {
  return sha256(normalizeSqlText(sql));
}

/** One fingerprint of definition files applied in this order (their names do not count, their order does). */
export function definitionsFingerprint(files: readonly { readonly sql: string }[]): string {
  return sha256(JSON.stringify(files.map((f) => normalizeSqlText(f.sql))));
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const WHITESPACE = /[ \t\n\r\f\v]/;
/** A `--` comment ends at a line break, `\n` or `\r`. */
const LINE_END = /[\n\r]/g;
const IDENTIFIER_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
/** `$$` or `$tag$` (a tag is an identifier without `$`); `$1` is a parameter, not a quote. */
const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;
/** Characters of identifiers, keywords, numbers, parameters and literals: two of them joined would be one token. */
const WORD = /[A-Za-z0-9_$.'"\u0080-\uffff]/;
/** Characters of operators (and of `::`, `:=`): two of them joined could be one operator. */
const OPERATOR = /[-+*/<>=~!@#%^&|`?:]/;

function dollarTag(sql: string, at: number): string | null {
  DOLLAR_TAG.lastIndex = at;
  return DOLLAR_TAG.exec(sql)?.[0] ?? null;
}

function joins(before: string, after: string): boolean {
  return (WORD.test(before) && WORD.test(after)) || (OPERATOR.test(before) && OPERATOR.test(after));
}

/** A string constant whose quote follows an `E` prefix reads backslash escapes (`E'\''`). */
function escapeString(sql: string, quote: number): boolean {
  const prefix = sql[quote - 1];
  return (prefix === 'E' || prefix === 'e') && !IDENTIFIER_PART.test(sql[quote - 2] ?? ' ');
}

/** The index after the closing quote (a doubled quote is part of the text); the end of the text if none. */
function quotedEnd(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i]!;
    if (backslashEscapes && c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (sql[i + 1] !== quote) return i + 1;
      i += 2;
    } else {
      i++;
    }
  }
  return sql.length;
}

/** The index after a block comment starting at `start`; block comments nest, as in PostgreSQL. */
function blockCommentEnd(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return sql.length;
}
