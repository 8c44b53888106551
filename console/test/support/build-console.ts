// The suites serve the real build: run the console's incremental build (a no-op when console/dist is up to date).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url));

export async function buildConsole(): Promise<void> {
  await run(process.execPath, [SCRIPT], { timeout: 180_000, killSignal: 'SIGKILL' });
}
