import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DateTimeParseError, formatMicros, formatTimestampForOutput, parseDateTime, parseDateTimeToMicros } from '../src/date-time.js';

describe('parseDateTime (DateTime input → reader Timestamp)', () => {
  it.each([
    ['2026-05-12T09:14:03Z', '2026-05-12T09:14:03.000000Z'],
    ['2026-05-12T09:14:03.512337Z', '2026-05-12T09:14:03.512337Z'],
    ['2026-05-12T09:14:03.5Z', '2026-05-12T09:14:03.500000Z'],
    ['2026-05-12t09:14:03z', '2026-05-12T09:14:03.000000Z'],
    ['2026-05-12T11:14:03.512+02:00', '2026-05-12T09:14:03.512000Z'],
    ['2026-05-12T04:44:03-04:30', '2026-05-12T09:14:03.000000Z'],
    ['2026-05-12T11:14:03+0200', '2026-05-12T09:14:03.000000Z'],
    ['2026-05-12T09:14Z', '2026-05-12T09:14:00.000000Z'],
    ['2026-05-12 09:14:03Z', '2026-05-12T09:14:03.000000Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00.000000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000000Z'],
    ['1969-12-31T23:59:59.999999Z', '1969-12-31T23:59:59.999999Z'],
  ])('%s → %s', (input, expected) => {
    expect(parseDateTime(input)).toBe(expected);
  });

  it.each([
    ['2026-05-12T09:14:03.1234565Z', '2026-05-12T09:14:03.123456Z'], // half to even: 6 is even, stays
    ['2026-05-12T09:14:03.1234575Z', '2026-05-12T09:14:03.123458Z'], // 7 is odd, rounds up
    ['2026-05-12T09:14:03.12345651Z', '2026-05-12T09:14:03.123457Z'], // above half
    ['2026-05-12T09:14:03.999999999Z', '2026-05-12T09:14:04.000000Z'], // carries into the second
  ])('rounds nanoseconds half-to-even: %s → %s', (input, expected) => {
    expect(parseDateTime(input)).toBe(expected);
  });

  it.each([
    ['2026-05-12T09:14:03', 'DateTime needs a time zone offset, e.g. 2026-05-12T09:14:03Z or 2026-05-12T11:14:03.512+02:00; got "2026-05-12T09:14:03"'],
    ['2026-05-12', 'DateTime needs a time and a time zone offset, e.g. 2026-05-12T09:14:03Z or 2026-05-12T11:14:03.512+02:00; got "2026-05-12"'],
    ['yesterday', 'DateTime must be ISO-8601 with a time zone offset, e.g. 2026-05-12T09:14:03Z or 2026-05-12T11:14:03.512+02:00; got "yesterday"'],
    ['2026-02-30T00:00:00Z', 'DateTime has a field out of range (month 1-12, valid day of month, hour 0-23, minute 0-59, second 0-59); got "2026-02-30T00:00:00Z"'],
    ['2026-05-12T24:00:00Z', 'DateTime has a field out of range (month 1-12, valid day of month, hour 0-23, minute 0-59, second 0-59); got "2026-05-12T24:00:00Z"'],
    ['2026-05-12T09:14:03+25:00', 'DateTime offset must be between -23:59 and +23:59; got "2026-05-12T09:14:03+25:00"'],
    // year 0000 (1 BC) is out of range for the backends' timestamps: a clear input error, never an internal one
    ['0000-01-01T00:00:00Z', 'DateTime must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z; got "0000-01-01T00:00:00Z"'],
    ['0001-01-01T00:30:00+01:00', 'DateTime must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z; got "0001-01-01T00:30:00+01:00"'],
  ])('rejects %s with a clear message', (input, message) => {
    expect(() => parseDateTime(input)).toThrow(new DateTimeParseError(message));
  });

  it('agrees with Date for millisecond values at any offset (property)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9998-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        (date, offsetMinutes) => {
          const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const text = `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          expect(parseDateTime(text)).toBe(`${date.toISOString().slice(0, 23)}000Z`);
        },
      ),
    );
  });

  it('formatMicros inverts parseDateTimeToMicros (property)', () => {
    const min = parseDateTimeToMicros('0001-01-01T00:00:00Z');
    const max = parseDateTimeToMicros('9999-12-31T23:59:59.999999Z');
    fc.assert(
      fc.property(fc.bigInt({ min, max }), (micros) => {
        expect(parseDateTimeToMicros(formatMicros(micros))).toBe(micros);
      }),
    );
  });
});

describe('formatTimestampForOutput (reader Timestamp → served String)', () => {
  it.each([
    ['2026-04-27T18:55:29.500000Z', '2026-04-27T18:55:29.5Z'],
    ['2026-04-27T18:55:29.238552Z', '2026-04-27T18:55:29.238552Z'],
    ['2026-04-27T18:55:00.000000Z', '2026-04-27T18:55:00Z'],
    ['2026-04-27T18:55:29.100100Z', '2026-04-27T18:55:29.1001Z'],
    ['2026-04-27T18:55:29.000001Z', '2026-04-27T18:55:29.000001Z'],
    ['2026-04-27T18:55:29Z', '2026-04-27T18:55:29Z'],
    // Other ISO forms a reader might hand out are normalized to UTC.
    ['2026-04-27T20:55:29.5+02:00', '2026-04-27T18:55:29.5Z'],
  ])('%s → %s', (input, expected) => {
    expect(formatTimestampForOutput(input)).toBe(expected);
  });
});
