// The zone times are shown in: UTC (the API's own, the default, so a pasted time matches the data) or the browser's
// local zone. A personal preference, not part of a view: kept in localStorage, so a shared link shows each reader
// their own choice. Every component that shows a time follows a change at once.
import { useEffect, useState } from 'preact/hooks';
import type { TimeZone } from './format.ts';

const KEY = 'workflow-index.time-zone';
const listeners = new Set<(zone: TimeZone) => void>();

export function readTimeZone(): TimeZone {
  try {
    return localStorage.getItem(KEY) === 'local' ? 'local' : 'utc';
  } catch {
    // Storage refused (a locked-down profile): the default.
    return 'utc';
  }
}

export function setTimeZone(zone: TimeZone): void {
  try {
    if (zone === 'utc') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, zone);
  } catch {
    // Not kept across visits, still applied now.
  }
  for (const listener of listeners) listener(zone);
}

export function useTimeZone(): TimeZone {
  const [zone, setZone] = useState(readTimeZone);
  useEffect(() => {
    listeners.add(setZone);
    // Another tab changed it.
    const onStorage = (event: StorageEvent): void => {
      if (event.key === KEY) setZone(readTimeZone());
    };
    window.addEventListener('storage', onStorage);
    return () => {
      listeners.delete(setZone);
      window.removeEventListener('storage', onStorage);
    };
  }, []);
  return zone;
}
