// workflowInstanceChanged on OpenSearch (CONTRACT §9): the real server over real HTTP, raw documents in Fluent Bit's
// bulk shape, a normalizer cycle stamping the runs it wrote, the server's change feed polling the stamps.
import { afterAll, expect } from 'vitest';
import { liveSubscription, openSse, runCompleted, runStarted, SseStream, startTestSignIn, LIVE_SIGN_IN, subscribeSse, taskStarted } from '@workflow-index/testkit';
import type { LiveRun, TestSignIn } from '@workflow-index/testkit';
import { describeOpenSearch, osTest as it } from './support/fixtures.js';
import { normalizedIndexNames } from '../src/normalized-indices.js';
import { startLiveServer } from './support/live-server.js';

type Push = { workflowInstanceChanged: LiveRun };

const pushedStatus = (id: string, status: string) => (r: { data?: Push | null }) => r.data?.workflowInstanceChanged.id === id && r.data.workflowInstanceChanged.status === status;

describeOpenSearch('live updates on OpenSearch', () => {
  let signIn: TestSignIn | undefined;
  afterAll(async () => {
    await signIn?.stop();
  });

  it('pushes the current state, then each change of a matching run; never a run outside the filter; a reconnect gets the current state', async ({ namespace }) => {
    const server = await startLiveServer(namespace.client, `${namespace.prefix}a-`);
    try {
      await server.deliver([runStarted('os-a', 0, { name: 'watched' }), runStarted('os-b', 0, { name: 'other' })]);
      const stream = await openSse(server.baseUrl, liveSubscription(), { filter: { name: 'watched' } });
      expect((await stream.nextResult<Push>()).data?.workflowInstanceChanged).toMatchObject({ id: 'os-a', status: 'RUNNING', taskExecutions: [] });
      await server.deliver([taskStarted('os-a', 'do/0/step', 10), runCompleted('os-b', 10)]);
      // (a change is pushed again once its other indices have refreshed: the first push after the delivery may repeat
      // the run's earlier state)
      const withTask = await stream.resultWhere<Push>((p) => (p.data?.workflowInstanceChanged as { taskExecutions?: unknown[] } | undefined)?.taskExecutions?.length === 1);
      expect(withTask.data?.workflowInstanceChanged).toMatchObject({ id: 'os-a', taskExecutions: [{ taskPosition: 'do/0/step', status: 'RUNNING' }] });
      await server.deliver([runCompleted('os-a', 30)]);
      await stream.resultWhere<Push>(pushedStatus('os-a', 'COMPLETED'));
      expect(stream.events.some((e) => e.data.includes('os-b'))).toBe(false);
      stream.close();

      const again = await openSse(server.baseUrl, liveSubscription(), { filter: { id: 'os-a' } });
      expect((await again.nextResult<Push>()).data?.workflowInstanceChanged).toMatchObject({ id: 'os-a', status: 'COMPLETED' });
      await again.until(() => again.heartbeats >= 3);
      again.close();
    } finally {
      await server.close();
    }
  });

  it('a run searchable before its task executions is pushed again once they are: no later change is needed', async ({ namespace }) => {
    const prefix = `${namespace.prefix}settle-`;
    const server = await startLiveServer(namespace.client, prefix, {}, 100, false);
    const tasks = normalizedIndexNames(prefix).taskExecutions;
    try {
      // The executions index refreshes only when told: the run's new state is searchable, its task not yet.
      await namespace.client.transport.request({ method: 'PUT', path: `/${tasks}/_settings`, body: { index: { refresh_interval: '-1' } } });
      const stream = await openSse(server.baseUrl, liveSubscription(), { filter: { id: 'settle-a' } });
      await server.deliver([runStarted('settle-a', 0), taskStarted('settle-a', 'do/0/step', 10)]);
      const first = await stream.resultWhere<Push>((p) => p.data?.workflowInstanceChanged.id === 'settle-a');
      expect(first.data?.workflowInstanceChanged.taskExecutions).toEqual([]);
      await namespace.client.transport.request({ method: 'POST', path: `/${tasks}/_refresh` });
      const settled = await stream.resultWhere<Push>((p) => (p.data?.workflowInstanceChanged.taskExecutions ?? []).length === 1);
      expect(settled.data?.workflowInstanceChanged).toMatchObject({ id: 'settle-a', taskExecutions: [{ taskPosition: 'do/0/step', status: 'RUNNING' }] });
      stream.close();
    } finally {
      await server.close();
    }
  });

  it('refuses beyond GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT with TOO_MANY_SUBSCRIPTIONS', async ({ namespace }) => {
    const server = await startLiveServer(namespace.client, `${namespace.prefix}b-`, { GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT: '1' });
    try {
      const first = await openSse(server.baseUrl, liveSubscription('id'), { filter: { id: 'none' } });
      const second = await subscribeSse(server.baseUrl, liveSubscription('id'), { filter: { id: 'none' } });
      expect(second).not.toBeInstanceOf(SseStream);
      expect(second).toMatchObject({ status: 429, body: { errors: [{ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }] } });
      first.close();
    } finally {
      await server.close();
    }
  });

  it('with sign-in on, pushes a subject only the runs of its namespaces', async ({ namespace }) => {
    signIn = await startTestSignIn(LIVE_SIGN_IN);
    const issuer = signIn.issuer;
    const server = await startLiveServer(namespace.client, `${namespace.prefix}c-`, signIn.settings);
    try {
      const bearer = async (client: string) => ({ Authorization: `Bearer ${await issuer.clientCredentialsToken(client)}` });
      const acme = await openSse(server.baseUrl, liveSubscription(), {}, await bearer('acme'));
      const other = await openSse(server.baseUrl, liveSubscription(), { filter: { or: [{ id: 'auth-acme' }, { namespace: 'com.other' }] } }, await bearer('other'));
      await server.deliver([runStarted('auth-acme', 0, { namespace: 'com.acme.live' })]);
      expect((await acme.nextResult<Push>()).data?.workflowInstanceChanged).toMatchObject({ id: 'auth-acme' });
      await server.deliver([runStarted('auth-other', 10, { namespace: 'com.other' })]);
      expect((await other.nextResult<Push>()).data?.workflowInstanceChanged).toMatchObject({ id: 'auth-other' });
      expect(other.events.some((e) => e.data.includes('auth-acme'))).toBe(false);
      expect(acme.events.some((e) => e.data.includes('auth-other'))).toBe(false);
      acme.close();
      other.close();
    } finally {
      await server.close();
    }
  });
});
