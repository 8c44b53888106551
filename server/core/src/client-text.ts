// Text a client sends that reaches a backend. PostgreSQL rejects a NUL in text (an error on our side the
// client caused), and a lone UTF-16 surrogate has no UTF-8 encoding (drivers silently turn it into U+FFFD,
// so the backend would compare other text than the client sent). Both are refused before any Reader call.
import { badUserInput } from './errors.js';

// Without the u flag a regular expression sees UTF-16 code units, so unpaired halves are visible.
// eslint-disable-next-line no-control-regex -- NUL is exactly what is looked for.
const FORBIDDEN = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Throws BAD_USER_INPUT naming `where` when `value` holds a NUL character or a lone surrogate. */
export function checkClientText(value: string, where: string): string {
  const match = FORBIDDEN.exec(value);
  if (match === null) return value;
  if (match[0] === '\u0000') throw badUserInput(`${where} must not contain a NUL character (U+0000); found one at index ${match.index}`);
  throw badUserInput(`${where} is not valid Unicode text: a lone UTF-16 surrogate at index ${match.index} (\\u${match[0].charCodeAt(0).toString(16).toUpperCase()} without its pair)`);
}

/** The first `max` characters of a client value for an error message, JSON-quoted, marked when cut. */
export function excerpt(value: string, max = 40): string {
  return value.length <= max ? JSON.stringify(value) : `${JSON.stringify(value.slice(0, max))}… (${value.length} characters)`;
}

/** The same, for text shown as it is (already printed GraphQL or JSON). */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
