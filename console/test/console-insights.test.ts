// The insights page in real Chromium against the real server on each backend (PostgreSQL, OpenSearch), with runs
// started in the last hour (completed, faulted with one error and one failing task, running): every number on the
// page is the API's answer for the range the page asked (read back from the chart), and every drill-down opens the
// runs list whose total is the count the item showed. The chart is uPlot's canvas under a layer of links: each link
// lies over a bar painted in its status's colour (light and dark, laptop and phone), Tab reaches it and Enter opens
// its runs, and the page's CSP (no inline style) reports no violation. Screenshots at 1280×800 and phone width.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { statsRunEvents } from '@workflow-index/testkit';
import type { StatsRunSpec } from '@workflow-index/testkit';
import { formatDuration } from '../src/format.ts';
import { browserSuite } from './support/browser-suite.js';
import { consoleBackends } from './support/backends.js';
import { rgbaOf, rowBarPaint, sameColour, segmentPaint } from './support/chart-paint.js';
import type { guardedPage } from './support/guarded-page.js';

const LAPTOP = { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' } as const;
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, timezoneId: 'UTC' } as const;
const ERROR = { type: 'https://errors.acme.example/timeout', title: 'Payment gateway timed out', status: 504 };
const FAILING = 'do/1/callGateway';

const DAY_MS = 86_400_000;
/** Now, or just before midnight UTC when that was under 25 minutes ago: the runs (5 to 23 minutes before it) then
 * fall in one UTC day, so each workflow has one duration row whenever the suite runs, and all within the last hour. */
const ANCHOR = ((now: number): number => (now % DAY_MS < 25 * 60_000 ? now - (now % DAY_MS) - 1000 : now))(Date.now());
const micros = (msAgo: number): string => new Date(ANCHOR - msAgo).toISOString().replace('Z', '000Z');
const RUNS: StatsRunSpec[] = [
  ...[1, 2, 4, 8].map((s, i): StatsRunSpec => ({ id: `ins-ok-${i}`, name: 'insights-orders', status: 'COMPLETED', start: micros(20 * 60_000 + i * 60_000), durationMicros: s * 1_000_000, tasks: [{ position: 'do/0/check', faulted: false }] })),
  ...[0, 1, 2].map((i): StatsRunSpec => ({ id: `ins-fault-${i}`, name: 'insights-payments', status: 'FAULTED', start: micros(10 * 60_000 + i * 60_000), durationMicros: 3_000_000, error: ERROR, tasks: [{ position: 'do/0/prepare', faulted: false }, { position: FAILING, faulted: true }] })),
  { id: 'ins-running', name: 'insights-orders', status: 'RUNNING', start: micros(5 * 60_000) },
];

type Range = { from: string; to: string };

const backends = await consoleBackends();

