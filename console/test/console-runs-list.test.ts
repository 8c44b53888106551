// The runs list for people who do not know the exact names, on phones, and outside UTC (real Chromium, the real
// server, PostgreSQL with the conformance events): cards instead of a wide table on a phone; name / namespace /
// version by prefix, anywhere or exactly, with suggestions from the newest runs; times in UTC or the browser's zone
// (kept across visits), relative where it helps, the exact instant on hover. Expected values come from /graphql.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { chromiumAvailable } from './support/chromium.js';
import { ARTIFACTS, browserSuite } from './support/browser-suite.js';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, timezoneId: 'UTC' } as const;
// A zone without summer time: the expected offset is the same on every date.
const KOLKATA = { viewport: { width: 1280, height: 800 }, timezoneId: 'Asia/Kolkata', colorScheme: 'light' } as const;

/** `2026-05-12 09:14:03.512`: an instant as the console's exact (title) text writes it in UTC. */
const exact = (iso: string): string => new Date(iso).toISOString().slice(0, 23).replace('T', ' ');

const available = (await postgresReachable()) && (await chromiumAvailable());

interface Row {
  id: string;
  name: string;
  namespace: string | null;
  version: string | null;
  startDate: string;
  lastUpdate: string;
}

describe.skipIf(!available)('runs list in Chromium: phone cards, partial matching, time zones', () => {
  const suite = browserSuite();
  const { opened } = suite;
  const open = suite.open;
  const apiRows = async (args: string): Promise<Row[]> => (await suite.server.graphql<{ r: Row[] }>(`{ r: getWorkflowInstances(${args}) { id name namespace version startDate lastUpdate } }`)).r;
  const shownIds = async (page: Page): Promise<string[]> => {
    await page.locator('.table-wrap[aria-busy=false]').waitFor();
    return page.locator('[data-testid=runs] tbody tr[data-run-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id') ?? ''));
  };

  it('shows each run as a card on a phone (name, status, start, duration, namespace and version), never wider than the screen', async () => {
    const newest = await apiRows('limit: 25');
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await open({ ...PHONE, colorScheme });
      await page.goto(`${suite.server.baseUrl}/`);
      await expect.poll(() => shownIds(page)).toEqual(newest.map((r) => r.id));
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      // The list's own box does not scroll sideways either.
      expect(await page.locator('.table-wrap').evaluate((w) => w.scrollWidth - w.clientWidth)).toBeLessThanOrEqual(0);
      const first = page.locator('[data-testid=runs] tbody tr[data-run-id]').first();
      const row = newest[0] as Row;
      const cells = { name: '.c-name', status: '.c-status', start: '.c-start', duration: '.c-duration', namespace: '.c-namespace', version: '.c-version' };
      for (const selector of Object.values(cells)) {
        const box = await first.locator(selector).boundingBox();
        expect(box, selector).not.toBeNull();
        expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390, selector).toBe(true);
      }
      await expect(first.locator('.c-name').innerText()).resolves.toBe(row.name);
      await expect(first.locator('.c-namespace').innerText()).resolves.toContain(row.namespace ?? '—');
      await expect(first.locator('.c-start').innerText()).resolves.toMatch(/^(\d+ (s|min|h|d) ago|just now)$/);
      await expect(first.locator('.c-start').evaluate((cell) => getComputedStyle(cell, '::before').content)).resolves.toBe('"Started "');
      await expect(first.locator('.c-start time:visible').getAttribute('title')).resolves.toContain(`${exact(row.startDate)} UTC`);
      // A card is a few lines, not a table row squeezed into a column; the filters fold away, so runs come first.
      expect((await first.boundingBox())?.height ?? 0).toBeLessThan(160);
      expect((await first.boundingBox())?.y ?? 844).toBeLessThan(844 / 2);
      expect(await page.getByLabel('Workflow', { exact: true }).isVisible()).toBe(false);
      await page.screenshot({ path: `${ARTIFACTS}runs-list-phone-${colorScheme}.png` });
    }
  });

  it('sorts on a phone with the sort select (the cards have no column headers)', async () => {
    const { page } = await open({ ...PHONE, colorScheme: 'light' });
    await page.goto(`${suite.server.baseUrl}/`);
    await shownIds(page);
    await page.getByRole('button', { name: 'Filters' }).click();
    await expect(page.getByRole('button', { name: 'Hide filters' }).getAttribute('aria-expanded')).resolves.toBe('true');
    await page.getByLabel('Sort by').selectOption('name.ASC');
    await page.waitForURL(/sort=name\.asc/);
    await expect.poll(() => shownIds(page)).toEqual((await apiRows('limit: 25, orderBy: {name: ASC}')).map((r) => r.id));
    // The button counts the filters that apply.
    await page.goto(`${suite.server.baseUrl}/?name=pay&range=1d`);
    await expect(page.getByRole('button', { name: 'Filters (2 active)' }).isVisible()).resolves.toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  it('matches name, namespace and version by prefix (the default), anywhere, or exactly, and suggests values from the newest runs', async () => {
    const { page } = await open({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC', colorScheme: 'light' });
    await page.goto(`${suite.server.baseUrl}/?size=100`);
    await shownIds(page);
    const newest = await apiRows('limit: 100, orderBy: {startDate: DESC}');
    const distinct = (values: (string | null)[]): string[] => [...new Set(values.filter((v): v is string => v !== null && v !== ''))].sort();
    const options = (id: string): Promise<string[]> => page.locator(`datalist#${id} option`).evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    await expect.poll(() => options('suggest-names')).toEqual(distinct(newest.map((r) => r.name)));
    await expect(options('suggest-namespaces')).resolves.toEqual(distinct(newest.map((r) => r.namespace)));
    await expect(options('suggest-versions')).resolves.toEqual(distinct(newest.map((r) => r.version)));
    await expect(page.getByLabel('Workflow', { exact: true }).getAttribute('list')).resolves.toBe('suggest-names');

    // A name with several runs, from all of them (the newest hundred may be one busy workflow's).
    const all = await apiRows('limit: 1000');
    const name = distinct(all.map((r) => r.name)).find((n) => n.length > 6 && all.filter((r) => r.name === n).length > 1) ?? '';
    expect(name).not.toBe('');
    const prefix = name.slice(0, 4);
    const expectedPrefix = await apiRows(`filter: {name: {startsWith: ${JSON.stringify(prefix)}}}, limit: 100`);
    expect(expectedPrefix.length).toBeGreaterThan(0);
    await page.getByLabel('Workflow', { exact: true }).fill(prefix);
    await page.getByLabel('Workflow', { exact: true }).press('Enter');
    await page.waitForURL((url) => url.searchParams.get('name') === prefix, { timeout: 5000 }).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; at ${page.url()}`);
    });
    await expect.poll(async () => (await shownIds(page)).sort()).toEqual(expectedPrefix.map((r) => r.id).sort());

    const middle = name.slice(2, 6);
    const expectedContains = await apiRows(`filter: {name: {contains: ${JSON.stringify(middle)}}}, limit: 100`);
    await page.getByLabel('Workflow', { exact: true }).fill(middle);
    await page.getByLabel('Name, namespace, version').selectOption('contains');
    await page.waitForURL((url) => url.searchParams.get('match') === 'contains' && url.searchParams.get('name') === middle);
    await expect.poll(async () => (await shownIds(page)).sort()).toEqual(expectedContains.map((r) => r.id).sort());
    expect(expectedContains.length).toBeGreaterThan(0);

    // Exact: the part of a name matches nothing, the whole name its runs.
    await page.getByLabel('Name, namespace, version').selectOption('exact');
    await page.waitForURL((url) => url.searchParams.get('match') === 'exact');
    const expectedExactPart = await apiRows(`filter: {name: {eq: ${JSON.stringify(middle)}}}, limit: 100`);
    await expect.poll(async () => (await shownIds(page)).sort()).toEqual(expectedExactPart.map((r) => r.id).sort());
    const namespace = newest[0]?.namespace ?? '';
    await page.goto(`${suite.server.baseUrl}/?size=100&match=prefix&namespace=${encodeURIComponent(namespace.slice(0, -2))}`);
    const expectedNamespace = await apiRows(`filter: {namespace: {startsWith: ${JSON.stringify(namespace.slice(0, -2))}}}, limit: 100`);
    await expect.poll(async () => (await shownIds(page)).sort()).toEqual(expectedNamespace.map((r) => r.id).sort());
  });

  it('shows times in UTC by default, in the browser zone when chosen (kept across visits), relative where it helps, exact on hover', async () => {
    const { page } = await open(KOLKATA);
    const row = (await apiRows('limit: 1'))[0] as Row;
    await page.goto(`${suite.server.baseUrl}/`);
    await shownIds(page);
    const startCell = page.locator(`tr[data-run-id="${row.id}"] .c-start time:visible`);
    const utcText = `${row.startDate.slice(0, 10)} ${row.startDate.slice(11, 19)}`;
    await expect.poll(() => startCell.textContent()).toBe(utcText);
    await expect(page.locator('th', { hasText: 'Start' }).first().innerText()).resolves.toContain('Start (UTC)');
    const local = new Date(Date.parse(row.startDate) + 5.5 * 3600_000).toISOString();
    const localText = `${local.slice(0, 10)} ${local.slice(11, 19)}`;
    await expect(startCell.getAttribute('title')).resolves.toBe(`${exact(row.startDate)} UTC · ${exact(local)} UTC+05:30`);
    // Last update is relative; its exact time is its title.
    await expect(page.locator(`tr[data-run-id="${row.id}"] .c-last time`).textContent()).resolves.toMatch(/ ago$|^just now$/);

    await page.getByLabel('Times').selectOption('local');
    await expect.poll(() => startCell.textContent()).toBe(localText);
    await expect(page.locator('th', { hasText: 'Start' }).first().innerText()).resolves.toContain('Start (local)');
    await expect(page.getByTestId('freshness').innerText()).resolves.toContain('UTC+05:30');
    // Kept across visits, on the run page too.
    await page.reload();
    await expect.poll(() => startCell.textContent()).toBe(localText);
    await page.goto(`${suite.server.baseUrl}/?run=${row.id}`);
    await expect.poll(() => page.getByTestId('run-fields').locator('time').first().textContent()).toBe(exact(local));
    await page.screenshot({ path: `${ARTIFACTS}run-local-time.png` });

    // A custom range typed without an offset is read in the zone shown: 10:00 in Kolkata is 04:30 UTC.
    await page.goto(`${suite.server.baseUrl}/?range=custom`);
    await page.getByLabel('From (ISO, local)').fill('2026-05-12T10:00:00');
    await page.getByLabel('From (ISO, local)').press('Enter');
    await page.waitForURL((url) => url.searchParams.get('from') === '2026-05-12T04:30:00.000Z');

    await page.getByLabel('Times').selectOption('utc');
    await page.goto(`${suite.server.baseUrl}/`);
    await expect.poll(() => startCell.textContent()).toBe(utcText);
  });

  it('made no request beyond 127.0.0.1 and logged no error', () => {
    expect(opened.flatMap((g) => g.requested).filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(opened.flatMap((g) => g.problems)).toEqual([]);
  });
});
