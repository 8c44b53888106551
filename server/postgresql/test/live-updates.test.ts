// workflowInstanceChanged on PostgreSQL (CONTRACT §9): the real server over real HTTP, raw rows inserted as Fluent
// Bit's pgsql output inserts them, the trigger's NOTIFY feeding the server's LISTEN connection.
import { expect } from 'vitest';
import { liveSubscription, openSse, runCompleted, runStarted, SseStream, subscribeSse, taskCompleted, taskStarted } from '@workflow-index/testkit';
import type { LiveRun } from '@workflow-index/testkit';
import { LISTEN_APPLICATION_NAME } from '../src/postgresql-change-feed.js';
import { describePostgres, pgTest as it } from './support/fixtures.js';
import { startLiveServer } from './support/live-server.js';
import { loadEvents } from './support/load-events.js';

type Push = { workflowInstanceChanged: LiveRun };

const pushedStatus = (id: string, status: string) => (r: { data?: Push | null }) => r.data?.workflowInstanceChanged.id === id && r.data.workflowInstanceChanged.status === status;

describePostgres('live updates on PostgreSQL', () => {
  it('pushes the current state on subscribe, then each change of a matching run (tasks included), never a run outside the filter', async ({ database }) => {
    const server = await startLiveServer(database);
    try {
      await loadEvents(database.pool, [runStarted('pg-a', 0, { name: 'watched' }), runStarted('pg-b', 0, { name: 'other' })]);
      const stream = await openSse(server.baseUrl, liveSubscription(), { filter: { name: 'watched' } });
      const first = await stream.nextResult<Push>();
      expect(first.data?.workflowInstanceChanged).toMatchObject({ id: 'pg-a', status: 'RUNNING', taskExecutions: [] });

      await loadEvents(database.pool, [taskStarted('pg-a', 'do/0/step', 10), taskStarted('pg-b', 'do/0/step', 10)]);
      const withTask = await stream.nextResult<Push>();
      expect(withTask.data?.workflowInstanceChanged).toMatchObject({ id: 'pg-a', taskExecutions: [{ taskPosition: 'do/0/step', status: 'RUNNING' }] });

      await loadEvents(database.pool, [runCompleted('pg-b', 20)]);
      await loadEvents(database.pool, [taskCompleted('pg-a', 'do/0/step', 20), runCompleted('pg-a', 30)]);
      const done = await stream.resultWhere<Push>(pushedStatus('pg-a', 'COMPLETED'));
      expect(done.data?.workflowInstanceChanged.taskExecutions).toEqual([{ taskPosition: 'do/0/step', status: 'COMPLETED' }]);
      expect(stream.events.filter((e) => e.data.includes('pg-b'))).toEqual([]);
      const metrics = await (await fetch(`${server.baseUrl}/q/metrics`)).text();
      expect(metrics).toMatch(/^workflow_index_live_subscriptions(?:\{[^}]*\})? 1$/m);
      expect(Number(/^workflow_index_live_pushes_total(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
      stream.close();
    } finally {
      await server.close();
    }
  });

  it('sends heartbeats while nothing changes, and holds no HTTP request slot while it streams', async ({ database }) => {
    const server = await startLiveServer(database, { HTTP_MAX_REQUESTS_PER_CLIENT: '1' });
    try {
      const stream = await openSse(server.baseUrl, liveSubscription(), { filter: { id: 'pg-none' } });
      await stream.until(() => stream.heartbeats >= 4);
      const query = await fetch(`${server.baseUrl}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ getWorkflowInstances { id } }' }) });
      expect(query.status).toBe(200);
      stream.close();
    } finally {
      await server.close();
    }
  });

  it('refuses subscriptions beyond the caps with TOO_MANY_SUBSCRIPTIONS, per client and in all', async ({ database }) => {
    const server = await startLiveServer(database, { GRAPHQL_MAX_SUBSCRIPTIONS: '3', GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT: '2', HTTP_CLIENT_ADDRESS_HEADER: 'X-Forwarded-For' });
    const as = (client: string) => ({ 'X-Forwarded-For': client });
    try {
      const a1 = await openSse(server.baseUrl, liveSubscription(), {}, as('10.0.0.1'));
      const a2 = await openSse(server.baseUrl, liveSubscription(), {}, as('10.0.0.1'));
      const a3 = await subscribeSse(server.baseUrl, liveSubscription(), {}, as('10.0.0.1'));
      expect(a3).not.toBeInstanceOf(SseStream);
      expect(a3).toMatchObject({ status: 429, body: { errors: [{ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }] } });
      expect((a3 as { body: { errors: { message: string }[] } }).body.errors[0]?.message).toContain('GRAPHQL_MAX_SUBSCRIPTIONS_PER_CLIENT');
      const b1 = await openSse(server.baseUrl, liveSubscription(), {}, as('10.0.0.2'));
      const c1 = await subscribeSse(server.baseUrl, liveSubscription(), {}, as('10.0.0.3'));
      expect(c1).toMatchObject({ status: 429, body: { errors: [{ extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }] } });
      expect((c1 as { body: { errors: { message: string }[] } }).body.errors[0]?.message).toContain('(GRAPHQL_MAX_SUBSCRIPTIONS)');
      // A closed stream gives its slot back.
      a1.close();
      await expect.poll(async () => {
        const again = await subscribeSse(server.baseUrl, liveSubscription(), {}, as('10.0.0.3'));
        if (again instanceof SseStream) again.close();
        return again instanceof SseStream;
      }).toBe(true);
      for (const s of [a2, b1]) s.close();
    } finally {
      await server.close();
    }
  });

  it('refuses a subscription sent as plain JSON, and ends streams cleanly when the server drains', async ({ database }) => {
    const server = await startLiveServer(database);
    try {
      const plain = await fetch(`${server.baseUrl}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: liveSubscription('id') }) });
      const body = (await plain.json()) as { errors?: { message: string; extensions: { code: string } }[] };
      expect(body.errors?.[0]?.message).toContain('Accept: text/event-stream');
      const stream = await openSse(server.baseUrl, liveSubscription('id'), { filter: { id: 'pg-none' } });
      await stream.until(() => stream.heartbeats >= 1);
      server.app.startDraining();
      const complete = await stream.nextEvent();
      expect(complete.event).toBe('complete');
      await stream.until(() => stream.ended);
    } finally {
      await server.close();
    }
  });

  it('gives a reconnecting client the current state first', async ({ database }) => {
    const server = await startLiveServer(database);
    try {
      await loadEvents(database.pool, [runStarted('pg-r', 0)]);
      const first = await openSse(server.baseUrl, liveSubscription(), { filter: { id: 'pg-r' } });
      await first.resultWhere<Push>(pushedStatus('pg-r', 'RUNNING'));
      first.close();
      await loadEvents(database.pool, [runCompleted('pg-r', 50)]);
      const again = await openSse(server.baseUrl, liveSubscription(), { filter: { id: 'pg-r' } });
      const state = await again.nextResult<Push>();
      expect(state.data?.workflowInstanceChanged).toMatchObject({ id: 'pg-r', status: 'COMPLETED' });
      again.close();
    } finally {
      await server.close();
    }
  });

  it('recovers its LISTEN connection after the session is terminated, re-syncs what it missed and pushes again', async ({ database }) => {
    const server = await startLiveServer(database);
    try {
      await loadEvents(database.pool, [runStarted('pg-k', 0), runStarted('pg-k2', 0)]);
      const stream = await openSse(server.baseUrl, liveSubscription());
      await stream.resultWhere<Push>(pushedStatus('pg-k', 'RUNNING'));
      const terminated = await database.pool.query<{ n: number }>(
        'SELECT count(pg_terminate_backend(pid))::INT AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1',
        [LISTEN_APPLICATION_NAME],
      );
      expect(terminated.rows[0]?.n).toBe(1);
      // Committed while the server has no LISTEN session: only the re-sync can bring it.
      await loadEvents(database.pool, [runCompleted('pg-k', 40)]);
      await stream.resultWhere<Push>(pushedStatus('pg-k', 'COMPLETED'));
      await expect.poll(() => server.feed.reconnections).toBe(1);
      await loadEvents(database.pool, [runCompleted('pg-k2', 60)]);
      await stream.resultWhere<Push>(pushedStatus('pg-k2', 'COMPLETED'));
      stream.close();
    } finally {
      await server.close();
    }
  });
});
