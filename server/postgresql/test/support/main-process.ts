// The PostgreSQL server's main.ts as a child process, as `npm start`, `npm run serve:postgresql` and the image run it.
import { fileURLToPath } from 'node:url';
import { startNodeScript, type ServerProcess } from '@workflow-index/testkit';

export { stop, type ServerProcess } from '@workflow-index/testkit';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export function startMain(env: Record<string, string>, args: readonly string[] = [], defaultWaitMs = 30_000): ServerProcess {
  return startNodeScript(MAIN, env, { args, defaultWaitMs });
}
