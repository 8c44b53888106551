// What a PostgreSQL test file needs to run against the real server (test-database.ts):
//   describePostgres('…', () => { it('…', async ({ database }) => { … database.pool … }) })
// with `it` the pgTest below (a migrated `wi_test_…` database per file) or postgresTest({ migrated, prefix }) for
// another kind. describePostgres skips its suites when the server is unreachable outside CI and fails the file
// with CI=true (the probe runs when this module loads, so it is not part of index.ts).
import { serviceDescribe } from '@workflow-index/testkit';
import { postgresTest } from './database-fixture.js';
import { postgresReachable } from './test-database.js';

export { postgresTest };

/** `describe` for suites that need the PostgreSQL server. */
export const describePostgres = await serviceDescribe(postgresReachable);

/** The test API with a file-scoped migrated `database`. */
export const pgTest = postgresTest();
