// Task execution ids, as the PostgreSQL normalizer builds them (server/postgresql/normalizer/072-execution-ids.sql,
// where the reason is written out): `<instance>:<position>`, a later execution `…@<start µs>` (`#<n>` when executions
// of the position share that instant), with `%` and `@` escaped in the position (`%25`, `%40`), so no two executions
// share an id (an instance id holding `:` is refused for task events). Ids whose position has neither character are
// exactly the contract's.

/** The id of the first execution at a position; later ones append `@<µs>[#<n>]`. */
export function executionIdBase(instanceId: string, taskPosition: string): string {
  return `${instanceId}:${taskPosition.replaceAll('%', '%25').replaceAll('@', '%40')}`;
}
