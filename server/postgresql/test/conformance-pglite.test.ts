// The shared conformance suite on the embedded database of development mode (PGlite behind pglite-socket, the
// same startEmbeddedDatabase the server uses). Runs every time (a few seconds): the database `npm start` gives new
// users must answer exactly like the real server. PGlite has a single session, so the roles are taken with SET ROLE: the events are written as
// workflow_index_forwarder (search_path workflow_raw, as Fluent Bit), the reader queries as workflow_index_reader.
import { describe } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runConformanceSuite } from '@workflow-index/testkit';
import { startEmbeddedDatabase } from '../src/dev-database.js';
import { migrate } from '../src/migrator.js';
import { createPool } from '../src/postgresql-pool.js';
import { createPostgresqlReader } from '../src/postgresql-reader.js';
import { loadEvents } from './support/load-events.js';

describe('conformance: PGlite (embedded development database)', () => {
  runConformanceSuite({
    name: 'pglite',
    async setup(events) {
      const dir = mkdtempSync(join(tmpdir(), 'wi-pglite-conformance-'));
      const database = await startEmbeddedDatabase(join(dir, 'data'));
      const pool = createPool({
        connection: { ...database.connection, max: database.maxConnections, idleTimeoutMillis: 0 },
        queryTimeoutMs: 30_000,
        connectTimeoutMs: 10_000,
        readOnly: false,
      });
      const cleanup = async (): Promise<void> => {
        await pool.end().catch(() => undefined);
        await database.stop();
        rmSync(dir, { recursive: true, force: true });
      };
      try {
        const client = await pool.connect();
        try {
          await migrate(client);
          await client.query('SET ROLE workflow_index_forwarder');
          await client.query('SET search_path = workflow_raw');
          await loadEvents(client, events, { qualified: false, batchSizes: [100] });
          await client.query('RESET search_path');
          await client.query('SET ROLE workflow_index_reader');
        } finally {
          client.release();
        }
      } catch (error) {
        await cleanup();
        throw error;
      }
      const reader = createPostgresqlReader({ pool, ownsPool: false });
      return {
        reader,
        async teardown() {
          await reader.close();
          await cleanup();
        },
      };
    },
  });
});
