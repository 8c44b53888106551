// An event time to epoch microseconds, exactly as the PostgreSQL normalizer reads it (010-event-time.sql), so both
// backends store the same instant for every spelling:
// - a JSON number is the IEEE double it denotes; seconds and milliseconds are split into an exact whole part and
//   an exact fraction, the fraction scaled in double arithmetic and rounded half-to-even (PostgreSQL's rint), so
//   `1.7954415253508985E9` (the producer) and `1795441525.350899` (Fluent Bit's re-print) are one instant. The
//   ingest pipeline's wi.*_us fields round the shortest decimal of the double instead, which differs on exact
//   decimal halves, so the normalizer always derives times here, from `_source`.
// - a numeric string is its exact decimal; an ISO-8601 string needs an offset and its fraction is rounded as
//   PostgreSQL's timestamptz input does (rint(strtod(".fff") × 1e6)).
// `undefined` means "not a valid time" (the event is then recorded as an ingest error).
import { JsonNumber, type JsonValue } from './lossless-json.js';

/** PostgreSQL's plausibility bound for an event time (|µs| ≤ 9e15). */
const MAX_MICROS = 9_000_000_000_000_000n;

export function rint(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** double_epoch_to_time: the double's microseconds, or undefined. */
export function doubleEpochMicros(d: number): number | undefined {
  if (!Number.isFinite(d)) return undefined;
  const a = Math.abs(d);
  if (a < 1e11) {
    if (a > 9e9) return undefined;
    const f = Math.floor(d);
    return f * 1_000_000 + rint((d - f) * 1e6);
  }
  if (a < 1e14) {
    if (a > 9e12) return undefined;
    const f = Math.floor(d);
    return f * 1000 + rint((d - f) * 1e3);
  }
  if (a < 1e17) return a > 9e15 ? undefined : rint(d);
  if (a < 9e18) {
    // an integral double: exact integer division, half away from zero (numeric round); a tie cannot occur
    const n = BigInt(d);
    const q = n / 1000n;
    const r = n % 1000n;
    const rounded = r * 2n >= 1000n ? q + 1n : r * 2n <= -1000n ? q - 1n : q;
    return Number(rounded);
  }
  return undefined;
}

/** An exact decimal: value = mantissa × 10^-scale. */
interface Decimal {
  readonly mantissa: bigint;
  readonly scale: number;
}

function parseDecimal(text: string): Decimal {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text)!;
  const digits = `${m[2] ?? ''}${m[3] ?? ''}` || '0';
  let scale = (m[3] ?? '').length - Number(m[4] ?? 0);
  let mantissa = BigInt(digits) * (m[1] === '-' ? -1n : 1n);
  if (scale < 0) {
    mantissa *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { mantissa, scale };
}

function compareMagnitude(d: Decimal, power: number): number {
  // |d| vs 10^power
  const abs = d.mantissa < 0n ? -d.mantissa : d.mantissa;
  const right = power + d.scale >= 0 ? 10n ** BigInt(power + d.scale) : 0n;
  return abs < right ? -1 : abs > right ? 1 : 0;
}

/** micros_to_time of an exact decimal number of microseconds: half-to-even, bounded. */
function decimalMicros(d: Decimal, shiftDigits: number): number | undefined {
  // value × 10^shiftDigits, rounded half to even
  let mantissa = d.mantissa;
  let scale = d.scale - shiftDigits;
  if (scale < 0) {
    mantissa *= 10n ** BigInt(-scale);
    scale = 0;
  }
  const unit = 10n ** BigInt(scale);
  let q = mantissa / unit;
  const r = mantissa % unit;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice > unit || (twice === unit && q % 2n !== 0n)) q += mantissa < 0n ? -1n : 1n;
  if (q > MAX_MICROS || q < -MAX_MICROS) return undefined;
  return Number(q);
}

/** epoch_to_time of a numeric string's exact decimal. */
export function decimalEpochMicros(text: string): number | undefined {
  const d = parseDecimal(text);
  if (compareMagnitude(d, 11) < 0) return decimalMicros(d, 6);
  if (compareMagnitude(d, 14) < 0) return decimalMicros(d, 3);
  if (compareMagnitude(d, 17) < 0) return decimalMicros(d, 0);
  if (compareMagnitude(d, 25) < 0) return decimalMicros(d, -3);
  return undefined;
}

const NUMERIC_STRING = /^[+-]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})([eE][+-]?[0-9]{1,3})?$/;
const ISO = /^([0-9]{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9])([.,][0-9]{1,12})?)?([Zz]|([+-])([01][0-9]|2[0-3])(?::?([0-5][0-9]))?)$/;

export class ImpossibleDateError extends Error {}

/** An ISO-8601 string with an offset; undefined when it does not have that shape; throws for an impossible date
 * that has it (PostgreSQL raises there, and its bisection records the event as a normalizer error). */
export function isoMicros(text: string): number | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number) as [number, number, number, number, number];
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate();
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const maxDay = month === 2 ? (leap ? 29 : 28) : daysInMonth;
  if (day > maxDay || year === 0) throw new ImpossibleDateError(`date/time field value out of range: "${text}"`);
  const fsec = m[7] === undefined ? 0 : rint(Number.parseFloat(`.${m[7].slice(1)}`) * 1_000_000);
  let offsetSeconds = 0;
  if (m[9] !== undefined) offsetSeconds = (Number(m[10]) * 3600 + Number(m[11] ?? 0) * 60) * (m[9] === '-' ? -1 : 1);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const epochSeconds = BigInt(date.getTime() / 1000) - BigInt(offsetSeconds);
  return Number(epochSeconds * 1_000_000n + BigInt(fsec));
}

/** parse_event_time: a JSON number (as a double) or a string; undefined when not a time. */
export function eventTimeMicros(v: JsonValue | undefined): number | undefined {
  if (v instanceof JsonNumber) {
    const d = v.toDouble();
    // json_number_double: beyond any epoch magnitude is not a time
    if (!(Math.abs(d) < 1e25)) return undefined;
    return doubleEpochMicros(d);
  }
  if (typeof v === 'string') {
    const trimmed = v.replace(/^ +| +$/g, '');
    if (NUMERIC_STRING.test(trimmed)) return decimalEpochMicros(trimmed);
    return isoMicros(v);
  }
  return undefined;
}

/** 'YYYY-MM-DDTHH:MM:SS.ffffffZ', as the PostgreSQL reader prints timestamps. */
export function microsToIso(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = us - ms * 1000;
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  return `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}
