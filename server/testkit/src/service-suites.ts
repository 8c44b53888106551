// Suites backed by an external service (the PostgreSQL server, the OpenSearch node). Each backend's probe decides
// once per test file, while the file is collected: outside CI an unreachable service warns `[skip] …` and answers
// false, and the suite is skipped as a whole; with CI=true the probe throws and the file fails. The skip is decided
// here, at collection, because file-scoped fixtures run without a test context (no `skip`) and only when a hook or a
// test first asks for them: by then a skip would come too late for the suite's hooks.
import { describe, type SuiteAPI } from 'vitest';

/** A service probe: true when it answers; false (after a `[skip]` message) outside CI; throws with CI=true. */
export type ServiceProbe = () => Promise<boolean>;

/**
 * `describe` for suites that need every given service: the probes run in order (the first that answers false
 * stops there), and the suites are skipped unless all answered.
 */
export async function serviceDescribe(...probes: readonly ServiceProbe[]): Promise<SuiteAPI> {
  // describe.skip carries describe's methods (each, for, …); typed as SuiteAPI, whose own name vitest exports.
  for (const probe of probes) if (!(await probe())) return describe.skip as SuiteAPI;
  return describe;
}

/**
 * A file-scoped fixture function (`test.extend(name, { scope: 'file' }, fileResource(…))`): `create` runs when a
 * hook or a test of the file first asks for the fixture, and `dispose` when the file ends, whether its tests passed
 * or failed (only if `create` succeeded).
 */
export function fileResource<T>(create: () => Promise<T> | T, dispose: (value: T) => Promise<void>) {
  // The empty pattern tells vitest the fixture needs no other fixture (it reads the first parameter's shape).
  // eslint-disable-next-line no-empty-pattern
  return async ({}: object, { onCleanup }: { onCleanup: (cleanup: () => Promise<void>) => void }): Promise<T> => {
    const value = await create();
    onCleanup(() => dispose(value));
    return value;
  };
}
