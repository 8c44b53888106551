import { defineConfig } from 'vitest/config';

/** Suites that change what the shared OpenSearch node allows (its circuit breaker limits): they run alone, last. */
const NODE_SETTINGS = ['server/opensearch/test/search-limits.test.ts'];

// Workspace packages export their TypeScript sources under the "source" condition, so tests
// run against src/ without a build step.
export default defineConfig({
  resolve: { conditions: ['source', 'module', 'node'] },
  ssr: { resolve: { conditions: ['source', 'node'] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for what a busy machine delays (a page's first query, a normalizer's cycle): 1 s by default.
    expect: { poll: { timeout: 15_000, interval: 100 } },
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'suites',
          include: ['test/**/*.test.ts', 'server/*/test/**/*.test.ts', 'bench/test/**/*.test.ts', 'init-job/test/**/*.test.ts', 'console/test/**/*.test.ts', 'e2e/**/*.test.ts', 'fluent-bit/**/*.test.ts', 'manifests/**/*.test.ts', 'kustomize/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...NODE_SETTINGS],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'node-settings', include: NODE_SETTINGS, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
