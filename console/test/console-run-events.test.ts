// The run page's Events tab in real Chromium against the real server on each backend (PostgreSQL, OpenSearch): a
// run stuck RUNNING because its completion was rejected (timestamp "yesterday") shows that event marked rejected with
// the normalizer's reason, in the API's order; an event's data opens as JSON; a long history pages with "load more"
// and reaches the API's last event. Expected values come from the API itself. Screenshots (laptop and phone, light
// and dark) of the tab.
import { describe, expect, it } from 'vitest';
import { HISTORY_EVENTS } from '@workflow-index/testkit';
import { browserSuite } from './support/browser-suite.js';
import { consoleBackends } from './support/backends.js';
import { started, task } from './support/live-page.js';

const LAPTOP = { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' } as const;
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, timezoneId: 'UTC' } as const;
const STUCK = 'history-stuck';
const LONG = 'events-long';
const base = Date.parse('2026-06-02T10:00:00Z');
const at = (s: number): string => new Date(base + s * 1000).toISOString();
// 1 + 2 × 40 = 81 events: two pages of 50.
const LONG_EVENTS = [started(LONG, at(0)), ...Array.from({ length: 40 }, (_, i) => [task(LONG, 'started', `do/${i}/step`, at(i * 2 + 1)), task(LONG, 'completed', `do/${i}/step`, at(i * 2 + 2))]).flat()];

interface ApiEvent {
  type: string;
  accepted: boolean;
  rejection: string | null;
}

const backends = await consoleBackends();

describe.skipIf(backends.length === 0).each(backends.length === 0 ? ['postgresql' as const] : backends)('run events tab in Chromium (%s)', (backend) => {
  const suite = browserSuite({ backend, events: [...HISTORY_EVENTS, ...LONG_EVENTS] });
  const { opened } = suite;
  const open = suite.open;
  const eventsOf = async (id: string): Promise<ApiEvent[]> =>
    (await suite.server.graphql<{ r: { events: ApiEvent[] } }>(`{ r: getWorkflowInstance(id: "${id}") { events(limit: 1000) { type accepted rejection } } }`)).r.events;

  it('shows a stuck run\'s rejected completion, marked, with the reason in words, in the API\'s order', async () => {
    const expected = await eventsOf(STUCK);
    const rejected = expected.filter((e) => !e.accepted);
    expect(rejected.map((e) => e.rejection)).toContain('timestamp "yesterday" is not a valid time');
    const { page } = await open({ ...LAPTOP, colorScheme: 'light' });
    await page.goto(`${suite.server.baseUrl}/?run=${STUCK}`);
    await expect(page.locator('.run-head .badge').textContent()).resolves.toBe('RUNNING');
    await page.locator('.tabs a[data-tab=events]').click();
    await page.waitForURL((url) => url.searchParams.get('tab') === 'events');
    const items = page.locator('.events > li');
    await expect.poll(() => items.count()).toBe(expected.length);
    expect(await items.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-accepted') === 'true'))).toEqual(expected.map((e) => e.accepted));
    const reasons = await page.getByTestId('rejection').allTextContents();
    expect(reasons).toEqual(rejected.map((e) => `Rejected: ${e.rejection}.`));
    expect(await page.locator('.event.rejected .badge').allTextContents()).toEqual(rejected.map(() => 'REJECTED'));
    // The rejected completion's data, as stored.
    const completion = page.locator('.event.rejected', { hasText: 'workflow.completed' });
    await completion.locator('summary', { hasText: 'Event data' }).click();
    await expect(completion.getByTestId('json-event').textContent()).resolves.toContain('"yesterday"');
    await page.screenshot({ path: suite.artifact(`run-events-laptop-light`), fullPage: true });
    // The first rejected event is reachable from the keyboard: its data disclosure takes focus and opens with Enter.
    await page.locator('.event.rejected summary').first().focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('.event.rejected details').first().getAttribute('open')).not.toBeNull();
  }, 90_000);

  it('pages a long history with "load more" up to the API\'s last event', async () => {
    const expected = await eventsOf(LONG);
    expect(expected.length).toBe(81);
    const { page } = await open({ ...LAPTOP, colorScheme: 'dark' });
    await page.goto(`${suite.server.baseUrl}/?run=${LONG}&tab=events`);
    const items = page.locator('.events > li');
    await expect.poll(() => items.count()).toBe(50);
    const more = page.getByTestId('more-events');
    await expect(more.textContent()).resolves.toBe('Load more');
    await more.click();
    await expect.poll(() => items.count()).toBe(81);
    await expect.poll(() => more.textContent()).toBe('Check for newer events');
    const types = await page.locator('.events .event-type').evaluateAll((spans) => spans.map((s) => s.getAttribute('title')));
    expect(types).toEqual(expected.map((e) => e.type));
    await page.screenshot({ path: suite.artifact(`run-events-laptop-dark`) });
  }, 90_000);

  it('fits a phone (light and dark)', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await open({ ...PHONE, colorScheme });
      await page.goto(`${suite.server.baseUrl}/?run=${STUCK}&tab=events`);
      await page.locator('.event.rejected').first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: suite.artifact(`run-events-phone-${colorScheme}`), fullPage: true });
    }
  }, 90_000);

  it('made no request beyond 127.0.0.1 and logged no error', () => {
    expect(opened.flatMap((g) => g.requested).filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(opened.flatMap((g) => g.problems)).toEqual([]);
  });
});
