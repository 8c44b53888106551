// The import boundaries between workspaces (import-boundaries.js) hold: `npm run lint` fails on an import from one
// backend into the other, from core into a backend, from the init job into a backend's internals or its main entry
// (the init job takes the light `/admin` ones), from shipped code into test support, and on a relative path into
// another workspace; what the layout allows passes, and the entry points the rule knows are those the packages declare.
import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS, importProblem } from '../import-boundaries.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const at = (path: string): string => `${ROOT}${path}`;

describe('import boundaries between workspaces', () => {
  it('refuses an import from one backend into the other, by package or by path', () => {
    expect(importProblem(at('server/opensearch/src/reader/x.ts'), '@workflow-index/postgresql')).toMatch(/may not import @workflow-index\/postgresql/);
    expect(importProblem(at('server/opensearch/src/reader/x.ts'), '../../../postgresql/src/migrator.js')).toMatch(/inside @workflow-index\/postgresql/);
    expect(importProblem(at('server/postgresql/src/x.ts'), '@workflow-index/opensearch')).toMatch(/may not import @workflow-index\/opensearch/);
    expect(importProblem(at('server/postgresql/test/x.test.ts'), '@workflow-index/opensearch/testing')).toMatch(/may not import @workflow-index\/opensearch/);
    expect(importProblem(at('server/opensearch/test/support/x.ts'), '@workflow-index/postgresql/testing')).toMatch(/may not import/);
  });

  it('refuses core, events and the test kit importing a backend', () => {
    expect(importProblem(at('server/core/src/x.ts'), '@workflow-index/postgresql')).toMatch(/may not import/);
    expect(importProblem(at('server/core/src/x.ts'), '@workflow-index/testkit')).toMatch(/may not import/);
    expect(importProblem(at('server/events/src/x.ts'), '@workflow-index/core')).toMatch(/may not import/);
    expect(importProblem(at('server/testkit/src/x.ts'), '@workflow-index/opensearch')).toMatch(/may not import/);
  });

  it("refuses the init job reaching into a backend's internals, and any deep import", () => {
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/postgresql/admin')).toBeNull();
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/opensearch/admin')).toBeNull();
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/postgresql/migrator')).toMatch(/not public/);
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/postgresql/admin/migrator')).toMatch(/not public/);
    expect(importProblem(at('init-job/src/x.ts'), '../../server/postgresql/src/migrator.js')).toMatch(/inside @workflow-index\/postgresql/);
    expect(importProblem(at('server/opensearch/src/x.ts'), '@workflow-index/core/reader')).toMatch(/not public/);
    expect(importProblem(at('server/opensearch/src/x.ts'), '@workflow-index/core/admin')).toMatch(/not public/);
    expect(importProblem(at('bench/x.ts'), '@workflow-index/events/admin')).toMatch(/not public/);
  });

  it('keeps the init job on the light entry points: the main ones (the server and the GraphQL stack) and core are refused', () => {
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/postgresql')).toMatch(/only through @workflow-index\/postgresql\/admin/);
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/opensearch')).toMatch(/only through @workflow-index\/opensearch\/admin/);
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/core')).toMatch(/may not import @workflow-index\/core/);
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/events')).toBeNull();
    // Its tests may use the whole packages.
    expect(importProblem(at('init-job/test/x.test.ts'), '@workflow-index/postgresql')).toBeNull();
  });

  it('knows exactly the entry points the packages declare in their "exports"', () => {
    const declared: Record<string, string[]> = {};
    const { workspaces } = JSON.parse(readFileSync(at('package.json'), 'utf8')) as { workspaces: string[] };
    for (const folder of workspaces) {
      const manifest = JSON.parse(readFileSync(at(`${folder}/package.json`), 'utf8')) as { name: string; exports?: Record<string, unknown> };
      const subpaths = Object.keys(manifest.exports ?? {}).filter((key) => key !== '.').map((key) => key.slice(1));
      if (subpaths.length > 0) declared[manifest.name.replace('@workflow-index/', '')] = subpaths;
    }
    expect(declared).toEqual(ENTRY_POINTS);
  });

  it('refuses test support in shipped code', () => {
    expect(importProblem(at('server/postgresql/src/x.ts'), '@workflow-index/postgresql/testing')).toMatch(/shipped code/);
    expect(importProblem(at('init-job/src/x.ts'), '@workflow-index/opensearch/testing')).toMatch(/shipped code/);
  });

  it('allows what the layout intends', () => {
    expect(importProblem(at('server/opensearch/src/x.ts'), '@workflow-index/core')).toBeNull();
    expect(importProblem(at('server/opensearch/src/x.ts'), '@workflow-index/events')).toBeNull();
    expect(importProblem(at('server/opensearch/src/reader/x.ts'), '../normalized-indices.js')).toBeNull();
    expect(importProblem(at('server/opensearch/test/x.test.ts'), '@workflow-index/testkit')).toBeNull();
    expect(importProblem(at('server/cross-backend/test/x.test.ts'), '@workflow-index/postgresql/testing')).toBeNull();
    expect(importProblem(at('server/cross-backend/test/x.test.ts'), '@workflow-index/opensearch')).toBeNull();
    expect(importProblem(at('bench/postgresql/x.ts'), '@workflow-index/opensearch')).toBeNull();
    expect(importProblem(at('bench/postgresql/x.ts'), '@workflow-index/postgresql/admin')).toBeNull();
    expect(importProblem(at('server/cross-backend/test/x.test.ts'), '@workflow-index/opensearch/admin')).toBeNull();
  });

  it('is what `npm run lint` runs: ESLint reports the import', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const [result] = await eslint.lintText("import { createPostgresqlReader } from '@workflow-index/postgresql';\nexport const reader = createPostgresqlReader;\n", {
      filePath: at('server/opensearch/src/probe.ts'),
    });
    expect(result?.messages.map((m) => m.ruleId)).toEqual(['workflowIndex/workspace-imports']);
  });
});
