// Live pages in real Chromium against the real server on each backend with its change feed (on PostgreSQL the
// trigger's NOTIFY and the server's LISTEN session, on OpenSearch the normalizer's stamps polled): events written while
// a page is open change it without a reload and without a polling query while the stream is up; a server that refuses
// subscriptions (GRAPHQL_MAX_SUBSCRIPTIONS=0, 429) leaves the page polling at its auto-refresh period, quietly, as
// does a server without live updates (no change feed: what the embedded PGlite database gives).
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from './support/build-console.js';
import { launchChromium } from './support/chromium.js';
import { ARTIFACTS, artifactPath, consoleBackends } from './support/backends.js';
import { startConsoleServer } from './support/console-server.js';
import type { ConsoleServer } from './support/console-server.js';
import { guardedPage } from './support/guarded-page.js';
import type { GuardedPage } from './support/guarded-page.js';
import { completed, logGraphql, nowIso, settleGraphqlLog, started, task } from './support/live-page.js';

const LAPTOP = { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', colorScheme: 'light' } as const;
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, timezoneId: 'UTC' } as const;

const backends = await consoleBackends();

describe.skipIf(backends.length === 0).each(backends.length === 0 ? ['postgresql' as const] : backends)('live pages in Chromium (%s)', (backend) => {
  let server: ConsoleServer;
  let refusing: ConsoleServer;
  // A server without a change feed is a PostgreSQL one (the embedded database's case): checked in that run only.
  let noFeed: ConsoleServer | undefined;
  let browser: Browser;
  const opened: GuardedPage[] = [];
  const open = async (options: BrowserContextOptions = LAPTOP): Promise<GuardedPage> => {
    const g = await guardedPage(browser, options);
    opened.push(g);
    return g;
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await buildConsole();
    [server, refusing, noFeed] = await Promise.all([
      startConsoleServer({ backend, live: true }),
      startConsoleServer({ backend, live: true, env: { GRAPHQL_MAX_SUBSCRIPTIONS: '0' } }),
      backend === 'postgresql' ? startConsoleServer() : undefined,
    ]);
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    for (const g of opened) await g.context.close();
    await browser?.close();
    await Promise.all([server?.close(), refusing?.close(), noFeed?.close()]);
  }, 60_000);

  it('updates the run page (status, timeline, task table) as events arrive, without reload or polling', async () => {
    await server.load([started('live-run-page', nowIso(-5000))]);
    const { page } = await open();
    await page.goto(`${server.baseUrl}/?run=live-run-page&refresh=5`);
    await expect(page.locator('.run-head .badge').textContent()).resolves.toBe('RUNNING');
    await page.locator('[data-testid=live][data-state=live]').waitFor();
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    const log = logGraphql(page);

    await server.load([task('live-run-page', 'started', 'do/0/checkStock', nowIso(-4000))]);
    await page.locator('[data-testid=tasks] td a', { hasText: 'checkStock' }).waitFor();
    await page.locator('.bar').first().waitFor();
    await server.load([task('live-run-page', 'completed', 'do/0/checkStock', nowIso(-3000)), completed('live-run-page', nowIso(-2000))]);
    await expect.poll(() => page.locator('.run-head .badge').textContent(), { timeout: 15_000 }).toBe('COMPLETED');
    await expect.poll(() => page.locator('[data-testid=tasks] .badge').textContent()).toBe('COMPLETED');

    // Auto-refresh is 5 s, yet the page asked nothing: the stream replaced the polling.
    await page.waitForTimeout(6000);
    expect(log.queries).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  }, 90_000);

  it("appends the run's new events to an open Events tab as they arrive", async () => {
    await server.load([started('live-events-tab', nowIso(-5000))]);
    const { page } = await open();
    // From before the page loads: a query the page sends before the next event is written (after the push of the
    // state on subscribing) must be over before the log starts counting, or its answer could carry that event.
    const log = logGraphql(page);
    await page.goto(`${server.baseUrl}/?run=live-events-tab&tab=events`);
    await page.locator('[data-testid=live][data-state=live]').waitFor();
    await expect.poll(() => page.locator('.events > li').count()).toBe(1);
    await settleGraphqlLog(log);
    await server.load([task('live-events-tab', 'started', 'do/0/pack', nowIso(-4000))]);
    await expect.poll(() => page.locator('.events .event-type').allTextContents(), { timeout: 15_000 }).toEqual(['workflow.started.v1', 'task.started.v1']);
    // Asked because of the push, not by a timer: only the events' page after the last one shown.
    expect(new Set(log.queries)).toEqual(new Set(['ConsoleRunEvents']));
  }, 90_000);

  it('answers a push that comes while a page of events is loading: the page, then the newer events', async () => {
    const id = 'live-events-held';
    await server.load([started(id, nowIso(-5000))]);
    const { page } = await open();
    await page.goto(`${server.baseUrl}/?run=${id}&tab=events`);
    await page.locator('[data-testid=live][data-state=live]').waitFor();
    await expect.poll(() => page.locator('.events > li').count()).toBe(1);
    // The next page of events is answered as the server had it then, but held back until a later push has arrived.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let taken = false;
    let fetched = false;
    await page.route('**/graphql', async (route) => {
      if (taken || !(route.request().postData() ?? '').includes('ConsoleRunEvents')) return route.continue();
      taken = true;
      const response = await route.fetch();
      fetched = true;
      await released;
      await route.fulfill({ response });
    });
    await server.load([task(id, 'started', 'do/0/pack', nowIso(-4000))]);
    await expect.poll(() => fetched).toBe(true);
    await server.load([task(id, 'completed', 'do/0/pack', nowIso(-3000)), completed(id, nowIso(-2000))]);
    await expect.poll(() => page.locator('.run-head .badge').textContent()).toBe('COMPLETED');
    release();
    await expect.poll(() => page.locator('.events .event-type').allTextContents()).toEqual(['workflow.started.v1', 'task.started.v1', 'task.completed.v1', 'workflow.completed.v1']);
  }, 90_000);

  it('updates rows of the runs list in place and offers the runs started since as "N new runs — show"', async () => {
    const { page } = await open();
    await page.goto(`${server.baseUrl}/?refresh=5`);
    await page.locator('[data-testid=runs] tbody tr').first().waitFor();
    await page.locator('[data-testid=live][data-state=live]').waitFor();
    const log = logGraphql(page);

    await server.load([started('live-list-new', nowIso())]);
    const button = page.getByTestId('new-runs').getByRole('button');
    await expect.poll(() => button.textContent(), { timeout: 15_000 }).toBe('1 new run — show');
    await page.screenshot({ path: artifactPath('live-runs-list-new-runs', backend) });
    expect(await page.locator('tr[data-run-id=live-list-new]').count()).toBe(0);
    expect(log.queries).toEqual([]);

    await button.click();
    await page.locator('tr[data-run-id=live-list-new]').waitFor();
    expect(log.queries).toEqual(['ConsoleRuns']);
    await expect(page.locator('tr[data-run-id=live-list-new] .badge').textContent()).resolves.toBe('RUNNING');

    await server.load([completed('live-list-new', nowIso())]);
    await expect.poll(() => page.locator('tr[data-run-id=live-list-new] .badge').textContent(), { timeout: 15_000 }).toBe('COMPLETED');
    await page.waitForTimeout(6000);
    expect(log.queries).toEqual(['ConsoleRuns']);
  }, 90_000);

  const fallbacks: [string, () => ConsoleServer][] = [['refuses the stream (TOO_MANY_SUBSCRIPTIONS, 429)', () => refusing]];
  if (backend === 'postgresql') fallbacks.push(['has no live updates (SERVICE_UNAVAILABLE, as on the embedded database)', () => noFeed!]);
  for (const [why, serverOf] of fallbacks) {
    it(`falls back to polling at the auto-refresh period when the server ${why}, and shows it`, async () => {
      const target = serverOf();
      const { page } = await open();
      await page.goto(`${target.baseUrl}/?refresh=5`);
      await page.locator('[data-testid=runs] tbody tr').first().waitFor();
      const indicator = page.locator('[data-testid=live][data-state=down]');
      await expect.poll(() => indicator.textContent(), { timeout: 15_000 }).toContain('Polling every 5 s');
      const log = logGraphql(page);
      const id = `live-fallback-${target === refusing ? 'refused' : 'no-feed'}`;
      await target.load([started(id, nowIso())]);
      await page.locator(`tr[data-run-id=${id}]`).waitFor({ timeout: 20_000 });
      await expect.poll(() => log.queries.filter((q) => q === 'ConsoleRuns').length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      // The stream is retried with back-off, not given up.
      await expect.poll(() => log.streams, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    }, 90_000);
  }

  it('shows the live indicator at laptop and phone width, light and dark, and fits a phone', async () => {
    for (const [device, options] of [['laptop', LAPTOP], ['phone', PHONE]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { page } = await open({ ...options, colorScheme });
        await page.goto(`${server.baseUrl}/`);
        await page.locator('[data-testid=live][data-state=live]').waitFor();
        await page.locator('[data-testid=runs] tbody tr').first().waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(options.viewport.width);
        await page.screenshot({ path: artifactPath(`live-runs-list-${device}-${colorScheme}`, backend) });
        await page.goto(`${server.baseUrl}/?run=live-run-page`);
        await page.locator('[data-testid=live][data-state=live]').waitFor();
        await page.locator('.bar').first().waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(options.viewport.width);
        await page.screenshot({ path: artifactPath(`live-run-${device}-${colorScheme}`, backend) });
      }
    }
  }, 120_000);

  it('made no request beyond 127.0.0.1 and logged no error but the refused streams', () => {
    expect(opened.flatMap((g) => g.requested).filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(opened.flatMap((g) => g.problems).filter((p) => !/status of 429/.test(p))).toEqual([]);
  });
});
