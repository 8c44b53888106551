// The backends a console browser suite runs on: each whose service answers, when Chromium is there (with CI=true a
// missing service or browser fails its reachability check instead of leaving the list short). Screenshots of a
// suite on OpenSearch carry the backend in their name, so both runs keep theirs.
import { fileURLToPath } from 'node:url';
import { openSearchReachable } from '@workflow-index/opensearch/testing';
import { postgresReachable } from '@workflow-index/postgresql/testing';
import { chromiumAvailable } from './chromium.js';
import type { ConsoleBackend } from './console-server.js';

/** Where the suites write their screenshots (git-ignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../../.artifacts/console/', import.meta.url));

export async function consoleBackends(): Promise<ConsoleBackend[]> {
  if (!(await chromiumAvailable())) return [];
  const backends: ConsoleBackend[] = [];
  if (await postgresReachable()) backends.push('postgresql');
  if (await openSearchReachable()) backends.push('opensearch');
  return backends;
}

/** The screenshot file of `name` taken on `backend`. */
export function artifactPath(name: string, backend: ConsoleBackend = 'postgresql'): string {
  return `${ARTIFACTS}${name}${backend === 'postgresql' ? '' : `-${backend}`}.png`;
}
