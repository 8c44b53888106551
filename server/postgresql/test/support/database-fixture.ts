// The test database as a vitest fixture: one database per test file, created when a hook or a test of the file
// first asks for `database`, dropped when the file ends (passed or failed). fixtures.ts gives the PostgreSQL test
// files this with the skip rule; other workspaces (cross-backend) build theirs from it.
import { test } from 'vitest';
import { createTestDatabase, dropLoginRoles, type TestDatabase, type TestDatabaseOptions } from './test-database.js';

/** Login roles a test file creates, dropped at the end of the file after its database (roles are cluster-wide). */
export interface LoginRoles {
  /** Drops these roles when the file ends, after the database is dropped. */
  dropAtEnd(...roles: readonly string[]): void;
}

/**
 * A test API with file-scoped fixtures: `database` (createTestDatabase(options)) and `loginRoles`. The database
 * depends on the roles' fixture so that vitest, which cleans up in the reverse order of set-up, drops the database
 * first and the roles after it.
 */
export function postgresTest(options: TestDatabaseOptions = {}) {
  return test
    // The empty pattern: vitest reads the first parameter's shape for the fixture's own dependencies (none).
    // eslint-disable-next-line no-empty-pattern
    .extend('loginRoles', { scope: 'file' }, ({}, { onCleanup }) => {
      const roles: string[] = [];
      onCleanup(async () => {
        if (roles.length > 0) await dropLoginRoles(...roles);
      });
      const loginRoles: LoginRoles = { dropAtEnd: (...more) => void roles.push(...more) };
      return loginRoles;
    })
    .extend('database', { scope: 'file' }, async ({ loginRoles }, { onCleanup }): Promise<TestDatabase> => {
      void loginRoles; // set up first, so cleaned up after the database
      const db = await createTestDatabase(options);
      onCleanup(() => db.drop());
      return db;
    });
}
