// The shared conformance suite on real PostgreSQL with sign-in on (AUTH_MODE=oidc, CONTRACT §8): the same store as
// conformance.test.ts, every request carrying an admin's access token from a real test OpenID provider (rule `*` with
// payloads). Every assertion holds unchanged; a request without the token is 401 UNAUTHENTICATED.
import { afterAll, describe } from 'vitest';
import { type ConformanceAdminAuth, runConformanceSuite, startConformanceAdminAuth } from '@workflow-index/testkit';
import { postgresReachable } from './support/test-database.js';
import { conformanceStore } from './support/conformance-store.js';

const available = await postgresReachable();

describe.skipIf(!available)('conformance: PostgreSQL, signed in as an admin (AUTH_MODE=oidc)', () => {
  let signIn: ConformanceAdminAuth | undefined;
  afterAll(async () => {
    await signIn?.stop();
  });
  runConformanceSuite({
    name: 'postgresql',
    setup: conformanceStore,
    auth: async () => {
      signIn = await startConformanceAdminAuth();
      return signIn.auth;
    },
  });
});
