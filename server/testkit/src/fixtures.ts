import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Event } from './event-rows.js';

export const FIXTURE_PATH = fileURLToPath(new URL('../../../fixtures/quarkus-flow-events.jsonl', import.meta.url));

export function fixtureEvents(): Event[] {
  return readFileSync(FIXTURE_PATH, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Event);
}

export function eventsByInstance(events: readonly Event[]): Map<string, Event[]> {
  const map = new Map<string, Event[]>();
  for (const e of events) {
    const id = String(e['instanceId']);
    map.set(id, [...(map.get(id) ?? []), e]);
  }
  return map;
}
