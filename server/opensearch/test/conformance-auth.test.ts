// The shared conformance suite on a real OpenSearch node with sign-in on (AUTH_MODE=oidc, CONTRACT §8): the same store
// as conformance.test.ts, every request carrying an admin's access token from a real test OpenID provider (rule `*`
// with payloads). Every assertion holds unchanged; a request without the token is 401 UNAUTHENTICATED.
import { afterAll, describe } from 'vitest';
import { type ConformanceAdminAuth, runConformanceSuite, startConformanceAdminAuth } from '@workflow-index/testkit';
import { conformanceStore } from './support/conformance-store.js';
import { openSearchReachable } from './support/test-node.js';

const available = await openSearchReachable();

describe.skipIf(!available)('conformance: OpenSearch, signed in as an admin (AUTH_MODE=oidc)', () => {
  let signIn: ConformanceAdminAuth | undefined;
  afterAll(async () => {
    await signIn?.stop();
  });
  runConformanceSuite({
    name: 'opensearch',
    // Twice per request, as conformance.test.ts (see there).
    executionsPerRequest: 2,
    setup: conformanceStore,
    auth: async () => {
      signIn = await startConformanceAdminAuth();
      return signIn.auth;
    },
  });
});
