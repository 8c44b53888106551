// The console in real Chromium against the real server and PostgreSQL: list, filter, sort, page, back button,
// a run page with the timeline of a loop, a task's details, the GraphiQL link, freshness, keyboard use, and no
// request to anything but 127.0.0.1. Expected values come from /graphql itself (the console must show what the
// API answers). Screenshots of the main views go to .artifacts/console/ (git-ignored).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { buildConsole } from './support/build-console.js';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { startConsoleServer } from './support/console-server.js';
import type { ConsoleServer } from './support/console-server.js';

const ARTIFACTS = fileURLToPath(new URL('../../.artifacts/console/', import.meta.url));
const LOOP_RUN = '01KRDQEAPWDTERF1SDDX5A5SQV'; // order-fulfilment: pickItem runs three times in a loop
const FAULTED_RUN = '01KRDQDZBS8TBDWA72Q1575QHY'; // payment-capture: faulted, with a faulted task
const LOOP_POSITION = 'do/0/pickItems/do/0/pickItem';
const STATUSES = ['RUNNING', 'COMPLETED', 'FAULTED', 'CANCELLED', 'SUSPENDED'] as const;

const available = (await postgresReachable()) && (await chromiumAvailable());

/** Routes every request of a browser context: records it, lets 127.0.0.1 through, refuses anything else. */
async function guard(context: BrowserContext, requested: string[], operations: string[]): Promise<void> {
  await context.route('**/*', async (route) => {
    const request = route.request();
    const url = request.url();
    requested.push(url);
    if (request.method() === 'POST' && new URL(url).pathname === '/graphql') {
      const body = JSON.parse(request.postData() ?? '{}') as { query?: string };
      operations.push(/^\s*query\s+(\w+)/.exec(body.query ?? '')?.[1] ?? 'anonymous');
    }
    if (new URL(url).hostname === '127.0.0.1') await route.continue();
    else await route.abort('blockedbyclient');
  });
}

interface Row {
  id: string;
  name: string;
  status: string;
}

