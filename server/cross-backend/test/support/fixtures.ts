// What a cross-backend test file needs from the real services: describeBoth skips its suites unless the OpenSearch
// node and the PostgreSQL server both answer (outside CI; with CI=true a missing one fails the file), and crossTest
// gives each file a migrated `database` and a `namespace`, removed when the file ends (passed or failed). The probes
// run when this module loads; a file that needs only PostgreSQL imports postgresql-fixtures.ts instead.
import { fileResource, serviceDescribe } from '@workflow-index/testkit';
import { postgresReachable, postgresTest } from '@workflow-index/postgresql/testing';
import { createTestNamespace, openSearchReachable } from '@workflow-index/opensearch/testing';

/** `describe` for suites that need both services. */
export const describeBoth = await serviceDescribe(openSearchReachable, postgresReachable);

/** The test API with a file-scoped migrated `database` and a file-scoped `namespace`. */
export const crossTest = postgresTest().extend('namespace', { scope: 'file' }, fileResource(() => createTestNamespace(), (ns) => ns.drop()));
