// Where the test issuer puts a principal's groups: at a dotted path of the token's claims ("groups", or
// "realm_access.roles" as Keycloak does), beside the principal's other claims.

/** The claims with `groups` set at the dotted `path` (objects on the way are copied, their other members kept). */
export function claimsWithGroups(claims: Record<string, unknown> | undefined, groups: readonly string[] | undefined, path: string): Record<string, unknown> {
  const copy = { ...claims };
  return groups === undefined ? copy : withValueAt(copy, path.split('.'), [...groups]);
}

function withValueAt(target: Record<string, unknown>, segments: readonly string[], value: unknown): Record<string, unknown> {
  const [head, ...rest] = segments;
  if (head === undefined || head === '') throw new Error(`groups claim path has an empty segment: ${segments.join('.')}`);
  if (rest.length === 0) return { ...target, [head]: value };
  const inner = target[head];
  const object = typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
  return { ...target, [head]: withValueAt(object, rest, value) };
}

/** The top-level claim names the ID token may carry besides `sub`: the groups claim's first segment and the accounts' own claims. */
export function releasedClaimNames(groupsClaim: string, accountClaims: ReadonlyArray<Record<string, unknown> | undefined>): string[] {
  const names = new Set([groupsClaim.split('.')[0]!]);
  for (const claims of accountClaims) for (const name of Object.keys(claims ?? {})) names.add(name);
  names.delete('sub');
  return [...names];
}
