// What an OpenSearch test file needs to run against the real node (test-node.ts):
//   describeOpenSearch('…', () => { it('…', async ({ namespace }) => { … namespace.client … }) })
// with `it` the osTest below (a `wi-test-<hex>-` namespace per file). describeOpenSearch skips its suites when the
// node does not answer outside CI and fails the file with CI=true (the probe runs when this module loads, so it is
// not part of index.ts).
import { serviceDescribe } from '@workflow-index/testkit';
import { openSearchTest } from './namespace-fixture.js';
import { openSearchReachable } from './test-node.js';

/** `describe` for suites that need the OpenSearch node. */
export const describeOpenSearch = await serviceDescribe(openSearchReachable);

/** The test API with a file-scoped `namespace`. */
export const osTest = openSearchTest();
