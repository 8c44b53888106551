// The conformance suite's store on real PostgreSQL (conformance.test.ts, conformance-auth.test.ts): a fresh migrated
// database, the events written by a forwarder login role exactly as Fluent Bit writes them, the reader connected as a
// reader login role.
import type { Reader } from '@workflow-index/core';
import { createPool } from '../../src/postgresql-pool.js';
import { createPostgresqlReader } from '../../src/postgresql-reader.js';
import { createTestDatabase, ensureLoginRole, openTestPool } from './test-database.js';
import { loadEvents } from './load-events.js';

const READER_ROLE = 'wi_conformance_reader';
const FORWARDER_ROLE = 'wi_conformance_forwarder';

export async function conformanceStore(events: readonly Record<string, unknown>[]): Promise<{ reader: Reader; teardown(): Promise<void> }> {
  const db = await createTestDatabase({ prefix: 'wi_conformance' });
  try {
    await ensureLoginRole(READER_ROLE, 'workflow_index_reader');
    await ensureLoginRole(FORWARDER_ROLE, 'workflow_index_forwarder');
    const forwarder = openTestPool({ connectionString: db.urlAs(FORWARDER_ROLE, 'test-password'), max: 1 });
    try {
      // Unqualified names resolve through the forwarder role's search_path (workflow_raw), as for Fluent Bit.
      await loadEvents(forwarder, events, { qualified: false, batchSizes: [100] });
    } finally {
      await forwarder.end();
    }
  } catch (error) {
    await db.drop();
    throw error;
  }
  const reader = createPostgresqlReader({
    pool: createPool({
      connection: { connectionString: db.urlAs(READER_ROLE, 'test-password'), max: 4 },
      queryTimeoutMs: 10_000,
      connectTimeoutMs: 5000,
    }),
  });
  return {
    reader,
    async teardown() {
      await reader.close();
      await db.drop();
    },
  };
}
