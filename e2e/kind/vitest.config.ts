// `npm run e2e:kind`: the kind suite on its own (one cluster, sequential, long timeouts). The root `vitest run`
// also collects e2e/kind/*.test.ts but the suite skips there with a message: creating a cluster is opt-in.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../../', import.meta.url)),
  resolve: { conditions: ['source', 'module', 'node'] },
  ssr: { resolve: { conditions: ['source', 'node'] } },
  test: {
    include: ['e2e/kind/**/*.test.ts'],
    env: { WI_E2E_KIND: '1' },
    testTimeout: 10 * 60_000,
    hookTimeout: 30 * 60_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
