// Served timestamps are ISO-8601 UTC strings whose fraction is trimmed (`…03.51595Z`, `…03Z`), so they do not
// sort as text: the suite compares them as integers of microseconds.

const SERVED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/;

/** The served form: UTC, trailing Z, fraction without trailing zeros, omitted when zero. */
export function isServedTimestamp(value: string): boolean {
  const match = SERVED.exec(value);
  return match !== null && (match[7] === undefined || !match[7].endsWith('0'));
}

export function microsOf(served: string): bigint {
  const match = SERVED.exec(served);
  if (!match) throw new Error(`not a served timestamp: ${served}`);
  const [, y, mo, d, h, mi, s, frac] = match;
  const seconds = BigInt(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000);
  return seconds * 1_000_000n + BigInt((frac ?? '').padEnd(6, '0'));
}

export function servedFromMicros(micros: bigint): string {
  const seconds = micros / 1_000_000n;
  const fraction = (micros % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '');
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${whole}${fraction === '' ? '' : `.${fraction}`}Z`;
}

/** Epoch seconds with at most six decimals, given as a JavaScript number (exact for the values the suite uses). */
export function servedFromSeconds(seconds: number): string {
  return servedFromMicros(BigInt(Math.round(seconds * 1_000_000)));
}
