import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the "source" condition, so tests
// run against src/ without a build step.
export default defineConfig({
  resolve: { conditions: ['source', 'module', 'node'] },
  ssr: { resolve: { conditions: ['source', 'node'] } },
  test: {
    include: ['test/**/*.test.ts', 'server/*/test/**/*.test.ts', 'init-job/test/**/*.test.ts', 'console/test/**/*.test.ts', 'e2e/**/*.test.ts', 'fluent-bit/**/*.test.ts', 'manifests/**/*.test.ts', 'kustomize/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
