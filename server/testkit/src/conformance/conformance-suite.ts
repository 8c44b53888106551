// The backend-neutral conformance suite (DESIGN.md, Boundaries): a backend loads CONFORMANCE_EVENTS through
// its real ingestion path and hands back a Reader; the suite builds the real app around it and asserts the
// public contract (CONTRACT.md section 2) through GraphQL over HTTP only. Every backend must pass it unchanged.
//
// A backend binding is one test file:
//   describe('conformance: mybackend', () => runConformanceSuite({ name: 'mybackend', setup: async (events) => … }));
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createApp } from '@workflow-index/core';
import type { App } from '@workflow-index/core';
import { defaultCoreConfig, loadCoreConfig } from '@workflow-index/core';
import { withCountExactLimit } from '@workflow-index/core';
import type { Reader } from '@workflow-index/core';
import { describeCounts, ESTIMATING_COUNT_LIMIT } from './counts-assertions.js';
import { describeDurations } from './duration-assertions.js';
import { describeIndexStatus } from './index-status-assertions.js';
import { describeJsonOperators } from './json-operator-assertions.js';
import { describeRelations } from './relation-assertions.js';
import { CONFORMANCE_EVENTS as EVENTS } from './conformance-events.js';
import { describeCursors } from './cursor-assertions.js';
import { describeErrors } from './error-assertions.js';
import { describeFilters } from './filter-assertions.js';
import { postGraphQL } from '../graphql-request.js';
import { GraphQLClient, type QueryRecorder } from './graphql-client.js';
import { describeOperations } from './operation-assertions.js';
import { describeOrdering } from './ordering-assertions.js';
import { describePagination } from './pagination-assertions.js';
import { describePlaceholders } from './placeholder-assertions.js';

export interface ConformanceBackend {
  readonly name: string;
  /** Creates an empty store, loads the events through the backend's real ingestion path, returns a Reader over it. */
  setup(events: readonly Record<string, unknown>[]): Promise<{ reader: Reader; teardown(): Promise<void> }>;
  /** Optional: called with every GraphQL request the suite sends (query text and variables), in order. */
  readonly recordQuery?: QueryRecorder;
  /** How many times the client sends each request (graphql-client.ts); default 3. */
  readonly executionsPerRequest?: 2 | 3;
  /**
   * Optional: the suite with sign-in on (CONTRACT §8). Called once before the store is loaded: `settings` are the
   * configuration keys its apps are loaded with (AUTH_MODE=oidc, OIDC_ISSUER, OIDC_AUDIENCE, AUTHZ_RULES_FILE, …) over
   * the production defaults, `authorization` the header every request of the suite carries (an admin's bearer token:
   * a rule `*` with payloads, so every assertion holds unchanged). The suite then also asserts that a request without
   * it is refused.
   */
  readonly auth?: () => Promise<ConformanceAuth>;
}

export interface ConformanceAuth {
  readonly settings: Readonly<Record<string, string>>;
  readonly authorization: string;
}


/** The reference fixture events followed by the suite's extra events (see conformance-events.ts). */
export const CONFORMANCE_EVENTS: readonly Record<string, unknown>[] = EVENTS;

// Silent by default; CONFORMANCE_LOG_LEVEL=error shows why a query was answered INTERNAL_SERVER_ERROR.
const LOG_LEVEL = process.env['CONFORMANCE_LOG_LEVEL'] ?? 'silent';

/** Declares the suite's describe/it blocks; the store is loaded once, before the first test. */
export function runConformanceSuite(backend: ConformanceBackend): void {
  describe(`conformance suite (${backend.name})`, () => {
    const client = new GraphQLClient(backend.recordQuery, backend.executionsPerRequest);
    // The same reader behind an app whose COUNT_EXACT_LIMIT is below the data's size: counts above it are estimates.
    const estimating = new GraphQLClient();
    let app: App | null = null;
    let estimatingApp: App | null = null;
    let teardown: (() => Promise<void>) | null = null;
    let statementPrice = 0;

    beforeAll(async () => {
      const auth = await backend.auth?.();
      const config = auth === undefined ? defaultCoreConfig('production') : loadCoreConfig({ NODE_ENV: 'production', ...auth.settings });
      if (auth !== undefined) {
        client.setHeaders({ authorization: auth.authorization });
        estimating.setHeaders({ authorization: auth.authorization });
      }
      const store = await backend.setup(CONFORMANCE_EVENTS);
      teardown = () => store.teardown();
      statementPrice = store.reader.workPrices.statement;
      app = createApp({ config, reader: store.reader, logger: pino({ level: LOG_LEVEL }), backend: backend.name });
      client.attach(app);
      const estimatingConfig = withCountExactLimit(config, ESTIMATING_COUNT_LIMIT);
      estimatingApp = createApp({ config: estimatingConfig, reader: store.reader, logger: pino({ level: LOG_LEVEL }), backend: backend.name });
      estimating.attach(estimatingApp);
    });

    afterAll(async () => {
      client.attach(null);
      estimating.attach(null);
      try {
        await app?.dispose();
        await estimatingApp?.dispose();
      } finally {
        await teardown?.();
      }
    });

    describe('query operations and fields', () => describeOperations(client));
    describe('filters', () => describeFilters(client));
    describe('ordering', () => describeOrdering(client));
    describe('pagination', () => describePagination(client, () => statementPrice));
    describe('keyset pagination (after: cursor)', () => describeCursors(client));
    describe('argument errors', () => describeErrors(client));
    describe('placeholders', () => describePlaceholders(client));
    describe('counts', () => describeCounts(client, estimating));
    describe('durations', () => describeDurations(client));
    describe('tasks and their runs', () => describeRelations(client));
    describe('JSON filter operators', () => describeJsonOperators(client));
    // Through the second client, whose requests are not recorded: the answer names the backend and depends on the
    // clock, so a cross-backend replay (server/cross-backend/test/cross-backend.test.ts) could never match it.
    describe('index status', () => describeIndexStatus(estimating));
    if (backend.auth !== undefined) {
      describe('sign-in (AUTH_MODE=oidc)', () => {
        it('a request without the bearer token (or with one that is no JWT) is HTTP 401 UNAUTHENTICATED with WWW-Authenticate: Bearer and no data', async () => {
          if (app === null) throw new Error('the conformance app is not set up (beforeAll failed?)');
          for (const headers of [{}, { authorization: 'Bearer not-a-jwt' }] as Record<string, string>[]) {
            const { status, body, response } = await postGraphQL(app, '{ getWorkflowInstances(limit: 1) { id } countWorkflowInstances { value } }', undefined, headers);
            expect({ status, data: body.data ?? null, codes: (body.errors ?? []).map((e) => e.extensions?.['code']) }).toEqual({ status: 401, data: null, codes: ['UNAUTHENTICATED'] });
            expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
          }
        });
      });
    }
  });
}
