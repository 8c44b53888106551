// The GraphQL UI in real Chromium: it runs a query, and a second visit takes GraphiQL's files from the browser's
// cache (only the small page is asked again). The time to a usable editor is printed for both
// visits (a figure, not an assertion).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { chromiumAvailable, launchChromium } from './support/chromium.js';
import { startConsoleServer } from './support/console-server.js';
import type { ConsoleServer } from './support/console-server.js';

const available = (await postgresReachable()) && (await chromiumAvailable());

/** A response the page received; `requestId` is the server's X-Request-Id (a cached response carries the old one). */
interface Fetched {
  readonly path: string;
  readonly status: number;
  readonly requestId: string | undefined;
}

describe.skipIf(!available)('GraphQL UI in Chromium', () => {
  let server: ConsoleServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startConsoleServer();
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('runs the default query; a second visit downloads none of its files again', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    let fetched: Fetched[] = [];
    cdp.on('Network.responseReceived', (event) => {
      const { url, status, headers } = event.response;
      if (url.startsWith(server.baseUrl)) fetched.push({ path: new URL(url).pathname, status, requestId: headers['x-request-id'] });
    });

    const firstMs = await visit();
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/graphql' && (r.request().postData() ?? '').includes('RecentInstances'), { timeout: 60_000 });
    await page.locator('.graphiql-execute-button').click();
    const response = await answer;
    expect(response.status()).toBe(200);
    const ids = ((await response.json()) as { data: { getWorkflowInstances: { id: string }[] } }).data.getWorkflowInstances.map((r) => r.id);
    expect(ids.length).toBeGreaterThan(0);
    await expect.poll(() => page.locator('.graphiql-response').innerText(), { timeout: 30_000 }).toContain(ids[0] ?? '?');
    const firstFiles = fetched.filter((f) => f.path.startsWith('/q/graphql-ui/assets/'));
    expect(firstFiles.map((f) => f.path.slice(-3)).sort()).toEqual(['.js', 'css', 'ico']);
    const served = new Set(firstFiles.map((f) => f.requestId));

    fetched = [];
    await page.goto('about:blank');
    const secondMs = await visit();
    // Every file of the second visit is the first visit's response, from the browser's cache.
    const files = fetched.filter((f) => f.path.startsWith('/q/graphql-ui/assets/'));
    expect(files.length).toBeGreaterThanOrEqual(2);
    expect(files.filter((f) => !served.has(f.requestId))).toEqual([]);
    console.log(`[figure] GraphQL UI usable after ${firstMs} ms (first visit), ${secondMs} ms (second visit)`);
    await context.close();

    async function visit(): Promise<number> {
      const started = performance.now();
      await page.goto(`${server.baseUrl}/q/graphql-ui`);
      await page.locator('.graphiql-container').first().waitFor({ timeout: 60_000 });
      return Math.round(performance.now() - started);
    }
  }, 180_000);
});
