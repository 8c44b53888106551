// Time texts: UTC and local formatting, the zone label, relative times.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatRelative, formatTime, zoneLabel } from '../src/format.ts';

describe('time formatting', () => {
  it('writes an instant in UTC or in the local zone with the same shape, and the local text is that instant', () => {
    fc.assert(
      fc.property(fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }), (d) => {
        const iso = d.toISOString();
        expect(formatTime(iso, true)).toBe(iso.slice(0, 23).replace('T', ' '));
        const local = formatTime(iso, true, 'local');
        expect(local).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
        // Read back as local time, the text is the same instant.
        const [date, time] = local.split(' ') as [string, string];
        const [y, mo, da] = date.split('-').map(Number) as [number, number, number];
        const [h, mi, s] = time.split(':').map(Number) as [number, number, number];
        expect(new Date(y, mo - 1, da, h, mi, Math.floor(s), Math.round((s % 1) * 1000)).getTime()).toBe(d.getTime());
      }),
      { numRuns: 300 },
    );
    expect(formatTime(null)).toBe('—');
    expect(formatTime('not a time')).toBe('not a time');
    expect(zoneLabel('utc')).toBe('UTC');
    expect(zoneLabel('local', '2026-05-12T00:00:00Z')).toMatch(/^UTC[+−]\d{2}:\d{2}$/);
  });

  it('says how long ago, in the largest whole unit', () => {
    const now = Date.parse('2026-05-12T12:00:00Z');
    const ago = (ms: number): string => formatRelative(new Date(now - ms).toISOString(), now);
    expect(ago(500)).toBe('just now');
    expect(ago(42_000)).toBe('42 s ago');
    expect(ago(3 * 60_000 + 59_000)).toBe('3 min ago');
    expect(ago(5 * 3600_000)).toBe('5 h ago');
    expect(ago(2 * 86_400_000 + 5)).toBe('2 d ago');
    expect(ago(-180_000)).toBe('in 3 min');
    expect(formatRelative(null, now)).toBe('—');
  });
});
