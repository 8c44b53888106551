// A view whose query timed out on the server (QUERY_TIMEOUT) says so and is not reloaded by auto-refresh: the same
// query would time out again, at the same cost. Real Chromium, the real server and PostgreSQL; the slowness is real
// too: a row-level security policy makes the server's login sleep on every row of one workflow, so its list statement
// runs past statement_timeout in the database.
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_EVENTS } from '@workflow-index/testkit';
import { createApp } from '@workflow-index/core';
import { loadCoreConfig } from '@workflow-index/core';
import { startHttpServer, type RunningServer } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
import { createPool } from '@workflow-index/postgresql';
import { createPostgresqlReader } from '@workflow-index/postgresql';
import { loadEvents } from '@workflow-index/postgresql/testing';
import { createTestDatabase, ensureLoginRole, postgresReachable, type TestDatabase } from '@workflow-index/postgresql/testing';
import { buildConsole } from './support/build-console.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';

const available = (await postgresReachable()) && (await chromiumAvailable());
const SLOW_WORKFLOW = 'payment-capture';

describe.skipIf(!available)('console: a query that timed out (Chromium, PostgreSQL)', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let dispose: () => Promise<void>;
  let browser: Browser;
  let page: Page;
  const operations: string[] = [];
  const login = `wi_console_slow_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    await buildConsole();
    db = await createTestDatabase({ prefix: 'wi_console_timeout' });
    await loadEvents(db.pool, CONFORMANCE_EVENTS, { batchSizes: [100] });
    await ensureLoginRole(login, 'workflow_index_reader');
    await db.pool.query('ALTER TABLE workflow_index.workflow_instances ENABLE ROW LEVEL SECURITY');
    await db.pool.query(
      `CREATE POLICY slow_reads ON workflow_index.workflow_instances FOR SELECT TO workflow_index_reader
       USING (name IS DISTINCT FROM '${SLOW_WORKFLOW}' OR (SELECT true FROM pg_sleep(0.5)))`,
    );
    const reader = createPostgresqlReader({ pool: createPool({ connection: { connectionString: db.urlAs(login, 'test-password'), max: 4 }, queryTimeoutMs: 300, connectTimeoutMs: 10_000 }) });
    const config = loadCoreConfig({ NODE_ENV: 'production', HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0', HTTP_SHUTDOWN_TIMEOUT_MS: '2000' });
    const logger = createLogger({ log: { level: 'error', format: 'json' } });
    const app = createApp({ config, reader, logger, backend: 'postgresql' });
    server = await startHttpServer(app, config, logger);
    dispose = async () => {
      await app.dispose();
      await reader.close();
    };
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, timezoneId: 'UTC' });
    await context.route('**/*', async (route) => {
      const request = route.request();
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') {
        operations.push(/^\s*query\s+(\w+)/.exec((JSON.parse(request.postData() ?? '{}') as { query?: string }).query ?? '')?.[1] ?? 'anonymous');
      }
      if (new URL(request.url()).hostname === '127.0.0.1') await route.continue();
      else await route.abort('blockedbyclient');
    });
    page = await context.newPage();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await dispose?.();
    await db?.drop();
  });

  it('shows why, pauses auto-refresh for that view, and loads again when the view changes', async () => {
    const count = (name: string) => operations.filter((o) => o === name).length;
    // Exact names: the policy then runs on that workflow's rows only (a prefix match is not leakproof, so PostgreSQL
    // would check the sleeping policy on every row first, and every view would time out).
    await page.goto(`http://127.0.0.1:${server.httpPort}/?name=${SLOW_WORKFLOW}&match=exact&refresh=5`);
    await page.getByText('Auto-refresh is paused for this view.').waitFor({ timeout: 60_000 });
    expect(await page.getByText('ran longer than the backend allows (DATABASE_QUERY_TIMEOUT_MS: 300 ms)').count()).toBeGreaterThan(0);
    const runs = count('ConsoleRuns');
    // The ticker goes on (the freshness line reloads with it): two more ticks, and the runs query was not sent again.
    const freshness = count('ConsoleFreshness');
    await expect.poll(() => count('ConsoleFreshness'), { timeout: 60_000 }).toBeGreaterThanOrEqual(freshness + 2);
    expect(count('ConsoleRuns')).toBe(runs);
    // Another view loads (and answers).
    await page.goto(`http://127.0.0.1:${server.httpPort}/?name=order-fulfilment&match=exact&refresh=5`);
    await expect.poll(() => count('ConsoleRuns'), { timeout: 60_000 }).toBeGreaterThan(runs);
    await page.locator('tbody tr').first().waitFor({ timeout: 60_000 });
  }, 180_000);
});
