// Debian's Chromium driven by playwright-core (no browser download). Outside CI a machine without a working
// Chromium skips the browser suite with a message; with CI=true it fails.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

// The machine's network is closed: without these, Chromium's own background connections (updates, sync, safe
// browsing, …) are refused many at a time and slow every start.
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** Launches headless Chromium with a fresh profile (playwright creates an empty user-data-dir per launch and removes it on close). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS, timeout: 60_000 });
}

let checked: Promise<boolean> | undefined;
/** Whether Chromium starts here; with CI=true a failure throws (the suite must fail, not skip). */
export function chromiumAvailable(): Promise<boolean> {
  checked ??= (async () => {
    let problem: string;
    if (!existsSync(CHROMIUM_PATH)) {
      problem = `${CHROMIUM_PATH} does not exist (apt-get install chromium, or set CHROMIUM_PATH)`;
    } else {
      try {
        const browser = await launchChromium();
        await browser.close();
        return true;
      } catch (error) {
        problem = `${CHROMIUM_PATH} did not start: ${(error as Error).message.split('\n')[0]}`;
      }
    }
    if (process.env['CI'] === 'true') throw new Error(`Chromium is required in CI for the console browser suite: ${problem}`);
    console.warn(`[skip] console browser suite skipped: ${problem}`);
    return false;
  })();
  return checked;
}