describe.skipIf(backends.length === 0).each(backends.length === 0 ? ['postgresql' as const] : backends)('insights page in Chromium (%s)', (backend) => {
  const suite = browserSuite({ backend, events: statsRunEvents(RUNS) });
  const { opened } = suite;
  const open = suite.open;
  const rangeOf = async (page: Page): Promise<Range> => {
    const chart = page.getByTestId('status-chart');
    await chart.waitFor();
    return { from: (await chart.getAttribute('data-from')) ?? '', to: (await chart.getAttribute('data-to')) ?? '' };
  };
  const last = (range: Range): string => new Date(Date.parse(range.to) - 1).toISOString();
  /** Each segment link lies on the canvas over a bar painted in its status's colour (the stylesheet's, this scheme's). */
  const expectLinksOverBars = async (page: Page): Promise<void> => {
    const paint = await segmentPaint(page);
    expect(paint.length).toBeGreaterThan(0);
    expect(paint.filter((p) => !p.inside || p.width < 1 || p.height < 1 || !sameColour(p.pixel, rgbaOf(p.colour)))).toEqual([]);
  };
  const count = async (filter: Record<string, unknown>): Promise<number> =>
    (await suite.server.graphql<{ c: { value: number } }>('query C($f: WorkflowInstanceFilterInput) { c: countWorkflowInstances(filter: $f) { value } }', { f: filter })).c.value;
  const listTotal = async (page: Page): Promise<number> => {
    await page.locator('[data-testid=runs] tbody tr').first().waitFor();
    await expect.poll(() => page.getByTestId('page-info').textContent()).toMatch(/ of \d+/);
    return Number(/ of (\d+)/.exec((await page.getByTestId('page-info').textContent()) ?? '')?.[1]);
  };
  /** Every `securitypolicyviolation` event any page of the suite saw (besides the console error Chromium logs). */
  const violations: string[] = [];
  const openInsights = async (options: Parameters<typeof guardedPage>[1], search = '?view=insights'): Promise<Page> => {
    const { page } = await open(options);
    await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
    await page.addInitScript(() => {
      const report = (window as unknown as { reportViolation: (text: string) => void }).reportViolation;
      document.addEventListener('securitypolicyviolation', (e) => report(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
    });
    await page.goto(`${suite.server.baseUrl}/${search}`);
    await page.getByTestId('top-errors').waitFor();
    await page.locator('[data-testid=status-chart] a.segment').first().waitFor();
    return page;
  };

  it('draws the API\'s runs per hour and status, and a bar opens the runs of that status and hour', async () => {
    const page = await openInsights({ ...LAPTOP, colorScheme: 'light' });
    const range = await rangeOf(page);
    expect(await page.getByTestId('status-chart').getAttribute('data-buckets')).toBe('24');
    const stats = (await suite.server.graphql<{ s: { start: string; statusCounts: { status: string; count: number }[] }[] }>(
      `query S($from: String!, $to: String!) { s: workflowStats(interval: HOUR, from: $from, to: $to) { start statusCounts { status count } } }`, range)).s;
    const expected = stats.flatMap((b) => b.statusCounts.filter((c) => c.count > 0).map((c) => `${new Date(b.start).toISOString()} ${c.status} ${c.count}`));
    const segments = await page.locator('[data-testid=status-chart] a').evaluateAll((links) => links.map((a) => `${a.getAttribute('data-start')} ${a.getAttribute('data-status')} ${/: (\d+) /.exec(a.getAttribute('aria-label') ?? '')?.[1]}`));
    expect(segments.sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(0);
    // uPlot drew it: its canvas, every link over a bar of its status's light colour.
    expect(await page.locator('[data-testid=status-chart] .uplot canvas').count()).toBe(1);
    await expectLinksOverBars(page);
    expect((await segmentPaint(page)).find((p) => p.status === 'FAULTED')?.colour).toBe('#c62828');
    await page.screenshot({ path: suite.artifact(`insights-laptop-light`), fullPage: true });

    // Keyboard: Tab from the range select walks the segments; the FAULTED one takes focus and Enter opens its runs.
    await page.locator('select[name=span]').focus();
    const focused = (): Promise<string | null> => page.evaluate(() => document.activeElement?.getAttribute('data-status') ?? null);
    for (let tabs = 0; tabs < 20 && (await focused()) !== 'FAULTED'; tabs += 1) await page.keyboard.press('Tab');
    expect(await focused()).toBe('FAULTED');
    await page.getByTestId('status-chart').screenshot({ path: suite.artifact('insights-segment-focused') });
    const start = (await page.evaluate(() => document.activeElement?.getAttribute('data-start'))) ?? '';
    // Named by its window (UTC here) and the API's count.
    const hour = (ms: number): string => new Date(ms).toISOString().slice(11, 16);
    const faultedCount = expected.find((e) => e.startsWith(`${start} FAULTED `))?.split(' ')[2];
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(`${start.slice(0, 10)} ${hour(Date.parse(start))}–${hour(Date.parse(start) + 3_600_000)}: ${faultedCount} faulted`);
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.searchParams.get('status') === 'FAULTED');
    const from = new Date(Math.max(Date.parse(start), Date.parse(range.from))).toISOString();
    const to = new Date(Math.min(Date.parse(start) + 3_600_000, Date.parse(range.to)) - 1).toISOString();
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toMatchObject({ status: 'FAULTED', range: 'custom', from, to });
    const total = await count({ status: 'FAULTED', startDate: { gte: from, lte: to } });
    expect(await listTotal(page)).toBe(total);
    expect(total).toBeGreaterThan(0);
  }, 90_000);

  it('lists the API\'s top errors and failing tasks; each opens exactly the runs it counts', async () => {
    const page = await openInsights({ ...LAPTOP, colorScheme: 'dark' });
    const range = await rangeOf(page);
    const window = { gte: range.from, lte: last(range) };
    const api = await suite.server.graphql<{ e: { type: string; title: string; count: number }[]; t: { taskPosition: string; workflowName: string; count: number }[] }>(
      `query T($r: WorkflowInstanceFilterInput, $t: TaskExecutionFilterInput) { e: topErrors(filter: $r, limit: 10) { type title count } t: topFailingTasks(filter: $t, limit: 10) { taskPosition workflowName count } }`,
      { r: { startDate: window }, t: { startDate: window } },
    );
    expect(api.e[0]).toMatchObject({ type: ERROR.type, title: ERROR.title, count: 3 });
    expect(await page.locator('[data-testid=top-errors] tbody tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('a')?.textContent, r.querySelector('.error-type')?.textContent, r.children[2]?.textContent]))).toEqual(api.e.map((e) => [e.title, e.type, String(e.count)]));
    expect(await page.locator('[data-testid=top-tasks] tbody tr td:last-child').allTextContents()).toEqual(api.t.map((t) => String(t.count)));
    // Dark: the bars are painted in the dark scheme's status colours.
    await expectLinksOverBars(page);
    expect((await segmentPaint(page)).find((p) => p.status === 'FAULTED')?.colour).toBe('#ff6b6b');
    await page.screenshot({ path: suite.artifact(`insights-laptop-dark`), fullPage: true });

    await page.locator('[data-testid=top-errors] tbody tr a').first().click();
    await page.waitForURL((url) => url.searchParams.get('errorTitle') === ERROR.title);
    await expect(page.getByTestId('drill-conditions').textContent()).resolves.toContain(ERROR.type);
    expect(await listTotal(page)).toBe(api.e[0]?.count);

    await page.goBack();
    const task = api.t.find((t) => t.taskPosition === FAILING);
    await page.locator('[data-testid=top-tasks] tbody tr a', { hasText: FAILING }).click();
    await page.waitForURL((url) => url.searchParams.get('failedTask') === FAILING);
    const runs = await count({ name: { eq: task?.workflowName }, taskExecutions: { taskPosition: { eq: FAILING }, status: { eq: 'FAULTED' } }, startDate: window });
    expect(await listTotal(page)).toBe(runs);
    expect(runs).toBe(task?.count); // one faulted execution per run here
    // Removing the drill-down condition widens the list again.
    await page.getByTestId('drill-conditions').getByRole('button').click();
    await expect.poll(() => page.url()).not.toContain('failedTask');
  }, 90_000);

  it('shows the API\'s duration percentiles per workflow and day; a row opens that workflow\'s runs by duration', async () => {
    const page = await openInsights({ ...LAPTOP, colorScheme: 'light' });
    const range = await rangeOf(page);
    const api = (await suite.server.graphql<{ s: { start: string; name: string; durationMs: { p50: number; p90: number; p99: number; count: number } | null }[] }>(
      `query D($from: String!, $to: String!) { s: workflowStats(interval: DAY, from: $from, to: $to, groupBy: ["name"]) { start name durationMs { p50 p90 p99 count } } }`, range)).s.filter((b) => (b.durationMs?.count ?? 0) > 0);
    const rows = await page.locator('[data-testid=durations] tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [tr.getAttribute('data-name'), tr.getAttribute('data-start'), ...['p50', 'p90', 'p99'].map((p) => tr.querySelector(`[data-p=${p}]`)?.textContent)]));
    expect(rows).toEqual(api.map((b) => [b.name, b.start, formatDuration(b.durationMs?.p50 ?? null), formatDuration(b.durationMs?.p90 ?? null), formatDuration(b.durationMs?.p99 ?? null)]));
    const orders = api.find((b) => b.name === 'insights-orders');
    expect(orders?.durationMs).toMatchObject({ p50: 2000, p90: 8000, p99: 8000, count: 4 });
    // uPlot draws the same rows: each row's link over its p99 bar (p99's colour at its edge, p50's at its start), the
    // bars' lengths in proportion to the p99s (8 s and 3 s).
    const bars = await rowBarPaint(page);
    expect(bars.map((b) => b.name)).toEqual(api.map((b) => b.name));
    expect(bars.filter((b) => !sameColour(b.edge, rgbaOf(b.p99)) || !sameColour(b.start, rgbaOf(b.p50)))).toEqual([]);
    const width = (name: string): number => bars.find((b) => b.name === name)?.width ?? 0;
    expect(width('insights-orders') / width('insights-payments')).toBeCloseTo(8 / 3, 1);
    await page.locator('[data-testid=duration-chart] a[data-name=insights-payments]').click();
    await page.waitForURL((url) => url.searchParams.get('name') === 'insights-payments');
    await page.goBack();
    await page.locator('[data-testid=durations] tr[data-name=insights-orders] a').first().click();
    await page.waitForURL((url) => url.searchParams.get('name') === 'insights-orders');
    expect(new URL(page.url()).searchParams.get('sort')).toBe('duration.desc');
    await page.locator('[data-testid=runs] tbody tr').first().waitFor();
    await expect(page.locator('[data-testid=runs] tbody tr').first().getAttribute('data-run-id')).resolves.toBe('ins-ok-3');
  }, 90_000);

  it('changes the range: the last hour per minute', async () => {
    const page = await openInsights({ ...LAPTOP, colorScheme: 'light' });
    await page.locator('select[name=span]').selectOption('1h');
    await page.waitForURL((url) => url.searchParams.get('span') === '1h');
    await expect.poll(() => page.getByTestId('status-chart').getAttribute('data-buckets')).toBe('60');
    expect(await page.getByTestId('status-chart').getAttribute('data-interval')).toBe('MINUTE');
  }, 60_000);

  it('fits a phone (light and dark)', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await openInsights({ ...PHONE, colorScheme });
      await page.screenshot({ path: suite.artifact(`insights-phone-${colorScheme}`), fullPage: true });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await expectLinksOverBars(page);
    }
  }, 60_000);

  it('redraws in the dark colours when the scheme changes while the page is open', async () => {
    const page = await openInsights({ ...LAPTOP, colorScheme: 'light' });
    const faultedPixel = async (): Promise<boolean> => {
      const faulted = (await segmentPaint(page)).find((p) => p.status === 'FAULTED');
      return faulted !== undefined && sameColour(faulted.pixel, rgbaOf('#ff6b6b'));
    };
    expect(await faultedPixel()).toBe(false);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(faultedPixel).toBe(true);
    await expectLinksOverBars(page);
  }, 60_000);

  it('loads uPlot with the first chart, not with the runs list', async () => {
    const { page, requested } = await open({ ...LAPTOP, colorScheme: 'light' });
    await page.goto(`${suite.server.baseUrl}/`);
    await page.locator('[data-testid=runs] tbody tr').first().waitFor();
    const uplot = (): string[] => requested.filter((url) => /\/assets\/uPlot[^/]*\.js$/.test(new URL(url).pathname));
    expect(uplot()).toEqual([]);
    await page.getByRole('link', { name: 'Insights' }).click();
    await page.locator('[data-testid=status-chart] a.segment').first().waitFor();
    expect(uplot()).toHaveLength(1);
  }, 60_000);

  it('would notice a CSP violation: an inline style is refused, reported and logged as an error', async () => {
    const page = await openInsights({ ...LAPTOP, colorScheme: 'light' });
    const guarded = opened.at(-1)!;
    const before = violations.length;
    await page.evaluate(() => document.body.setAttribute('style', 'color: red'));
    await expect.poll(() => violations.length).toBe(before + 1);
    expect(violations.at(-1)).toMatch(/^style-src-attr /);
    await expect.poll(() => guarded.problems.filter((p) => p.includes('Content Security Policy')).length).toBe(1);
    // Seen: taken back, so the check that follows still proves the chart itself caused none.
    violations.splice(before);
    const logged = guarded.problems.findIndex((p) => p.includes('Content Security Policy'));
    guarded.problems.splice(logged, 1);
  }, 60_000);

  it('made no request beyond 127.0.0.1, broke no CSP rule and logged no error', () => {
    expect(opened.flatMap((g) => g.requested).filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(violations).toEqual([]);
    expect(opened.flatMap((g) => g.problems)).toEqual([]);
  });
});
