// One instant as text: in the chosen zone (UTC or local), or relative ("3 min ago") where that reads better; the
// exact instant in both zones is in the title (hover) and the machine-readable one in `dateTime`.
import { formatRelative, formatTime, zoneLabel } from './format.ts';
import { useTimeZone } from './time-zone.ts';

export function exactTitle(iso: string): string {
  const local = `${formatTime(iso, true, 'local')} ${zoneLabel('local', iso)}`;
  const utc = `${formatTime(iso, true, 'utc')} UTC`;
  return local.endsWith('UTC+00:00') ? utc : `${utc} · ${local}`;
}

interface TimeTextProps {
  readonly iso: string | null;
  readonly precise?: boolean;
  /** "3 min ago" instead of the date and time. */
  readonly relative?: boolean;
  readonly now?: number;
  /** Followed by the zone ("UTC", "UTC+02:00") where no column header says it. */
  readonly withZone?: boolean;
}

export function TimeText({ iso, precise = false, relative = false, now = Date.now(), withZone = false }: TimeTextProps) {
  const zone = useTimeZone();
  if (iso === null || Number.isNaN(Date.parse(iso))) return <span>{iso ?? '—'}</span>;
  return (
    <time dateTime={iso} title={exactTitle(iso)}>
      {relative ? formatRelative(iso, now) : formatTime(iso, precise, zone)}
      {!relative && withZone ? ` ${zoneLabel(zone, iso)}` : ''}
    </time>
  );
}
