// OIDC_GROUPS_CLAIM: a claim name, or a dotted path into nested objects (`realm_access.roles`) when no claim has the
// whole name (namespaced claims such as `https://example.com/groups` keep their dots). A string is one group, a list
// its strings; anything else, or nothing there, is no group.
import type { JWTPayload } from 'jose';

export function groupsOf(payload: JWTPayload, path: string): string[] {
  if (Object.hasOwn(payload, path)) return groupsIn(payload[path]);
  let value: unknown = payload;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return [];
    value = (value as Record<string, unknown>)[key];
  }
  return groupsIn(value);
}

function groupsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((group): group is string => typeof group === 'string');
  return [];
}
