// What one subject may read: the union of the rules whose group it has. A run is visible when a rule's namespaces
// match its namespace; its payloads when a rule with `payloads: true` does.
import type { AccessRule } from './access-rules.js';
import { covers, namespaceSetOf, NO_NAMESPACES } from './namespace-set.js';
import type { NamespaceSet } from './namespace-set.js';

export interface Access {
  /** The runs the subject sees. */
  readonly runs: NamespaceSet;
  /** The runs whose payloads it sees (a part of `runs`). */
  readonly payloads: NamespaceSet;
}

/** Everything, payloads included: what every client reads with AUTH_MODE=none. */
export const FULL_ACCESS: Access = Object.freeze({ runs: namespaceSetOf(['*']), payloads: namespaceSetOf(['*']) });

/** Nothing: a request that reached the GraphQL layer without verified credentials while sign-in is on. */
export const NO_ACCESS: Access = Object.freeze({ runs: NO_NAMESPACES, payloads: NO_NAMESPACES });

export function accessOf(groups: readonly string[], rules: readonly AccessRule[]): Access {
  const member = new Set(groups);
  const granted = rules.filter((rule) => member.has(rule.group));
  return {
    runs: namespaceSetOf(granted.flatMap((rule) => rule.namespaces)),
    payloads: namespaceSetOf(granted.filter((rule) => rule.payloads).flatMap((rule) => rule.namespaces)),
  };
}

export function isFullAccess(access: Access): boolean {
  return access.runs.all && access.payloads.all;
}

/** The subject sees the payloads of every run it sees: a filter on payloads reveals nothing it could not read. */
export function seesEveryPayload(access: Access): boolean {
  return covers(access.payloads, access.runs);
}

/** The subject sees no payload at all. */
export function seesNoPayload(access: Access): boolean {
  return !access.payloads.all && access.payloads.patterns.length === 0;
}