describe.skipIf(!available)('console in Chromium (PostgreSQL backend)', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const requested: string[] = [];
  const operations: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await buildConsole();
    server = await startConsoleServer();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1366, height: 900 }, colorScheme: 'light', timezoneId: 'UTC' });
    // Every request the pages make, whatever the origin: anything not on 127.0.0.1 is recorded and refused.
    await guard(context, requested, operations);
    context.on('weberror', (error) => problems.push(`page error: ${error.error().message}`));
    page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error on ${page.url()}: ${message.text()}`);
    });
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  }, 60_000);

  const rowsShown = async (): Promise<Row[]> => {
    await page.locator('[data-testid=runs] [aria-busy=true]').waitFor({ state: 'detached' }).catch(() => undefined);
    await page.locator('.table-wrap[aria-busy=false]').waitFor();
    return page.locator('[data-testid=runs] tbody tr[data-run-id]').evaluateAll((rows) =>
      rows.map((r) => ({ id: r.getAttribute('data-run-id') ?? '', name: r.children[2]?.textContent ?? '', status: r.children[1]?.textContent ?? '' })),
    );
  };
  const apiRows = async (args: string): Promise<Row[]> => (await server.graphql<{ r: Row[] }>(`{ r: getWorkflowInstances(${args}) { id name status } }`)).r;
  const waitForUrl = (pattern: RegExp): Promise<void> => page.waitForURL(pattern);
  // The page loads its data after navigation: wait for it generously (a busy machine), never by sleeping.
  const poll = <T>(read: () => T | Promise<T>, options: { timeout?: number } = {}) => expect.poll(read, { timeout: options.timeout ?? 30_000, interval: 100 });

  it('lists runs newest first with status badges, per-status counts, the total and freshness', async () => {
    await page.goto(`${server.baseUrl}/`);
    const all = await apiRows('limit: 1000');
    expect(all.length).toBeGreaterThan(105);
    const firstPage = await apiRows('limit: 25, orderBy: {startDate: DESC}');
    await poll(async () => (await rowsShown()).map((r) => r.id)).toEqual(firstPage.map((r) => r.id));
    expect((await rowsShown()).map((r) => r.status)).toEqual(firstPage.map((r) => r.status));
    await poll(() => page.getByTestId('page-info').textContent()).toBe(`1–25 of ${all.length} · page 1 of ${Math.ceil(all.length / 25)}`);
    for (const status of STATUSES) {
      const expected = all.filter((r) => r.status === status).length;
      await poll(() => page.locator(`[data-testid=status-counts] [data-status=${status}] .count-value`).textContent()).toBe(String(expected));
    }
    const newest = (await server.graphql<{ r: { lastUpdate: string }[] }>('{ r: getWorkflowInstances(limit: 1, orderBy: {lastUpdate: DESC}) { lastUpdate } }')).r[0]?.lastUpdate ?? '';
    await poll(() => page.getByTestId('freshness').locator('time').getAttribute('datetime')).toBe(newest);
    await page.screenshot({ path: `${ARTIFACTS}runs-list.png`, fullPage: true });
  });

  it('filters by status and name, keeps the view in the URL, and the back button restores the previous view', async () => {
    await page.locator('[data-testid=status-counts] [data-status=FAULTED]').click();
    await waitForUrl(/\?status=FAULTED$/);
    const faulted = await apiRows('filter: {status: FAULTED}, limit: 25');
    await poll(async () => (await rowsShown()).map((r) => r.id).sort()).toEqual(faulted.map((r) => r.id).sort());
    expect((await rowsShown()).every((r) => r.status === 'FAULTED')).toBe(true);

    await page.getByLabel('Workflow', { exact: true }).fill('payment-capture');
    await page.getByLabel('Workflow', { exact: true }).press('Enter');
    await waitForUrl(/status=FAULTED&name=payment-capture/);
    await poll(async () => (await rowsShown()).map((r) => r.id)).toEqual([FAULTED_RUN]);
    await poll(() => page.getByTestId('page-info').textContent()).toBe('1–1 of 1 · page 1 of 1');

    // A payload filter on the input (key=value, dot path).
    const withCustomer = await apiRows('filter: {input: {eq: [{key: "customer.name", value: "José Álvarez"}]}}, limit: 25');
    expect(withCustomer.length).toBeGreaterThan(0);
    await page.goto(`${server.baseUrl}/q/console?payload=${encodeURIComponent('customer.name=José Álvarez')}`);
    await poll(async () => (await rowsShown()).map((r) => r.id).sort()).toEqual(withCustomer.map((r) => r.id).sort());
    await expect(page.getByLabel('Input key=value').inputValue()).resolves.toBe('customer.name=José Álvarez');

    await page.goBack();
    await waitForUrl(/status=FAULTED&name=payment-capture/);
    await poll(async () => (await rowsShown()).map((r) => r.id)).toEqual([FAULTED_RUN]);
    await expect(page.getByLabel('Workflow', { exact: true }).inputValue()).resolves.toBe('payment-capture');
    await page.goBack();
    await waitForUrl(/\?status=FAULTED$/);
    await poll(async () => (await rowsShown()).length).toBe(faulted.length);
  });

  it('sorts by a column header (ascending, then descending) as the API sorts', async () => {
    await page.goto(`${server.baseUrl}/`);
    await rowsShown();
    await page.locator('button.sort[data-sort=name]').click();
    await waitForUrl(/sort=name\.asc/);
    const ascending = await apiRows('limit: 25, orderBy: {name: ASC}');
    await poll(async () => (await rowsShown()).map((r) => r.id)).toEqual(ascending.map((r) => r.id));
    expect(await page.locator('th[aria-sort=ascending]').textContent()).toContain('Workflow');
    await page.locator('button.sort[data-sort=name]').click();
    await waitForUrl(/sort=name\.desc/);
    const descending = await apiRows('limit: 25, orderBy: {name: DESC}');
    await poll(async () => (await rowsShown()).map((r) => r.id)).toEqual(descending.map((r) => r.id));
    // Slowest first, by the server's durationMs order.
    await page.locator('button.sort[data-sort=duration]').click();
    await waitForUrl(/sort=duration\.desc/);
    const slowest = await apiRows('limit: 25, orderBy: {duration: DESC}');
    await poll(async () => (await rowsShown()).map((r) => r.id)).toEqual(slowest.map((r) => r.id));
  });

  it('pages forward and back with the total', async () => {
    await page.goto(`${server.baseUrl}/?size=10`);
    await rowsShown();
    await page.getByRole('button', { name: 'Next →' }).click();
    await waitForUrl(/page=2/);
    const second = await apiRows('limit: 10, offset: 10, orderBy: {startDate: DESC}');
    await poll(async () => (await rowsShown()).map((r) => r.id)).toEqual(second.map((r) => r.id));
    const total = (await apiRows('limit: 1000')).length;
    const pages = Math.ceil(total / 10);
    await poll(() => page.getByTestId('page-info').textContent()).toBe(`11–20 of ${total} · page 2 of ${pages}`);
    await page.goto(`${server.baseUrl}/?size=10&page=${pages}`);
    await poll(() => page.getByTestId('page-info').textContent()).toBe(`${(pages - 1) * 10 + 1}–${total} of ${total} · page ${pages} of ${pages}`);
    expect(await page.getByRole('button', { name: 'Next →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Previous' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === String(pages - 1));
  });

  it('opens a run from the list: fields, payloads, and a timeline where the loop is three bars in one lane', async () => {
    await page.goto(`${server.baseUrl}/?q=${LOOP_RUN.slice(0, 12)}`);
    await poll(async () => (await rowsShown()).map((r) => r.id)).toEqual([LOOP_RUN]);
    await page.getByRole('link', { name: LOOP_RUN }).click();
    await waitForUrl(new RegExp(`run=${LOOP_RUN}`));
    const run = (
      await server.graphql<{ r: { name: string; taskExecutions: { id: string; taskPosition: string }[] } }>(
        `{ r: getWorkflowInstance(id: "${LOOP_RUN}") { name taskExecutions { id taskPosition } } }`,
      )
    ).r;
    await poll(() => page.locator('[data-testid=run-fields] dd').first().textContent()).toBe(run.name);
    const loopIds = run.taskExecutions.filter((t) => t.taskPosition === LOOP_POSITION).map((t) => t.id);
    expect(loopIds.length).toBe(3);
    const lane = page.locator(`.lane[data-position="${LOOP_POSITION}"]`);
    await poll(() => lane.locator('.bar').evaluateAll((bars) => bars.map((b) => b.getAttribute('data-task-id')))).toEqual(loopIds);
    // Repeated bars sit side by side on the time axis, left to right in start order.
    const lefts = await lane.locator('.bar').evaluateAll((bars) => bars.map((b) => b.getBoundingClientRect().left));
    expect([...lefts].sort((a, b) => a - b)).toEqual(lefts);
    expect(new Set(lefts).size).toBe(3);
    expect(await page.locator('.lane').count()).toBe(new Set(run.taskExecutions.map((t) => t.taskPosition)).size);
    expect(await page.locator('[data-testid=tasks] tbody tr').count()).toBe(run.taskExecutions.length);
    await expect(page.getByTestId('json-input').textContent()).resolves.toContain('"');

    // A bar is a button: clicking one shows that execution's input and output.
    await lane.locator('.bar').nth(1).click();
    await page.waitForURL((url) => url.searchParams.get('task') === loopIds[1]);
    await expect(page.getByTestId('task-details').locator('code').first().textContent()).resolves.toBe(loopIds[1]);
    await page.screenshot({ path: `${ARTIFACTS}run-timeline.png`, fullPage: true });
  });

  it('shows a faulted run: the error detail and the faulted task in red', async () => {
    await page.goto(`${server.baseUrl}/?run=${FAULTED_RUN}`);
    const run = (
      await server.graphql<{ r: { error: { title: string | null; detail: string | null }; taskExecutions: { id: string; status: string }[] } }>(
        `{ r: getWorkflowInstance(id: "${FAULTED_RUN}") { error { title detail } taskExecutions { id status } } }`,
      )
    ).r;
    await page.locator('.error-box').first().waitFor();
    // The detail is shown in full; a JSON detail is indented (the same value, readable).
    expect(run.error.detail).not.toBeNull();
    const shown = (await page.locator('.error-box .stack').first().textContent()) ?? '';
    expect(JSON.parse(shown)).toEqual(JSON.parse(run.error.detail as string));
    expect(shown).toContain('\n  "error": "psp_timeout"');
    if (run.error.title !== null) await expect(page.locator('.error-box h3').first().textContent()).resolves.toContain(run.error.title);
    const faultedTask = run.taskExecutions.find((t) => t.status === 'FAULTED');
    expect(faultedTask).toBeDefined();
    const bar = page.locator(`.bar[data-task-id="${faultedTask?.id}"]`);
    expect(await bar.getAttribute('class')).toContain('status-faulted');
    expect(await bar.evaluate((b) => getComputedStyle(b).backgroundColor)).toBe('rgb(198, 40, 40)');
    // Clicking it selects the execution, which raised the run's error: said there, the error shown once.
    await bar.click();
    await page.getByTestId('task-details').getByTestId('raised-run-error').waitFor();
    expect(await page.locator('.error-box').count()).toBe(1);
  });

  it('draws a running task as an open bar that reaches now (the end of the axis)', async () => {
    await page.goto(`${server.baseUrl}/?run=conformance-waiting`);
    const open = page.locator('.bar.open').first();
    await open.waitFor();
    const track = await open.evaluate((b) => {
      const t = (b.parentElement as HTMLElement).getBoundingClientRect();
      const r = b.getBoundingClientRect();
      return { barRight: r.right, trackRight: t.right };
    });
    expect(Math.abs(track.barRight - track.trackRight)).toBeLessThan(2);
    expect(await open.getAttribute('aria-label')).toContain('still running');
  });

  it('copies a payload with the copy button (pretty-printed JSON)', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await page.goto(`${server.baseUrl}/?run=${FAULTED_RUN}`);
    const input = (await server.graphql<{ r: { inputData: string } }>(`{ r: getWorkflowInstance(id: "${FAULTED_RUN}") { inputData } }`)).r.inputData;
    await page.getByRole('button', { name: 'Copy input' }).click();
    await poll(() => page.getByRole('button', { name: 'Copy input' }).textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(JSON.stringify(JSON.parse(input), null, 2));
  });

  it('auto-refreshes the list when asked (the period is in the URL)', async () => {
    await page.goto(`${server.baseUrl}/?refresh=5`);
    await rowsShown();
    const before = operations.filter((o) => o === 'ConsoleRuns').length;
    // No clock assertion: wait (up to a minute) for the next load the timer starts.
    await poll(() => operations.filter((o) => o === 'ConsoleRuns').length, { timeout: 60_000 }).toBeGreaterThan(before);
    expect(await page.getByLabel('Auto-refresh').inputValue()).toBe('5');
  }, 90_000);

  it('works from the keyboard: Tab reaches a timeline bar, Enter selects it', async () => {
    await page.goto(`${server.baseUrl}/?run=${LOOP_RUN}`);
    await page.locator('.bar').first().waitFor();
    let reached = false;
    for (let i = 0; i < 80 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.classList.contains('bar') === true);
    }
    expect(reached).toBe(true);
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-task-id'));
    await page.keyboard.press('Enter');
    await poll(() => page.getByTestId('task-details').locator('code').first().textContent()).toBe(id);
  });

  it('links the run to the same query in the GraphQL UI', async () => {
    await page.goto(`${server.baseUrl}/?run=${LOOP_RUN}`);
    const link = page.getByTestId('open-graphiql');
    const href = (await link.getAttribute('href')) ?? '';
    const query = new URL(href, server.baseUrl).searchParams.get('query') ?? '';
    expect(query).toContain(`getWorkflowInstance(id: "${LOOP_RUN}")`);
    // The linked query runs as it is and answers the run the page shows.
    const answer = await server.graphql<{ getWorkflowInstance: { id: string; taskExecutions: unknown[] } }>(query);
    expect(answer.getWorkflowInstance.id).toBe(LOOP_RUN);
    await link.click();
    await waitForUrl(/\/q\/graphql-ui\?query=/);
    await page.locator('.graphiql-container').first().waitFor({ timeout: 60_000 });
    await poll(() => page.locator('.graphiql-query-editor').innerText(), { timeout: 60_000 }).toContain(LOOP_RUN);
  }, 120_000);

  it('renders dark mode and a phone-width layout', async () => {
    const dark = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark', timezoneId: 'UTC' });
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, colorScheme: 'light', timezoneId: 'UTC' });
    try {
      for (const ctx of [dark, phone]) await guard(ctx, requested, operations);
      const d = await dark.newPage();
      await d.goto(`${server.baseUrl}/?run=${FAULTED_RUN}`);
      await d.locator('.bar').first().waitFor();
      expect(await d.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(18, 22, 29)');
      await d.screenshot({ path: `${ARTIFACTS}run-dark.png`, fullPage: true });
      await d.goto(`${server.baseUrl}/`);
      await d.locator('[data-testid=runs] tbody tr[data-run-id]').first().waitFor();
      await d.screenshot({ path: `${ARTIFACTS}runs-list-dark.png` });

      const p = await phone.newPage();
      await p.goto(`${server.baseUrl}/`);
      await p.locator('[data-testid=runs] tbody tr[data-run-id]').first().waitFor();
      // Nothing is wider than the phone (the runs are cards there).
      await p.screenshot({ path: `${ARTIFACTS}runs-list-phone.png`, fullPage: true });
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await p.goto(`${server.baseUrl}/?run=${LOOP_RUN}`);
      await p.locator('.bar').first().waitFor();
      await p.screenshot({ path: `${ARTIFACTS}run-phone.png`, fullPage: true });
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await dark.close();
      await phone.close();
    }
  }, 120_000);

  it('made no request to anything but 127.0.0.1, and the pages logged no error (a CSP violation would)', () => {
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(requested.some((url) => url.includes('/q/console/assets/'))).toBe(true);
    expect(requested.some((url) => url.endsWith('/graphql'))).toBe(true);
    expect(problems).toEqual([]);
    // The console asks for counts, durations and freshness in its own operations, with no fallback query.
    expect(operations).toContain('ConsoleRuns');
    expect(operations).toContain('ConsoleFreshness');
    expect(operations.filter((o) => o.endsWith('Fallback'))).toEqual([]);
  });
});
