// The same event lines into a fresh PostgreSQL database and a fresh prefix of a test namespace, each behind its own
// real app: what cross-backend.test.ts and the cross-backend edge tests compare. The apps run the production
// configuration with the query cost out of the way: each backend prices its work by its own measured table
// (docs/query-cost.md), so one request may be refused on one backend and answered on the other; the answers are what
// is compared here, the cost is tested per backend (and with the default budget in dates-bounds.test.ts).
import { Client } from '@opensearch-project/opensearch';
import { pino } from 'pino';
import { type App, createApp } from '@workflow-index/core';
import { type CoreConfig, defaultCoreConfig } from '@workflow-index/core';
import type { Reader } from '@workflow-index/core';
import { GraphQLClient, withRecordTimes } from '@workflow-index/testkit';
import { createPostgresqlReader } from '@workflow-index/postgresql';
import { createTestDatabase, type TestDatabase } from '@workflow-index/postgresql/testing';
import { createOpenSearchReader } from '@workflow-index/opensearch';
import { loadNormalized, RECORD_TIME_MS } from '@workflow-index/opensearch/testing';
import { writeToPostgreSQL } from './postgresql-twin.js';
import { OPENSEARCH_URL, type TestNamespace } from '@workflow-index/opensearch/testing';

export interface Side {
  readonly reader: Reader;
  readonly app: App;
  readonly client: GraphQLClient;
}

export interface Pair {
  readonly postgresql: Side;
  readonly opensearch: Side;
  /** Disposes both apps and readers and drops the database (the namespace stays the caller's). */
  close(): Promise<void>;
}

/** The production configuration with a budget no request of the comparisons reaches (see the header). */
export function comparisonConfig(): CoreConfig {
  const base = defaultCoreConfig('production');
  return { ...base, graphql: { ...base.graphql, maxCost: 1_000_000_000, maxCostInFlight: 0 } };
}

/** One backend's reader behind its own real app (comparisonConfig unless given). */
export function side(reader: Reader, backend: string, config: CoreConfig = comparisonConfig()): Side {
  const app = createApp({ config, reader, logger: pino({ level: 'silent' }), backend });
  const client = new GraphQLClient(undefined, 2); // as conformance.test.ts (see there)
  client.attach(app);
  return { reader, app, client };
}

/** The same lines into a fresh database (named after `databasePrefix`) and the prefix `<ns>name-`. */
export async function loadPair(ns: TestNamespace, name: string, lines: readonly string[], databasePrefix = 'wi_cross'): Promise<Pair> {
  const prefix = `${ns.prefix}${name}-`;
  let db: TestDatabase | undefined;
  try {
    db = await createTestDatabase({ prefix: databasePrefix });
    await writeToPostgreSQL(db, withRecordTimes(lines, RECORD_TIME_MS));
    await loadNormalized(ns.client, prefix, lines);
  } catch (error) {
    await db?.drop();
    throw error;
  }
  const database = db;
  const postgresql = side(createPostgresqlReader({ pool: database.pool, ownsPool: false }), 'postgresql');
  const opensearch = side(createOpenSearchReader({ client: new Client({ node: OPENSEARCH_URL }), prefix }), 'opensearch');
  return {
    postgresql,
    opensearch,
    async close() {
      for (const s of [postgresql, opensearch]) {
        await s.app.dispose();
        await s.reader.close();
      }
      await database.drop();
    },
  };
}
