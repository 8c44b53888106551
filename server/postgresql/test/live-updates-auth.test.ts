// Live updates with sign-in on (AUTH_MODE=oidc, CONTRACT §8) against the real test OpenID provider: the token is
// verified at subscribe, and a subject is pushed only runs of its namespaces (every read of the subscriber goes
// through its scoped Reader), whatever its filter says.
import { afterAll, beforeAll, expect } from 'vitest';
import { liveSubscription, openSse, runStarted, startTestSignIn, LIVE_SIGN_IN, subscribeSse } from '@workflow-index/testkit';
import type { LiveRun, TestSignIn } from '@workflow-index/testkit';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import { startLiveServer } from './support/live-server.js';
import { loadEvents } from './support/load-events.js';

type Push = { workflowInstanceChanged: LiveRun };

describePostgres('live updates with sign-in on PostgreSQL', () => {
  let signIn: TestSignIn;
  beforeAll(async () => {
    signIn = await startTestSignIn(LIVE_SIGN_IN);
  });
  afterAll(async () => {
    await signIn.stop();
  });

  it('pushes a subject only the runs of its namespaces, and refuses a stream without a token', async ({ database }) => {
    const server = await startLiveServer(database, signIn.settings);
    try {
      const bearer = async (client: string) => ({ Authorization: `Bearer ${await signIn.issuer.clientCredentialsToken(client)}` });
      const anonymous = await subscribeSse(server.baseUrl, liveSubscription());
      expect(anonymous).toMatchObject({ status: 401, body: { errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] } });

      const acme = await openSse(server.baseUrl, liveSubscription(), {}, await bearer('acme'));
      // Its filter names the other namespace's run: the subject still does not cover it.
      const other = await openSse(server.baseUrl, liveSubscription(), { filter: { or: [{ id: 'auth-acme' }, { namespace: 'com.other' }] } }, await bearer('other'));
      await acme.until(() => acme.heartbeats >= 1);
      await other.until(() => other.heartbeats >= 1);

      await loadEvents(database.pool, [runStarted('auth-acme', 0, { namespace: 'com.acme.live' })]);
      const pushed = await acme.nextResult<Push>();
      expect(pushed.data?.workflowInstanceChanged).toMatchObject({ id: 'auth-acme', namespace: 'com.acme.live' });

      // Later than the acme run's change: once it arrives, the acme run would have been pushed before it.
      await loadEvents(database.pool, [runStarted('auth-other', 10, { namespace: 'com.other' })]);
      const own = await other.nextResult<Push>();
      expect(own.data?.workflowInstanceChanged).toMatchObject({ id: 'auth-other', namespace: 'com.other' });
      expect(other.events.some((e) => e.data.includes('auth-acme'))).toBe(false);
      expect(acme.events.some((e) => e.data.includes('auth-other'))).toBe(false);
      acme.close();
      other.close();
    } finally {
      await server.close();
    }
  });

  it('ends the stream with complete when the token expires (the client reconnects with a fresh one)', async ({ database }) => {
    const server = await startLiveServer(database, signIn.settings);
    try {
      const exp = Math.floor(Date.now() / 1000) + 3;
      const token = await signIn.issuer.signWithIssuerKey({ sub: 'short-lived', groups: ['acme'], exp });
      const stream = await openSse(server.baseUrl, liveSubscription('id'), { filter: { id: 'none' } }, { Authorization: `Bearer ${token}` });
      const complete = await stream.nextEvent(15_000);
      expect(complete.event).toBe('complete');
      expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
      await stream.until(() => stream.ended);
    } finally {
      await server.close();
    }
  });
});
