// Which workspace may import which (an ESLint rule of ours, part of `npm test`): the two backends stand side by side on
// core and events and never import each other; core and events import no backend; the test kit is backend-neutral;
// the init job uses the backends through their light entry points only (`@workflow-index/<backend>/admin`). Across
// workspaces every import goes through a package entry point declared in ENTRY_POINTS (and in that package's
// "exports"): `@workflow-index/<name>`, a backend's `/admin` (its administration side, which never reaches the server
// code nor @workflow-index/core, so processes that do not serve GraphQL do not load its stack), or `/testing` for a
// workspace's test support, which no shipped code imports; a relative path into another workspace's folder is
// refused. Only the cross-backend tests, the benchmarks and the repository-level tests (e2e, kustomize, test) import
// both backends.
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(fileURLToPath(import.meta.url));

/** Workspace folders and their package names. */
const WORKSPACES = {
  'server/core': 'core', 'server/events': 'events', 'server/postgresql': 'postgresql', 'server/opensearch': 'opensearch',
  'server/testkit': 'testkit', 'server/cross-backend': 'cross-backend', bench: 'bench', 'fluent-bit': 'fluent-bit',
  'init-job': 'init-job', console: 'console',
};
const ALL = Object.values(WORKSPACES);

/** The entry points besides `@workflow-index/<name>` itself; test/import-boundaries.test.ts holds them equal to "exports". */
export const ENTRY_POINTS = {
  core: ['/schema.graphql'],
  postgresql: ['/admin', '/testing'],
  opensearch: ['/admin', '/testing'],
  'fluent-bit': ['/testing'],
};

/**
 * What each part of the repository may import, first match wins; `shipped`: production code (no test support). An
 * allowed `name` admits every entry point of that workspace, `name/admin` only that one.
 */
const BOUNDARIES = [
  { folder: 'server/events', allow: [], shipped: true },
  { folder: 'server/core/src', allow: ['events'], shipped: true },
  { folder: 'server/core', allow: ['events', 'testkit'] },
  { folder: 'server/postgresql/src', allow: ['core', 'events'], shipped: true },
  { folder: 'server/opensearch/src', allow: ['core', 'events'], shipped: true },
  { folder: 'server/postgresql', allow: ['core', 'events', 'testkit', 'fluent-bit'] },
  { folder: 'server/opensearch', allow: ['core', 'events', 'testkit', 'fluent-bit'] },
  { folder: 'server/testkit', allow: ['core', 'events'] },
  { folder: 'init-job/src', allow: ['events', 'postgresql/admin', 'opensearch/admin'], shipped: true },
  { folder: 'init-job', allow: ['core', 'events', 'postgresql', 'opensearch', 'testkit'] },
  { folder: 'console/src', allow: [], shipped: true },
  { folder: 'console', allow: ['core', 'testkit', 'postgresql', 'opensearch'] },
  { folder: 'fluent-bit', allow: ['core', 'events', 'postgresql', 'opensearch', 'testkit', 'cross-backend'] },
  { folder: '', allow: ALL },
];

const within = (path, folder) => folder === '' || path === folder || path.startsWith(`${folder}/`);
const repoPath = (file) => relative(ROOT, file).split(sep).join('/');
const workspaceOf = (path) => Object.keys(WORKSPACES).find((folder) => within(path, folder)) ?? null;
const boundaryOf = (path) => BOUNDARIES.find((b) => within(path, b.folder));

/** The problem with importing `spec` from `file`, or null. */
export function importProblem(file, spec) {
  const from = repoPath(file);
  const boundary = boundaryOf(from);
  const own = workspaceOf(from);
  if (spec.startsWith('.')) {
    const target = repoPath(resolve(dirname(file), spec));
    const theirs = workspaceOf(target);
    if (theirs !== null && theirs !== own) return `${target} is inside @workflow-index/${WORKSPACES[theirs]}: import its entry point (@workflow-index/${WORKSPACES[theirs]}), never a file of its folder.`;
    return null;
  }
  const match = /^@workflow-index\/([a-z-]+)(\/.*)?$/.exec(spec);
  if (match === null) return null;
  const [, name, subpath = ''] = match;
  if (subpath !== '' && !(ENTRY_POINTS[name] ?? []).includes(subpath)) return `import @workflow-index/${name} through its entry point: ${spec} is not public.`;
  if (subpath === '/testing' && boundary.shipped) return `shipped code does not import test support (${spec}).`;
  if (own !== null && WORKSPACES[own] === name) return subpath === '/testing' && !boundary.shipped ? null : `a workspace imports its own files by relative path, not through ${spec}.`;
  if (!boundary.allow.includes(name) && !boundary.allow.includes(`${name}${subpath}`)) {
    const entries = boundary.allow.filter((entry) => entry.startsWith(`${name}/`)).map((entry) => `@workflow-index/${entry}`);
    if (entries.length > 0) return `${from} imports @workflow-index/${name} only through ${entries.join(', ')} (import-boundaries.js): ${spec} loads the server and the GraphQL stack, which this process does not use.`;
    const allowed = boundary.allow.length === 0 ? 'no other workspace' : boundary.allow.map((w) => `@workflow-index/${w}`).join(', ');
    return `${from} may not import @workflow-index/${name} (import-boundaries.js): it may import ${allowed}.`;
  }
  return null;
}

const rule = {
  meta: { type: 'problem', docs: { description: 'Imports across workspaces follow import-boundaries.js' }, schema: [] },
  create(context) {
    const check = (node) => {
      const source = node.source;
      if (source === null || source === undefined || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const problem = importProblem(context.filename, source.value);
      if (problem !== null) context.report({ node: source, message: problem });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export const importBoundaries = [
  {
    files: ['**/*.{ts,tsx,mts,js,mjs}'],
    plugins: { workflowIndex: { rules: { 'workspace-imports': rule } } },
    rules: { 'workflowIndex/workspace-imports': 'error' },
  },
];
