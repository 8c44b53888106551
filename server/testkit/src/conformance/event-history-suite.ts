// `WorkflowInstance.events` on a backend (CONTRACT §9), through the real app with sign-in on: the backend loads
// HISTORY_EVENTS through its real ingestion path (ConformanceBackend.setup) and every assertion below holds with the
// expected values of event-history-events.ts, so every backend that passes answers identically. Three subjects from a
// real test issuer: an admin (`*` with payloads), the team (its namespace, no payloads), another team (another
// namespace).
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type App, createApp, loadCoreConfig } from '@workflow-index/core';
import { startTestSignIn, type TestSignIn } from '../oidc/sign-in-settings.js';
import type { ConformanceBackend } from './conformance-suite.js';
import { DUPLICATE_STARTED_EVENT, EXPECTED_HISTORIES, HISTORY_EVENTS, HISTORY_NAMESPACE, HISTORY_RUNS, LOOP_HISTORY_LENGTH, OTHER_NAMESPACE } from './event-history-events.js';
import { GraphQLClient } from './graphql-client.js';

const AUDIENCE = 'https://workflow-index.test/graphql';
const FIELDS = 'type time taskPosition taskName accepted rejection';
const RUN_EVENTS = `query ($id: ID!, $limit: Int, $after: String) { getWorkflowInstance(id: $id) { id status events(limit: $limit, after: $after) { ${FIELDS} data cursor } } }`;

interface ServedEvent { type: string; time: string | null; taskPosition: string | null; taskName: string | null; accepted: boolean; rejection: string | null; data: string | null; cursor: string }
interface ServedRun { id: string; status: string; events: ServedEvent[] }

const withoutCursorAndData = (events: readonly ServedEvent[]) => events.map(({ data: _data, cursor: _cursor, ...rest }) => rest);

async function runOf(client: GraphQLClient, id: string, variables: { limit?: number; after?: string } = {}): Promise<ServedRun | null> {
  const data = await client.data(RUN_EVENTS, { id, ...variables });
  return data['getWorkflowInstance'] as ServedRun | null;
}

/** Every event of a run, one page of `limits[k]` (cycled) after another. */
async function pagedHistory(client: GraphQLClient, id: string, limits: readonly number[]): Promise<ServedEvent[]> {
  const all: ServedEvent[] = [];
  for (let k = 0; ; k++) {
    const limit = limits[k % limits.length]!;
    const after = all.length === 0 ? {} : { after: all[all.length - 1]!.cursor };
    const page = (await runOf(client, id, { limit, ...after }))?.events ?? [];
    all.push(...page);
    if (page.length < limit) return all;
  }
}

