// ISO-8601 instants with microsecond precision. JavaScript Dates stop at milliseconds, so the
// arithmetic runs on epoch microseconds as bigint.
import { excerpt } from './client-text.js';
import type { Timestamp } from './reader.js';

export class DateTimeParseError extends Error {
  override readonly name = 'DateTimeParseError';
}

const EXAMPLE = 'e.g. 2026-05-12T09:14:03Z or 2026-05-12T11:14:03.512+02:00';
const FULL = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Parses ISO-8601 text with an offset (`Z`, `±hh:mm` or `±hhmm`) into the reader's Timestamp form:
 * UTC, six fractional digits, `Z`. Digits beyond microseconds are rounded half-to-even.
 */
export function parseDateTime(text: string): Timestamp {
  return formatMicros(parseDateTimeToMicros(text));
}

export function parseDateTimeToMicros(text: string): bigint {
  const quoted = excerpt(text, 64);
  if (DATE_ONLY.test(text)) {
    throw new DateTimeParseError(`DateTime needs a time and a time zone offset, ${EXAMPLE}; got ${quoted}`);
  }
  const m = FULL.exec(text);
  if (m === null) {
    throw new DateTimeParseError(`DateTime must be ISO-8601 with a time zone offset, ${EXAMPLE}; got ${quoted}`);
  }
  const [, y, mo, d, h, mi, s, frac, zulu, sign, oh, om] = m;
  if (zulu === undefined && sign === undefined) {
    throw new DateTimeParseError(`DateTime needs a time zone offset, ${EXAMPLE}; got ${quoted}`);
  }
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw new DateTimeParseError(`DateTime has a field out of range (month 1-12, valid day of month, hour 0-23, minute 0-59, second 0-59); got ${quoted}`);
  }
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const offH = Number(oh);
    const offM = Number(om);
    if (offH > 23 || offM > 59) throw new DateTimeParseError(`DateTime offset must be between -23:59 and +23:59; got ${quoted}`);
    offsetMinutes = (sign === '-' ? -1 : 1) * (offH * 60 + offM);
  }
  const wallMillis = Date.UTC(year, month - 1, day, hour, minute, second);
  // Date.UTC maps years 0-99 to 1900-1999.
  const fixedMillis = year < 100 ? new Date(wallMillis).setUTCFullYear(year) : wallMillis;
  const micros = BigInt(fixedMillis) * 1000n + fractionToMicros(frac ?? '') - BigInt(offsetMinutes) * 60_000_000n;
  if (micros < MIN_MICROS || micros > MAX_MICROS) {
    throw new DateTimeParseError(`DateTime must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z; got ${quoted}`);
  }
  return micros;
}

// Year 0001: ISO-8601's year 0000 (1 BC) is out of range for the backends' timestamp types.
const MIN_MICROS = BigInt(new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(1)) * 1000n;
const MAX_MICROS = BigInt(Date.UTC(9999, 11, 31, 23, 59, 59, 999)) * 1000n + 999n;

/** Rounds a fraction of a second to microseconds, half to even. */
function fractionToMicros(digits: string): bigint {
  if (digits.length <= 6) return BigInt(digits.padEnd(6, '0'));
  const kept = BigInt(digits.slice(0, 6));
  const rest = digits.slice(6);
  const half = '5'.padEnd(rest.length, '0');
  if (rest > half || (rest === half && kept % 2n === 1n)) return kept + 1n;
  return kept;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Epoch microseconds → `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
export function formatMicros(micros: bigint): Timestamp {
  const millis = floorDiv(micros, 1000n);
  const subMillis = micros - millis * 1000n;
  const iso = new Date(Number(millis)).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ for years 0-9999
  const base = iso.slice(0, 19);
  const fraction = `${iso.slice(20, 23)}${String(subMillis).padStart(3, '0')}`;
  return `${base}.${fraction}Z`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

const READER_FORM = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/;

/**
 * A reader Timestamp served to clients: UTC with trailing Z, fractional digits with trailing
 * zeros trimmed and omitted when zero (what java.time.Instant#toString prints), never rounded
 * to milliseconds: `2026-04-27T18:55:29.5Z`, `…29.238552Z`, `…55:00Z`.
 */
export function formatTimestampForOutput(value: Timestamp): string {
  // Readers other than the reference one may hand out other ISO forms (e.g. +00:00): normalize first.
  const m = READER_FORM.exec(value) ?? READER_FORM.exec(formatMicros(parseDateTimeToMicros(value)));
  if (m === null) throw new DateTimeParseError(`unformattable timestamp ${JSON.stringify(value)}`);
  const base = m[1] ?? '';
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  return fraction === '' ? `${base}Z` : `${base}.${fraction}Z`;
}
