// For cross-backend files that need only the PostgreSQL server: describePostgres skips its suites when the server
// is unreachable outside CI and fails the file with CI=true (the probe runs when this module loads).
import { serviceDescribe } from '@workflow-index/testkit';
import { postgresReachable, postgresTest } from '@workflow-index/postgresql/testing';

export { postgresTest };

/** `describe` for suites that need the PostgreSQL server. */
export const describePostgres = await serviceDescribe(postgresReachable);
