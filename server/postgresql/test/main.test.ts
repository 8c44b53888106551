// Production mode end to end: main.ts as a child process (what `npm run serve:postgresql` and the image run),
// configured only by the environment, against real PostgreSQL as a reader login role — reached through a TCP proxy
// the test can cut, to see readiness and queries during an outage and the recovery after it.
import { afterAll, describe, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import net from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { ADMIN_URL, createTestDatabase, ensureLoginRole, type TestDatabase, openTestPool } from './support/test-database.js';
import { loadEvents } from './support/load-events.js';
import { fixtureEvents, postGraphQL, postGraphQLOnce } from '@workflow-index/testkit';
import { startMain, stop, type ServerProcess } from './support/main-process.js';

const it = postgresTest({ prefix: 'wi_main' });


const READER_ROLE = 'wi_main_test_reader';
const FORWARDER_ROLE = 'wi_main_test_forwarder';


/** Starts a production server and returns its base URL once it listens. */
async function startProduction(env: Record<string, string>): Promise<{ server: ServerProcess; baseUrl: string }> {
  const server = startMain({ NODE_ENV: 'production', HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0', ...env });
  // "server started" is logged once the SIGTERM handler is installed.
  const listening = await server.waitFor(/"httpPort":(\d+),"msg":"server started"/);
  return { server, baseUrl: `http://127.0.0.1:${listening[1]}` };
}

async function readyStatus(baseUrl: string): Promise<number> {
  return (await fetch(`${baseUrl}/q/health/ready`)).status;
}

/** Polls until `probe` returns `expected`; returns how long that took (ms), or throws after `timeoutMs`. */
async function until<T>(probe: () => Promise<T>, expected: T, timeoutMs: number): Promise<number> {
  const began = performance.now();
  let last: T | undefined;
  while (performance.now() - began < timeoutMs) {
    last = await probe();
    if (last === expected) return performance.now() - began;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`still ${String(last)} after ${timeoutMs} ms (wanted ${String(expected)})`);
}

/** A TCP proxy to the PostgreSQL server; cut() closes the listener and every open connection, like an outage. */
class TcpProxy {
  #server: net.Server | null = null;
  readonly #sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    if (this.#server !== null) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    for (const s of this.#sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const FIXTURE_INSTANCE_COUNT = 8;
const COUNT_QUERY = '{ getWorkflowInstances { id } }';

describe('production mode configuration', () => {
  it('refuses to start without DATABASE_URL and lists every problem at once, never echoing a secret', async () => {
    const server = startMain({ NODE_ENV: 'production', DATABASE_PASSWORD: 's3cret-value', HTTP_PORT: 'eighty', DATABASE_QUERY_TIMEOUT_MS: '0' });
    expect(await server.exited).toBe(2);
    const output = server.output();
    expect(output).toContain('invalid configuration');
    expect(output).toContain('missing DATABASE_URL (or QUARKUS_DATASOURCE_JDBC_URL)');
    expect(output).toContain('DATABASE_PASSWORD is set but DATABASE_USERNAME is not');
    expect(output).toContain('HTTP_PORT must be an integer between 0 and 65535, got "eighty"');
    expect(output).toContain('DATABASE_QUERY_TIMEOUT_MS must be an integer between 1 and 3600000, got "0"');
    expect(output).not.toContain('s3cret-value');
  });

  it('rejects development-only settings and unknown flags in production', async () => {
    const server = startMain({ NODE_ENV: 'production', DATABASE_URL: 'postgres://u@127.0.0.1:1/db' }, ['--dev-services=embedded', '--bogus']);
    expect(await server.exited).toBe(2);
    expect(server.output()).toContain('Unknown argument: bogus');
    expect(server.output()).toContain('--dev-services applies only in development (NODE_ENV=development)');
  });

  it('prints the flags with --help and exits 0', async () => {
    const server = startMain({}, ['--help']);
    expect(await server.exited).toBe(0);
    for (const flag of ['--port', '--dev-services', '--database-url']) expect(server.output()).toContain(flag);
  });
});

describePostgres('production mode against real PostgreSQL', () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let readerUrl: string;
  const servers: ServerProcess[] = [];

  it.beforeAll(async ({ database }) => {
    db = database;
    await ensureLoginRole(READER_ROLE, 'workflow_index_reader');
    await ensureLoginRole(FORWARDER_ROLE, 'workflow_index_forwarder');
    const forwarder = openTestPool({ connectionString: db.urlAs(FORWARDER_ROLE, 'test-password'), max: 1 });
    try {
      await loadEvents(forwarder, fixtureEvents(), { qualified: false });
    } finally {
      await forwarder.end();
    }
    const admin = new URL(ADMIN_URL);
    proxy = new TcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    await proxy.open();
    const url = new URL(db.urlAs(READER_ROLE, 'test-password'));
    url.host = `127.0.0.1:${proxy.port}`;
    readerUrl = url.toString();
  });
  afterAll(async () => {
    for (const s of servers) await stop(s);
    await proxy?.cut();
  });

  it('serves as the reader role; readiness goes DOWN during an outage, queries answer SERVICE_UNAVAILABLE promptly, and both recover by themselves', async () => {
    const { server, baseUrl } = await startProduction({
      DATABASE_URL: readerUrl, HEALTH_BACKEND_TIMEOUT_MS: '500', DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_QUERY_TIMEOUT_MS: '3000',
    });
    servers.push(server);
    expect(server.output()).not.toContain('GraphQL UI'); // the development banner
    expect(server.output()).toContain('schema changes off (DATABASE_MIGRATE=false)');
    expect(server.output()).not.toContain('test-password');
    expect(await readyStatus(baseUrl)).toBe(200);
    expect((((await postGraphQL(baseUrl, COUNT_QUERY)).body).data?.['getWorkflowInstances'] as unknown[]).length).toBe(FIXTURE_INSTANCE_COUNT);

    await proxy.cut();
    const downAfter = await until(() => readyStatus(baseUrl), 503, 5000);
    expect(downAfter).toBeLessThan(5000);
    const ready = (await (await fetch(`${baseUrl}/q/health/ready`)).json()) as { status: string; checks: Array<{ name: string; status: string }> };
    expect(ready.status).toBe('DOWN');
    expect(ready.checks.find((c) => c.name === 'backend')?.status).toBe('DOWN');
    expect((await fetch(`${baseUrl}/q/health/live`)).status).toBe(200);
    const began = performance.now();
    const failed = (await postGraphQL(baseUrl, COUNT_QUERY)).body;
    expect(performance.now() - began).toBeLessThan(3000);
    expect(failed.errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);

    await proxy.open(); // same port: the server's configuration does not change
    await until(() => readyStatus(baseUrl), 200, 10_000);
    expect((((await postGraphQL(baseUrl, COUNT_QUERY)).body).data?.['getWorkflowInstances'] as unknown[]).length).toBe(FIXTURE_INSTANCE_COUNT);
    expect(server.child.exitCode).toBeNull(); // it kept running all along
    expect(await stop(server)).toBe(0);
  });

  it('starts while the database is down (readiness DOWN) and becomes ready once it is reachable', async () => {
    await proxy.cut();
    try {
      const { server, baseUrl } = await startProduction({ DATABASE_URL: readerUrl, HEALTH_BACKEND_TIMEOUT_MS: '500', DATABASE_CONNECT_TIMEOUT_MS: '1000' });
      servers.push(server);
      expect(server.output()).toContain('database not reachable at start; serving with readiness DOWN until it is');
      expect(await readyStatus(baseUrl)).toBe(503);
      expect(((await postGraphQL(baseUrl, COUNT_QUERY)).body).errors?.map((e) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
      await proxy.open();
      await until(() => readyStatus(baseUrl), 200, 10_000);
      expect((((await postGraphQL(baseUrl, COUNT_QUERY)).body).data?.['getWorkflowInstances'] as unknown[]).length).toBe(FIXTURE_INSTANCE_COUNT);
      expect(await stop(server)).toBe(0);
    } finally {
      await proxy.open(); // a no-op unless the test failed before reopening it
    }
  });

  it('drains on SIGTERM: stops accepting, finishes the in-flight query, closes the pool, exits 0', async () => {
    const { server, baseUrl } = await startProduction({ DATABASE_URL: readerUrl, DATABASE_QUERY_TIMEOUT_MS: '20000', HTTP_SHUTDOWN_TIMEOUT_MS: '15000' });
    servers.push(server);
    const blocker = await db.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE workflow_index.workflow_instances IN ACCESS EXCLUSIVE MODE');
      // One connection per request (as a proxy that closes after the response), so draining can end as soon as it is answered.
      const inFlight = postGraphQLOnce(baseUrl, COUNT_QUERY);
      // The query is in flight once its session waits for the lock.
      await until(async () => {
        const r = await db.pool.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND usename = $2 AND wait_event_type = 'Lock'`, [db.name, READER_ROLE]);
        return r.rows[0]?.n;
      }, '1', 5000);
      server.child.kill('SIGTERM');
      await server.waitFor(/shutting down/);
      await new Promise((r) => setTimeout(r, 300));
      expect(server.child.exitCode).toBeNull(); // still draining
      await expect(fetch(`${baseUrl}/q/health/live`)).rejects.toThrow(); // no longer accepting
      await blocker.query('ROLLBACK');
      const answered = await inFlight;
      expect(answered.status).toBe(200);
      expect((answered.body.data?.['getWorkflowInstances'] as unknown[]).length).toBe(FIXTURE_INSTANCE_COUNT);
      const answeredAt = performance.now();
      await server.exited;
      expect(performance.now() - answeredAt).toBeLessThan(3000);
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      blocker.release();
    }
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('shutdown complete');
    // The pool was closed: the server's sessions end (the backends notice the closed sockets right away).
    await until(async () => {
      const r = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND usename = $2`, [db.name, READER_ROLE]);
      return r.rows[0]?.n;
    }, '0', 2000);
  });

  it('changes the schema only with DATABASE_MIGRATE=true, and never with SCHEMA_INIT_ENABLED=false', async () => {
    const empty = await createTestDatabase({ migrated: false, prefix: 'wi_main_schema' });
    const historyExists = async (): Promise<boolean> =>
      (await empty.pool.query<{ t: string | null }>(`SELECT to_regclass('workflow_index.schema_migrations')::text AS t`)).rows[0]?.t !== null;
    try {
      const plain = await startProduction({ DATABASE_URL: empty.url });
      servers.push(plain.server);
      expect(await stop(plain.server)).toBe(0);
      expect(await historyExists()).toBe(false);

      const disabled = await startProduction({ DATABASE_URL: empty.url, DATABASE_MIGRATE: 'true', SCHEMA_INIT_ENABLED: 'false' });
      servers.push(disabled.server);
      expect(disabled.server.output()).toContain('schema initialization disabled (SCHEMA_INIT_ENABLED=false)');
      expect(await stop(disabled.server)).toBe(0);
      expect(await historyExists()).toBe(false);

      const migrating = await startProduction({ DATABASE_URL: empty.url, DATABASE_MIGRATE: 'true' });
      servers.push(migrating.server);
      expect(migrating.server.output()).toMatch(/"migration":"1_initial_schema"/);
      expect(await historyExists()).toBe(true);
      expect(await readyStatus(migrating.baseUrl)).toBe(200);
      expect((await postGraphQL(migrating.baseUrl, COUNT_QUERY)).body).toEqual({ data: { getWorkflowInstances: [] } });
      expect(await stop(migrating.server)).toBe(0);
    } finally {
      await empty.drop();
    }
  });
});
