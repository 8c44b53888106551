// The set-up every console browser suite shares: the console built, a server on a real backend (its options: the
// backend, extra events, live updates), one Chromium; guarded pages opened through the suite are closed with it.
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { buildConsole } from './build-console.js';
import { launchChromium } from './chromium.js';
import { startConsoleServer } from './console-server.js';
import type { ConsoleServer, ConsoleServerOptions } from './console-server.js';
import { guardedPage } from './guarded-page.js';
import type { GuardedPage } from './guarded-page.js';
import { ARTIFACTS, artifactPath } from './backends.js';

export { ARTIFACTS };

export interface BrowserSuite {
  /** The suite's server (set once its beforeAll ran). */
  readonly server: ConsoleServer;
  /** Every page the suite opened, for the assertions that no request left 127.0.0.1 and nothing failed. */
  readonly opened: readonly GuardedPage[];
  open(options: Parameters<typeof guardedPage>[1]): Promise<GuardedPage>;
  /** The screenshot file of `name` on this suite's backend. */
  artifact(name: string): string;
}

/** Registers the suite's beforeAll and afterAll; call it inside the describe. */
export function browserSuite(serverOptions: ConsoleServerOptions = {}): BrowserSuite {
  let server: ConsoleServer | undefined;
  let browser: Browser | undefined;
  const opened: GuardedPage[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await buildConsole();
    server = await startConsoleServer(serverOptions);
    browser = await launchChromium();
  }, 240_000);

  afterAll(async () => {
    for (const g of opened) await g.context.close();
    await browser?.close();
    await server?.close();
  }, 60_000);

  return {
    get server(): ConsoleServer {
      if (server === undefined) throw new Error('the browser suite has not started yet');
      return server;
    },
    opened,
    artifact: (name) => artifactPath(name, serverOptions.backend),
    async open(options) {
      if (browser === undefined) throw new Error('the browser suite has not started yet');
      const g = await guardedPage(browser, options);
      opened.push(g);
      return g;
    },
  };
}
