// The header's "Times" setting: UTC (default) or the browser's zone, kept in localStorage (time-zone.ts).
import { zoneLabel } from './format.ts';
import type { TimeZone } from './format.ts';
import { setTimeZone, useTimeZone } from './time-zone.ts';

export function TimeZoneSelect() {
  const zone = useTimeZone();
  return (
    <label class="refresh">
      Times{' '}
      <select name="time-zone" value={zone} onChange={(e) => setTimeZone((e.target as HTMLSelectElement).value as TimeZone)}>
        <option value="utc">UTC</option>
        <option value="local" title={`This browser's zone, now ${zoneLabel('local')}`}>
          Local
        </option>
      </select>
    </label>
  );
}