export function runEventHistorySuite(backend: ConformanceBackend): void {
  describe(`event history: WorkflowInstance.events (${backend.name})`, () => {
    const admin = new GraphQLClient(backend.recordQuery, backend.executionsPerRequest);
    const team = new GraphQLClient(undefined, backend.executionsPerRequest);
    const others = new GraphQLClient(undefined, backend.executionsPerRequest);
    let signIn: TestSignIn | undefined;
    let app: App | undefined;
    let teardown: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      signIn = await startTestSignIn({
        audience: AUDIENCE,
        clients: [
          { id: 'history-admin', secret: 'history-admin-secret', groups: ['admins'] },
          { id: 'history-team', secret: 'history-team-secret', groups: ['team'] },
          { id: 'history-others', secret: 'history-others-secret', groups: ['others'] },
        ],
        rules: [
          { group: 'admins', namespaces: ['*'], payloads: true },
          { group: 'team', namespaces: [HISTORY_NAMESPACE], payloads: false },
          { group: 'others', namespaces: [OTHER_NAMESPACE], payloads: true },
        ],
      });
      for (const [client, id] of [[admin, 'history-admin'], [team, 'history-team'], [others, 'history-others']] as const) {
        client.setHeaders({ authorization: `Bearer ${await signIn.issuer.clientCredentialsToken(id)}` });
      }
      const store = await backend.setup(HISTORY_EVENTS);
      teardown = () => store.teardown();
      app = createApp({ config: loadCoreConfig({ NODE_ENV: 'production', ...signIn.settings }), reader: store.reader, logger: pino({ level: 'silent' }), backend: backend.name });
      for (const client of [admin, team, others]) client.attach(app);
    });

    afterAll(async () => {
      for (const client of [admin, team, others]) client.attach(null);
      try {
        await app?.dispose();
        await teardown?.();
      } finally {
        await signIn?.stop();
      }
    });

    it('shows every accepted event once, however often it was delivered, in event-time order', async () => {
      const run = await runOf(admin, HISTORY_RUNS.duplicate);
      expect(run?.status).toBe('COMPLETED');
      expect(withoutCursorAndData(run?.events ?? [])).toEqual(EXPECTED_HISTORIES[HISTORY_RUNS.duplicate]);
    });

    it('shows a rejected completion (timestamp "yesterday") with its reason, last, while the run stays RUNNING', async () => {
      const run = await runOf(admin, HISTORY_RUNS.stuck);
      expect(run?.status).toBe('RUNNING');
      expect(withoutCursorAndData(run?.events ?? [])).toEqual(EXPECTED_HISTORIES[HISTORY_RUNS.stuck]);
    });

    it('data is the event as stored: the producer\'s fields (accepted), the raw record (rejected)', async () => {
      const duplicate = await runOf(admin, HISTORY_RUNS.duplicate);
      const started = duplicate?.events.find((e) => e.type.endsWith('workflow.started.v1'));
      expect(JSON.parse(started?.data ?? 'null')).toEqual(DUPLICATE_STARTED_EVENT);
      const stuck = await runOf(admin, HISTORY_RUNS.stuck);
      const rejected = stuck?.events.at(-1);
      expect(JSON.parse(rejected?.data ?? 'null')).toMatchObject({ instanceId: HISTORY_RUNS.stuck, timestamp: 'yesterday', output: { charged: true } });
    });

    it('pages: any sequence of limits yields the whole ordered history, no event repeated or skipped', async () => {
      const whole = (await runOf(admin, HISTORY_RUNS.loop, { limit: 1000 }))?.events ?? [];
      expect(whole).toHaveLength(LOOP_HISTORY_LENGTH);
      // Served times drop trailing zeros, so they are compared as instants (the loop's are whole milliseconds).
      const times = whole.map((e) => Date.parse(e.time ?? ''));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(whole.filter((e) => e.taskPosition?.startsWith('do/1/')).map((e) => e.taskPosition)).toEqual(['do/1/a', 'do/1/b', 'do/1/c']);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }), async (limits) => {
          expect(await pagedHistory(admin, HISTORY_RUNS.loop, limits)).toEqual(whole);
        }),
        { numRuns: 12 },
      );
    });

    it('limit and after are checked: out of bounds or not a cursor of events is BAD_USER_INPUT; limit 0 is []', async () => {
      for (const variables of [{ limit: -1 }, { limit: 1001 }, { after: 'bm90IGEgY3Vyc29y' }]) {
        const errors = await admin.errors(RUN_EVENTS, { id: HISTORY_RUNS.loop, ...variables });
        expect(errors.map((e) => e.extensions?.['code'])).toEqual(['BAD_USER_INPUT']);
      }
      expect((await runOf(admin, HISTORY_RUNS.loop, { limit: 0 }))?.events).toEqual([]);
    });

    it('many runs in one query: each its own history (one batch)', async () => {
      const data = await admin.data(`{ getWorkflowInstances(filter: {namespace: {eq: "${HISTORY_NAMESPACE}"}}, orderBy: {id: ASC}) { id events(limit: 3) { ${FIELDS} } } }`);
      const runs = data['getWorkflowInstances'] as { id: string; events: unknown[] }[];
      expect(runs.map((r) => r.id)).toEqual([HISTORY_RUNS.duplicate, HISTORY_RUNS.loop, HISTORY_RUNS.stuck]);
      for (const id of [HISTORY_RUNS.duplicate, HISTORY_RUNS.stuck]) expect(runs.find((r) => r.id === id)?.events).toEqual(EXPECTED_HISTORIES[id]!.slice(0, 3));
    });

    it('a subject without payloads sees every event, its data null', async () => {
      const run = await runOf(team, HISTORY_RUNS.stuck);
      expect(withoutCursorAndData(run?.events ?? [])).toEqual(EXPECTED_HISTORIES[HISTORY_RUNS.stuck]);
      expect(run?.events.map((e) => e.data)).toEqual(EXPECTED_HISTORIES[HISTORY_RUNS.stuck]!.map(() => null));
    });

    it('a subject outside a run\'s namespace sees no event of it', async () => {
      expect(await runOf(others, HISTORY_RUNS.stuck)).toBeNull();
      expect(await runOf(team, HISTORY_RUNS.outside)).toBeNull();
      const data = await others.data(`{ getWorkflowInstances { id events { accepted rejection } } }`);
      expect(data['getWorkflowInstances']).toEqual([{ id: HISTORY_RUNS.outside, events: [{ accepted: true, rejection: null }, { accepted: false, rejection: 'timestamp "not a time" is not a valid time' }] }]);
    });
  });
}
