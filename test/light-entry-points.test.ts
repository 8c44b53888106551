// The processes that do not serve GraphQL stay light: importing a backend's administration entry point
// (`@workflow-index/<backend>/admin`), the init job's CLI or the OpenSearch normalizer process loads neither
// @workflow-index/core nor the GraphQL server stack (graphql, graphql-yoga, the OpenTelemetry SDK, ajv, pino-pretty),
// which would triple the init job's start-up. Each import runs in a child process whose module-resolution hook
// records every module it loads; the main entry point, which does load the stack, shows the hook sees it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'light-entry-points-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Modules of the server side: any one of them in a light process means the stack came along. */
const HEAVY = [
  /\/server\/core\//,
  /\/node_modules\/graphql\//,
  /\/node_modules\/graphql-yoga\//,
  /\/node_modules\/graphql-jit\//,
  /\/node_modules\/@graphql-tools\//,
  /\/node_modules\/@opentelemetry\/sdk-trace-(node|base)\//,
  /\/node_modules\/@opentelemetry\/exporter-trace-otlp-http\//,
  /\/node_modules\/ajv\//,
  /\/node_modules\/pino-pretty\//,
];

// Runs in the loader thread (module.register, so on every supported Node.js release): one line per resolved module.
const RECORDER = `import { appendFileSync } from 'node:fs';
let out;
export function initialize(data) { out = data.out; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(out, result.url + '\\n');
  return result;
}`;
const dataUrl = (text: string): string => `data:text/javascript,${encodeURIComponent(text)}`;

/** The URLs of every module a child process loads when it imports `target` the way the scripts run (`source` condition). */
async function modulesLoadedBy(target: string): Promise<string[]> {
  const out = join(scratch, `${target.replace(/[^a-z0-9]+/gi, '-')}.txt`);
  const register = `import { register } from 'node:module'; register(${JSON.stringify(dataUrl(RECORDER))}, { data: { out: ${JSON.stringify(out)} } });`;
  // The normalizer process runs on import: without OPENSEARCH_HOST it reports the missing setting and stops.
  const env = { ...process.env, OPENSEARCH_HOST: '', NODE_OPTIONS: '' };
  await promisify(execFile)(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--import', dataUrl(register), '--input-type=module', '-e', `await import(${JSON.stringify(target)});`],
    { cwd: ROOT, env, timeout: 60_000 },
  ).catch((error: { code?: unknown; stderr?: string }) => {
    // The normalizer's exit code 2 (its missing setting) is expected; anything else is a failed import.
    if (error.code !== undefined && error.code !== 2) throw new Error(`importing ${target} failed: ${error.stderr ?? String(error)}`);
  });
  return readFileSync(out, 'utf8').split('\n').filter((line) => line !== '');
}

const heavy = (urls: readonly string[]): string[] => urls.filter((url) => HEAVY.some((pattern) => pattern.test(url)));

describe('entry points of the processes that do not serve GraphQL', () => {
  it.each([
    ['@workflow-index/postgresql/admin', 'server/postgresql/src/admin.ts'],
    ['@workflow-index/opensearch/admin', 'server/opensearch/src/admin.ts'],
    ['@workflow-index/init-job', 'init-job/src/cli.ts'],
    ['./server/opensearch/src/normalizer-main.ts', 'server/opensearch/src/normalizer-job.ts'],
  ])('%s loads no module of core or the GraphQL stack', async (target, expected) => {
    const urls = await modulesLoadedBy(target);
    expect(urls.some((url) => url.endsWith(expected))).toBe(true);
    expect(heavy(urls)).toEqual([]);
  });

  it("the main entry point does load them, so the hook sees what the light ones don't", async () => {
    const found = heavy(await modulesLoadedBy('@workflow-index/postgresql'));
    expect(found.some((url) => url.includes('/node_modules/graphql/'))).toBe(true);
    expect(found.some((url) => url.includes('/node_modules/graphql-yoga/'))).toBe(true);
    expect(found.some((url) => url.includes('/node_modules/@opentelemetry/sdk-trace-node/'))).toBe(true);
    expect(found.some((url) => url.includes('/server/core/src/'))).toBe(true);
  });
});
