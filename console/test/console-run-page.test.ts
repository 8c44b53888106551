// The run page answers "what happened" first (real Chromium, the real server, PostgreSQL with the conformance
// events): at 1280×800 the status, the error and the timeline are in the first screen, the payloads after; the
// error's "raised by" links to the task execution; the error shows once when that execution is selected; a loop's
// execution says which iteration it is. Screenshots (laptop and phone, light and dark) go to .artifacts/console/.
import { describe, expect, it } from 'vitest';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { chromiumAvailable } from './support/chromium.js';
import { ARTIFACTS, browserSuite } from './support/browser-suite.js';

const LOOP_RUN = '01KRDQEAPWDTERF1SDDX5A5SQV'; // order-fulfilment: pickItem runs three times in a loop
const FAULTED_RUN = '01KRDQDZBS8TBDWA72Q1575QHY'; // payment-capture: faulted by do/1/chargeCard
const LOOP_POSITION = 'do/0/pickItems/do/0/pickItem';
const LAPTOP = { viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' } as const;
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, timezoneId: 'UTC' } as const;

const available = (await postgresReachable()) && (await chromiumAvailable());

interface Task {
  id: string;
  taskName: string;
  taskPosition: string;
  status: string;
}

describe.skipIf(!available)('run page in Chromium', () => {
  const suite = browserSuite();
  const { opened } = suite;
  const open = suite.open;
  const tasksOf = async (id: string): Promise<Task[]> =>
    (await suite.server.graphql<{ r: { taskExecutions: Task[] } }>(`{ r: getWorkflowInstance(id: "${id}") { taskExecutions { id taskName taskPosition status } } }`)).r.taskExecutions;

  it('puts the status, the error and the timeline in the first screen at 1280×800, the payloads after', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await open({ ...LAPTOP, colorScheme });
      await page.goto(`${suite.server.baseUrl}/?run=${FAULTED_RUN}`);
      await page.locator('.bar').first().waitFor();
      const top = async (selector: string): Promise<number> => (await page.locator(selector).first().boundingBox())?.y ?? Number.NaN;
      const timeline = await top('[data-testid=timeline]');
      expect(timeline).toBeLessThan(800 - 60); // its first lane is visible too, not only its edge
      expect(await top('[data-testid=error-box]')).toBeLessThan(timeline);
      expect(await top('.run-head .badge')).toBeLessThan(timeline);
      expect(await top('[data-testid=json-input]')).toBeGreaterThan(timeline);
      await page.screenshot({ path: `${ARTIFACTS}run-fold-laptop-${colorScheme}.png` });
    }
  }, 120_000);

  it('links "raised by" to the task execution that raised the error: selected, scrolled to and focused', async () => {
    const faulted = (await tasksOf(FAULTED_RUN)).find((t) => t.taskPosition === 'do/1/chargeCard' && t.status === 'FAULTED');
    expect(faulted).toBeDefined();
    const { page } = await open({ ...LAPTOP, colorScheme: 'light' });
    await page.goto(`${suite.server.baseUrl}/?run=${FAULTED_RUN}`);
    const link = page.getByTestId('raised-by').getByRole('link');
    await expect(link.textContent()).resolves.toBe('do/1/chargeCard (chargeCard)');
    expect(new URL((await link.getAttribute('href')) ?? '', suite.server.baseUrl).searchParams.get('task')).toBe(faulted?.id);
    await link.click();
    await page.waitForURL((url) => url.searchParams.get('task') === faulted?.id);
    const details = page.getByTestId('task-details');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('task-details');
    await expect(details.locator('code').first().textContent()).resolves.toBe(faulted?.id);
    const box = await details.boundingBox();
    expect(box?.y).toBeGreaterThanOrEqual(-1);
    expect(box?.y).toBeLessThan(800);
    expect(await page.locator(`.bar[data-task-id="${faulted?.id}"]`).getAttribute('aria-pressed')).toBe('true');
  });

  it('shows the error once when the execution that raised it is selected', async () => {
    const faulted = (await tasksOf(FAULTED_RUN)).find((t) => t.status === 'FAULTED');
    const { page } = await open({ ...LAPTOP, colorScheme: 'light' });
    await page.goto(`${suite.server.baseUrl}/?run=${FAULTED_RUN}&task=${encodeURIComponent(faulted?.id ?? '')}`);
    await page.getByTestId('task-details').waitFor();
    await expect(page.getByTestId('raised-run-error').textContent()).resolves.toContain("raised the run's error");
    expect(await page.locator('.error-box').count()).toBe(1);
    // The other execution of that run has no error of its own: no card in its panel either, the run's stays.
    const other = (await tasksOf(FAULTED_RUN)).find((t) => t.status !== 'FAULTED');
    await page.goto(`${suite.server.baseUrl}/?run=${FAULTED_RUN}&task=${encodeURIComponent(other?.id ?? '')}`);
    await page.getByTestId('task-details').waitFor();
    expect(await page.locator('.error-box').count()).toBe(1);
    expect(await page.getByTestId('raised-run-error').count()).toBe(0);
  });

  it("says which iteration of a loop a selected execution is", async () => {
    const loop = (await tasksOf(LOOP_RUN)).filter((t) => t.taskPosition === LOOP_POSITION);
    expect(loop.length).toBe(3);
    const { page } = await open({ ...LAPTOP, colorScheme: 'light' });
    for (const [index, task] of loop.entries()) {
      await page.goto(`${suite.server.baseUrl}/?run=${LOOP_RUN}&task=${encodeURIComponent(task.id)}`);
      await expect.poll(() => page.getByTestId('task-iteration').textContent()).toBe(`iteration ${index + 1} of 3 of position ${LOOP_POSITION}`);
    }
    // The bar the timeline numbers 2 is the execution the panel calls iteration 2.
    await page.locator(`.lane[data-position="${LOOP_POSITION}"] .bar`).nth(1).click();
    await expect.poll(() => page.getByTestId('task-iteration').textContent()).toBe(`iteration 2 of 3 of position ${LOOP_POSITION}`);
    await page.screenshot({ path: `${ARTIFACTS}run-loop-iteration.png` });
  });

  it('fits a phone (light and dark) without sideways scrolling', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page } = await open({ ...PHONE, colorScheme });
      await page.goto(`${suite.server.baseUrl}/?run=${FAULTED_RUN}`);
      await page.locator('.bar').first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await page.screenshot({ path: `${ARTIFACTS}run-phone-${colorScheme}.png`, fullPage: true });
    }
  });

  it('made no request beyond 127.0.0.1 and logged no error', () => {
    expect(opened.flatMap((g) => g.requested).filter((url) => new URL(url).hostname !== '127.0.0.1')).toEqual([]);
    expect(opened.flatMap((g) => g.problems)).toEqual([]);
  });
});
