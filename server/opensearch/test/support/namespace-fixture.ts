// The test namespace as a vitest fixture: one name prefix per test file, made when a hook or a test of the file
// first asks for `namespace`, and everything under it removed when the file ends (passed or failed). fixtures.ts
// gives the OpenSearch test files this with the skip rule; other workspaces (cross-backend) build theirs from it.
import { test } from 'vitest';
import { fileResource } from '@workflow-index/testkit';
import { createTestNamespace } from './test-node.js';

/** A test API with a file-scoped `namespace` (createTestNamespace()). */
export function openSearchTest() {
  return test.extend('namespace', { scope: 'file' }, fileResource(() => createTestNamespace(), (ns) => ns.drop()));
}
