// Display helpers. Times are shown in UTC (the API's own zone, the default) or in the browser's zone, as the
// person chose (time-zone.ts); the exact instant is always one hover away (time-text.tsx).

export type TimeZone = 'utc' | 'local';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `2026-05-12 09:14:03`, or with `precise` `2026-05-12 09:14:03.512` (task executions last milliseconds). */
export function formatTime(iso: string | null, precise = false, zone: TimeZone = 'utc'): string {
  if (iso === null) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  if (zone === 'utc') return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, precise ? 23 : 19)}`;
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${precise ? `.${pad(d.getMilliseconds(), 3)}` : ''}`;
  return `${date} ${time}`;
}

/** `UTC`, or the browser's offset at that instant: `UTC+02:00`, `UTC−05:30` (offsets change with summer time). */
export function zoneLabel(zone: TimeZone, iso: string | null = null): string {
  if (zone === 'utc') return 'UTC';
  const at = iso === null ? new Date() : new Date(iso);
  const minutes = -(Number.isNaN(at.getTime()) ? new Date() : at).getTimezoneOffset();
  const sign = minutes < 0 ? '−' : '+';
  return `UTC${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

/** `just now`, `42 s ago`, `3 min ago`, `5 h ago`, `2 d ago`; a time after `now` (clock skew) reads `in 3 min`. */
export function formatRelative(iso: string | null, now: number): string {
  if (iso === null) return '—';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round(Math.abs(now - at) / 1000);
  const amount =
    seconds < 60 ? `${seconds} s` : seconds < 3600 ? `${Math.floor(seconds / 60)} min` : seconds < 86_400 ? `${Math.floor(seconds / 3600)} h` : `${Math.floor(seconds / 86_400)} d`;
  if (seconds < 2) return 'just now';
  return now >= at ? `${amount} ago` : `in ${amount}`;
}

/** 950 ms, 12.3 s, 4 min 05 s, 2 h 03 min, 3 d 04 h. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  if (ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(2) : s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${String(m % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d ${String(h % 24).padStart(2, '0')} h`;
}

/** endDate − startDate; for an unfinished run, the time so far (until `now`). */
export function durationOf(start: string | null, end: string | null, now: number): number | null {
  if (start === null) return null;
  const from = Date.parse(start);
  const to = end === null ? now : Date.parse(end);
  return Number.isNaN(from) || Number.isNaN(to) ? null : Math.max(0, to - from);
}

export function formatAgo(seconds: number): string {
  return seconds < 1 ? 'just now' : `${formatDuration(seconds * 1000)} ago`;
}

/** Pretty-prints JSON text; text that is not JSON is returned as it is. */
export function parseJson(text: string | null): { ok: true; value: unknown } | { ok: false } {
  if (text === null) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
