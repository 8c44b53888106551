// A task event's identity within its (instance, position, time, kind), computed exactly as PostgreSQL's
// 045-event-identity.sql does: task name, status, input, output and error, payloads as their jsonb text with numbers
// at 14 significant digits where the text holds a long or zero-padded number (so a forwarder's %.16g re-print is
// the same event), hashed with hashtextextended. The record time, `@timestamp` and forwarder fields never count.
import { hashTextExtended } from './postgresql-hash.js';

const NEEDS_CANONICAL = /[0-9.]{16}|\.[0-9]*0(?![0-9])/;
const TOKENS = /("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|[^"0-9-]+|-)/g;

/** canonical_number: 14 significant digits, half away from zero, trailing fractional zeros trimmed. */
export function canonicalNumber(text: string): string {
  const m = /^(-?)([0-9]*)(?:\.([0-9]*))?$/.exec(text);
  if (!m) return text;
  const negative = m[1] === '-';
  let mantissa = BigInt(`${m[2] ?? ''}${m[3] ?? ''}` || '0');
  let scale = (m[3] ?? '').length;
  if (mantissa === 0n) return '0';
  const floorLog = mantissa.toString().length - 1 - scale;
  const places = 13 - floorLog;
  if (places < scale) {
    const unit = 10n ** BigInt(scale - places);
    let q = mantissa / unit;
    if ((mantissa % unit) * 2n >= unit) q += 1n;
    mantissa = q;
    scale = places;
  }
  if (scale < 0) {
    mantissa *= 10n ** BigInt(-scale);
    scale = 0;
  }
  while (scale > 0 && mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale--;
  }
  let digits = mantissa.toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  }
  return negative ? `-${digits}` : digits;
}

/** canonical_json_text of a payload's jsonb text (undefined for absent or JSON null). */
export function canonicalJsonText(text: string | undefined): string | undefined {
  if (text === undefined || text === 'null') return undefined;
  if (!NEEDS_CANONICAL.test(text)) return text;
  return text.replace(TOKENS, (token) => (/^-?[0-9]/.test(token) ? canonicalNumber(token) : token));
}

export interface TaskIdentityFields {
  readonly taskName: string;
  readonly status: string | undefined;
  /** jsonb text of the event's input / output / error (undefined when absent). */
  readonly inputText: string | undefined;
  readonly outputText: string | undefined;
  readonly errorText: string | undefined;
}

/** task_event_content_hash. */
export function taskEventContentHash(f: TaskIdentityFields): bigint {
  const absent = '\u001e';
  const sep = '\u001f';
  const error = f.errorText === undefined || f.errorText === 'null' ? absent : f.errorText;
  return hashTextExtended(
    `${f.taskName}${sep}${f.status ?? absent}${sep}${canonicalJsonText(f.inputText) ?? absent}${sep}${canonicalJsonText(f.outputText) ?? absent}${sep}${error}`,
  );
}
