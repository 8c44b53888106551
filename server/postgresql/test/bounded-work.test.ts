// No legal request may exhaust the database: against the real PostgreSQL server, 5,200 runs with 10 task executions
// each (as the abuse probes had), the production-mode app as the reader login (its session limits, migration 0015).
// Every backend process of the server is watched from /proc while requests run: its private memory (RssAnon) must stay
// within 256 MiB. fast-check sends legal requests at the edges of every limit (edge-requests.ts) one at a time; each
// answers, is refused before it runs (the cost, the limits), or ends with QUERY_TIMEOUT — never an internal error, a
// backend unavailable, or a backend above the bound. Then the heaviest legal requests from 40 client addresses at
// once, while the console's page query keeps answering and readiness stays UP, and no backend crashed (a crash
// resets every session of the cluster: an admin session opened before must still answer).
import fc from 'fast-check';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, expect } from 'vitest';
import { describePostgres, postgresTest } from './support/fixtures.js';
import { createApp, type App } from '@workflow-index/core';
import { loadCoreConfig } from '@workflow-index/core';
import { edgeRequest, heaviestLegalRequests, type EdgeRequest } from '@workflow-index/testkit';
import { BackendMemory, classify, MemoryLog, pageLatencies, pageWaitBound, type Outcome } from '@workflow-index/testkit';
import { generateDataset } from './support/bench-dataset.js';
import { createPool } from '../src/postgresql-pool.js';
import { createPostgresqlReader } from '../src/postgresql-reader.js';
import { ADMIN_URL, ensureLoginRole, type TestDatabase } from './support/test-database.js';

const it = postgresTest({ prefix: 'wi_bounded' });

const RUNS = 5200;
const MiB = 2 ** 20;
const BOUND = 256 * MiB;

