// A browser context for the console suites: every request is recorded and anything not on 127.0.0.1 refused; page
// errors and console errors (a CSP violation is one) are collected.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

export interface GuardedPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every URL requested, whatever its origin. */
  readonly requested: string[];
  readonly problems: string[];
}

export async function guardedPage(browser: Browser, options: BrowserContextOptions): Promise<GuardedPage> {
  const context = await browser.newContext(options);
  const requested: string[] = [];
  const problems: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    requested.push(url);
    if (new URL(url).hostname === '127.0.0.1') await route.continue();
    else await route.abort('blockedbyclient');
  });
  context.on('weberror', (error) => problems.push(`page error: ${error.error().message}`));
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error on ${page.url()}: ${message.text()}`);
  });
  return { context, page, requested, problems };
}
