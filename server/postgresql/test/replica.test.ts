// The server reading from a real streaming replica (CONTRACT §10): a test-owned primary and a pg_basebackup standby
// (support/replica-pair.ts). Migrations and Fluent Bit's events go to the primary; the server on the standby serves
// them once replayed, reports the replay lag in indexStatus (null on the primary), keeps readiness DOWN while the lag
// passes DATABASE_MAX_REPLICATION_LAG_SECONDS (replay paused, the primary still writing) and UP once replay resumes,
// and delivers live updates on the standby by polling.
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MemoryLog, graphqlData, runStarted, serviceDescribe } from '@workflow-index/testkit';
import type { ChangeBatch } from '@workflow-index/core';
import { migrate } from '../src/migrator.js';
import { PostgresqlChangeFeed } from '../src/postgresql-change-feed.js';
import { loadPostgresqlConfig } from '../src/postgresql-config.js';
import { startPostgresqlServer } from '../src/postgresql-server.js';
import type { PostgresqlServer } from '../src/postgresql-server.js';
import { loadEvents } from './support/load-events.js';
import { type ReplicaPair, replicaPairAvailable, startReplicaPair } from './support/replica-pair.js';

const describe = await serviceDescribe(replicaPairAvailable);
const MAX_LAG_SECONDS = 1;
const INDEX_STATUS = '{ indexStatus { backend rawEvents replicationLagSeconds } }';

/** Polls `check` until it returns true (generous: a loaded machine replays slowly). */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function serverOn(url: string): Promise<PostgresqlServer> {
  const config = loadPostgresqlConfig({
    NODE_ENV: 'production', DATABASE_URL: url, HTTP_PORT: '0', LOG_LEVEL: 'silent', HEALTH_DISK_MIN_FREE_BYTES: '0',
    DATABASE_MAX_REPLICATION_LAG_SECONDS: String(MAX_LAG_SECONDS),
  });
  return startPostgresqlServer(config, new MemoryLog().logger());
}

describe('reading from a streaming replica', () => {
  let pair: ReplicaPair;
  let primary: pg.Pool;
  let standby: pg.Pool;
  const servers: PostgresqlServer[] = [];

  /**
   * Waits until the standby replayed everything the primary wrote so far: up to its insert position, since with the
   * pair's synchronous_commit off a commit record can still be in the WAL buffers, past the write position.
   */
  const replayed = async (): Promise<void> => {
    const lsn = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn;
    await eventually(async () => (await standby.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn])).rows[0]!.ok, 'the standby to replay');
  };
  const ready = async (server: PostgresqlServer): Promise<{ status: number; body: string }> => {
    const response = await fetch(`${server.baseUrl}/q/health/ready`);
    return { status: response.status, body: await response.text() };
  };

  const metrics = async (server: PostgresqlServer): Promise<string> => (await fetch(`${server.baseUrl}/q/metrics`)).text();

  beforeAll(async () => {
    pair = await startReplicaPair();
    primary = new pg.Pool({ connectionString: pair.primaryUrl, max: 2 });
    standby = new pg.Pool({ connectionString: pair.standbyUrl, max: 2 });
    const client = await primary.connect();
    try {
      await migrate(client);
    } finally {
      client.release();
    }
    await replayed();
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) await server.close();
    await primary?.end();
    await standby?.end();
    await pair?.stop();
  }, 60_000);

  it('serves on the standby what Fluent Bit delivered to the primary, once replayed, with the replay lag', async () => {
    const server = await serverOn(pair.standbyUrl);
    servers.push(server);
    await loadEvents(primary, [runStarted('replica-a', 0), runStarted('replica-b', 1)]);
    await replayed();
    const data = await graphqlData<{ getWorkflowInstance: { id: string } | null }>(server.baseUrl, '{ getWorkflowInstance(id: "replica-b") { id } }');
    expect(data.getWorkflowInstance?.id).toBe('replica-b');
    const status = await graphqlData<{ indexStatus: { rawEvents: number; replicationLagSeconds: number | null } }>(server.baseUrl, INDEX_STATUS);
    expect(status.indexStatus.rawEvents).toBe(2);
    expect(typeof status.indexStatus.replicationLagSeconds).toBe('number');
    expect((await ready(server)).status).toBe(200);
    expect(await metrics(server)).toMatch(/^workflow_index_replication_lag_seconds\{[^}]*\} \d/m);
  }, 120_000);

  it('reports no replication lag on the primary', async () => {
    const server = await serverOn(pair.primaryUrl);
    servers.push(server);
    const status = await graphqlData<{ indexStatus: { replicationLagSeconds: number | null } }>(server.baseUrl, INDEX_STATUS);
    expect(status.indexStatus.replicationLagSeconds).toBeNull();
    expect(await metrics(server)).not.toMatch(/^workflow_index_replication_lag_seconds\{/m);
  }, 120_000);

  it('keeps readiness DOWN while the replay lag passes the limit, UP again once replay resumes', async () => {
    const server = servers[0] ?? (await serverOn(pair.standbyUrl));
    await standby.query('SELECT pg_wal_replay_pause()');
    try {
      let n = 0;
      await eventually(async () => {
        await loadEvents(primary, [runStarted(`paused-${n}`, n)]);
        n += 1;
        return (await ready(server)).status === 503;
      }, 'readiness DOWN while replay is paused');
      const down = await ready(server);
      expect(down.body).toContain('DATABASE_MAX_REPLICATION_LAG_SECONDS');
      const status = await graphqlData<{ indexStatus: { replicationLagSeconds: number } }>(server.baseUrl, INDEX_STATUS);
      expect(status.indexStatus.replicationLagSeconds).toBeGreaterThan(MAX_LAG_SECONDS);
    } finally {
      await standby.query('SELECT pg_wal_replay_resume()');
    }
    await eventually(async () => (await ready(server)).status === 200, 'readiness UP after replay resumed');
  }, 120_000);

  it('delivers live updates on the standby by polling (NOTIFY is not replicated)', async () => {
    const feed = new PostgresqlChangeFeed({ connection: { connectionString: pair.standbyUrl }, logger: new MemoryLog().logger(), standbyPollMs: 100 });
    const seen = new Set<string>();
    await feed.start((batch: ChangeBatch) => {
      if (batch.kind === 'changed') for (const id of batch.ids) seen.add(id);
    });
    try {
      await loadEvents(primary, [runStarted('live-1', 10), { ...runStarted('live-2', 11), status: 'RUNNING' }]);
      await eventually(async () => seen.has('live-1') && seen.has('live-2'), 'live updates from the standby');
      expect(seen.has('replica-a')).toBe(false); // what was there at start is taken as seen
    } finally {
      await feed.stop();
    }
  }, 120_000);
});