/** RssAnon of a process in bytes, null when it cannot be read (gone, or /proc not readable). */
function rssAnon(pid: number): number | null {
  try {
    const match = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

describePostgres('bounded work: PostgreSQL', () => {
  const applicationName = `wi-bounded-${randomBytes(3).toString('hex')}`;
  const login = `wi_bounded_${randomBytes(4).toString('hex')}`;
  let db: TestDatabase;
  let admin: pg.Client;
  let app: App;
  let close: () => Promise<void>;
  let memory: BackendMemory;
  const log = new MemoryLog();
  /** The last warnings and errors the app logged, with their causes. */
  const logged = (): string =>
    log.entries.filter((e) => Number(e['level']) >= 40).slice(-3).map((e) => `${String(e['msg'])}: ${String((e['err'] as { message?: unknown } | undefined)?.message)}`).join(' | ');

  it.beforeAll(async ({ database, loginRoles }) => {
    db = database;
    loginRoles.dropAtEnd(login);
    const client = await db.pool.connect();
    try {
      await generateDataset(client, RUNS, 10);
    } finally {
      client.release();
    }
    await ensureLoginRole(login, 'workflow_index_reader');
    await db.pool.query('SELECT workflow_index.bound_reader_login($1)', [login]);
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    const pool = createPool({ connection: { connectionString: db.urlAs(login, 'test-password'), max: 20 }, queryTimeoutMs: 5000, connectTimeoutMs: 5000, applicationName });
    const reader = createPostgresqlReader({ pool });
    const config = loadCoreConfig({ NODE_ENV: 'production', HTTP_CLIENT_ADDRESS_HEADER: 'x-forwarded-for', HEALTH_DISK_MIN_FREE_BYTES: '0', LOG_LEVEL: 'silent' });
    app = createApp({ config, reader, logger: log.logger('info'), backend: 'postgresql' });
    memory = new BackendMemory(async () => {
      const pids = (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [applicationName])).rows.map((r) => r.pid);
      return pids.map((pid) => rssAnon(pid));
    });
    close = async () => {
      await app.dispose();
      await reader.close();
    };
  }, 180_000);

  afterAll(async () => {
    await close?.();
    await admin?.end();
  });

  const send = (request: EdgeRequest, address = '10.0.0.1'): Promise<Response> =>
    app.fetch(new Request('http://bounded/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': address }, body: JSON.stringify(request) }));

  it('the abuse probe of the issue: a JSON in of 10,000 values answers, in 30 aliases of 2,500 it is refused before it runs', async () => {
    const [tenThousand] = heaviestLegalRequests();
    const answered = await memory.during(async () => classify(await send(tenThousand!)));
    expect(answered.value).toEqual<Outcome>({ kind: 'answered' });
    expect(answered.peak).toBeLessThanOrEqual(BOUND);
    const values = Array.from({ length: 2500 }, (_, i) => `nobody-${i}`);
    const thirty = {
      query: `query Q($f: WorkflowInstanceFilterInput) { ${Array.from({ length: 30 }, (_, i) => `a${i}: getWorkflowInstances(filter: $f, limit: 5) { id }`).join(' ')} }`,
      variables: { f: { input: { in: [{ key: 'customer.name', values }] } } },
    };
    const refused = await classify(await send(thirty));
    expect(refused).toMatchObject({ kind: 'refused', code: 'BAD_USER_INPUT' });
    expect((refused as { message: string }).message).toMatch(/^Query cost \d+ exceeds the budget of 20000 rows/);
  }, 60_000);

  it('property: every legal request at the edges answers, is refused up front or times out, with every backend within 256 MiB', async () => {
    // A session of the server's pool exists and /proc tells its memory (else the bound below would hold vacuously).
    await send({ query: '{ getWorkflowInstances(limit: 1) { id } }', variables: {} });
    expect(await memory.readable()).toBe(true);
    const seen: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(edgeRequest, async (request) => {
        const { value: outcome, peak } = await memory.during(async () => classify(await send(request)));
        seen[outcome.kind] = (seen[outcome.kind] ?? 0) + 1;
        expect(outcome.kind, `${JSON.stringify(outcome)}; logged: ${logged()}`).not.toBe('failed');
        expect(peak, `backend memory ${Math.round(peak / MiB)} MiB for ${request.query.slice(0, 200)}`).toBeLessThanOrEqual(BOUND);
      }),
      { numRuns: 150, endOnFailure: true },
    );
    process.stdout.write(`bounded-work postgresql: edge requests ${JSON.stringify(seen)}\n`);
    // The generator reaches both sides of the budget.
    expect(seen['answered'] ?? 0).toBeGreaterThan(0);
    expect(seen['refused'] ?? 0).toBeGreaterThan(0);
  }, 600_000);

  it('the heaviest legal requests from 40 addresses at once: the page query keeps answering, readiness stays UP, no backend above 256 MiB, none crashed', async () => {
    const heavy = heaviestLegalRequests();
    const page = (): Promise<Response> =>
      send(
        {
          query: 'query ConsoleRuns($limit: Int) { runs: getWorkflowInstances(limit: $limit, orderBy: {startDate: DESC}) { id name status startDate } counts: workflowInstanceStatusCounts { status count { value } } }',
          variables: { limit: 25 },
        },
        '192.168.0.1',
      );
    const unloaded = await pageLatencies(page, { count: 10 });
    const load = memory.during(() =>
      Promise.all(Array.from({ length: 40 }, (_, i) => send(heavy[i % heavy.length]!, `10.1.0.${i}`).then(classify))),
    );
    const loaded = await pageLatencies(page, { while: load, readiness: () => app.fetch(new Request('http://bounded/q/health/ready')) });
    const { value: outcomes, peak } = await load;
    for (const outcome of outcomes) expect(['answered', 'timed-out', 'busy']).toContain(outcome.kind);
    expect(outcomes.filter((o) => o.kind === 'answered').length).toBeGreaterThan(0);
    expect(loaded.failures).toEqual([]);
    expect(loaded.readinessDown).toBe(0);
    expect(loaded.latenciesMs.length).toBeGreaterThan(0);
    // Admitted at once (cheapest first) and read beside the heavy ones, never queued behind them.
    expect(Math.max(...loaded.latenciesMs)).toBeLessThanOrEqual(pageWaitBound(unloaded, loaded));
    expect(peak).toBeLessThanOrEqual(BOUND);
    expect((await admin.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    process.stdout.write(`bounded-work postgresql: page ms unloaded max ${Math.max(...unloaded.latenciesMs).toFixed(1)}, loaded max ${Math.max(...loaded.latenciesMs).toFixed(1)} (${loaded.latenciesMs.length} pages); peak backend ${(peak / MiB).toFixed(1)} MiB; outcomes ${JSON.stringify(countKinds(outcomes))}\n`);
  }, 300_000);
});

function countKinds(outcomes: readonly Outcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) out[o.kind] = (out[o.kind] ?? 0) + 1;
  return out;
}
