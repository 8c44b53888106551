// Development mode end to end: main.ts as a child process (what `npm start` runs), with the embedded database in a
// temporary data directory, on a free port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import { getContainerRuntimeClient } from 'testcontainers';
import { DEMO_REFERENCE_EVENTS } from '@workflow-index/events';
import { loadDemoEventsIfEmpty } from '../src/demo-data.js';
import { startEmbeddedDatabase } from '../src/dev-database.js';
import { ingestEventLogs } from '../src/event-log-ingest.js';
import { migrate } from '../src/migrator.js';
import { startMain, stop, type ServerProcess } from './support/main-process.js';
import { DEMO_INSTANCES, demoFreshness, expectedDemoFreshness, graphqlData, loggedDemoBaseMs } from '@workflow-index/testkit';

/** ISO-8601 UTC with six fractional digits, `micros` after `ms`. */
const isoMicros = (ms: number, micros: number): string => new Date(ms + Math.floor(micros / 1000)).toISOString().replace(/\.(\d{3})Z$/, (_, m: string) => `.${m}${String(micros % 1000).padStart(3, '0')}Z`);

const OWN_RUN = 'own-run-0001';

/** The example queries of the /docs page, unescaped. */
function exampleQueries(html: string): string[] {
  const unescape = (text: string): string => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  return [...html.matchAll(/<div class="example"><div class="ex-title">.*?<\/div><pre>(.*?)<\/pre>/gs)].map((m) => unescape(m[1] ?? ''));
}

/** An embedded database at `dataDir` holding the built-in demo placed at `baseMs` (and one run of the user's). */
async function prepareDemo(dataDir: string, baseMs: number, ownRun: boolean): Promise<void> {
  const database = await startEmbeddedDatabase(dataDir);
  const client = new pg.Client(database.connection);
  await client.connect();
  try {
    await migrate(client);
    await loadDemoEventsIfEmpty(client, DEMO_REFERENCE_EVENTS, baseMs);
    if (ownRun) {
      const started = { eventType: 'io.serverlessworkflow.workflow.started.v1', instanceId: OWN_RUN, workflowName: 'mine', workflowNamespace: 'dev', workflowVersion: '1', status: 'RUNNING', startTime: baseMs / 1000, timestamp: baseMs / 1000 };
      await ingestEventLogs(client, [{ name: 'own', stream: Readable.from([`${JSON.stringify(started)}\n`]) }]);
    }
  } finally {
    await client.end();
    await database.stop();
  }
}

const containerRuntime = await getContainerRuntimeClient().then(() => true, () => false);

describe('development mode (npm start): embedded PostgreSQL', () => {
  let dir: string;
  const started: ServerProcess[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'wi-dev-mode-'));
  });
  afterAll(async () => {
    for (const s of started) await stop(s);
    rmSync(dir, { recursive: true, force: true });
  });
  const env = (dataDir = join(dir, 'pglite')): Record<string, string> => ({ NODE_ENV: 'development', HTTP_PORT: '0', DEV_DATABASE_PORT: '0', DEV_DATA_DIR: dataDir });

  it('starts with no configuration, loads the demo events and serves the UI, /docs and GraphQL', async () => {
    const server = startMain(env(), [], 60_000);
    started.push(server);
    const ui = await server.waitFor(/GraphQL UI\s+(http:\/\/localhost:(\d+))\/q\/graphql-ui/);
    await server.waitFor(/server started/); // the SIGTERM handler is installed
    const baseUrl = ui[1] ?? '';
    expect(server.output()).toContain(`Docs          ${baseUrl}/docs`);
    expect(server.output()).toContain(`GraphQL API   ${baseUrl}/graphql`);
    expect(server.output()).toMatch(/demo events loaded .*"events":87,"rejected":0/);
    // The demo is placed just before the start (the base, logged): every time below is relative to it.
    const base = loggedDemoBaseMs(server.output());
    expect(server.output()).toMatch(/migration applied/);

    const page = await fetch(`${baseUrl}/q/graphql-ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const docs = await fetch(`${baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    // The time examples of /docs are hours before the start, where the demo's runs are: each finds some.
    const timeExamples = exampleQueries(await docs.text()).filter((q) => /\b(gte|between)\b/.test(q) && /"\d{4}-\d\d-\d\dT/.test(q));
    expect(timeExamples).toHaveLength(3);
    for (const query of timeExamples) {
      const rows = Object.values(await graphqlData<Record<string, unknown[]>>(baseUrl, query))[0];
      expect(rows?.length, query).toBeGreaterThan(0);
    }
    const ready = await fetch(`${baseUrl}/q/health/ready`);
    expect(ready.status).toBe(200);

    const list = await graphqlData(baseUrl, '{ getWorkflowInstances { id } }');
    expect(list).toEqual({ getWorkflowInstances: DEMO_INSTANCES.map((id) => ({ id })) });
    expect(await demoFreshness(baseUrl, base)).toEqual(expectedDemoFreshness());
    const one = await graphqlData(baseUrl, `{ getWorkflowInstance(id: "01KRDQDZBS8TBDWA72Q1575QHY") {
      name namespace status startDate error { status title } taskExecutions { id status } } }`);
    expect(one).toEqual({
      getWorkflowInstance: {
        name: 'payment-capture', namespace: 'com.acme.billing', status: 'FAULTED', startDate: isoMicros(base - 5.5 * 3600_000, 38),
        error: { status: 503, title: 'Service Unavailable' }, taskExecutions: [
          { id: '01KRDQDZBS8TBDWA72Q1575QHY:do/0/loadInvoice', status: 'COMPLETED' },
          { id: '01KRDQDZBS8TBDWA72Q1575QHY:do/1/chargeCard', status: 'FAULTED' },
        ],
      },
    });
    expect(existsSync(`${join(dir, 'pglite')}.lock`)).toBe(true);

    // A second server on the same data directory would corrupt it: refused with the owner's pid.
    const second = startMain(env(), [], 60_000);
    started.push(second);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`is in use by another process (pid ${server.child.pid})`);

    expect(await stop(server)).toBe(0);
    expect(server.output()).toContain('shutdown complete');
    expect(existsSync(`${join(dir, 'pglite')}.lock`)).toBe(false);
  });

  it('keeps the data across a restart and does not load the demo events twice', async () => {
    const server = startMain(env(), [], 60_000);
    started.push(server);
    const ui = await server.waitFor(/GraphQL UI\s+(http:\/\/localhost:\d+)\/q\/graphql-ui/);
    await server.waitFor(/server started/);
    const baseUrl = ui[1] ?? '';
    expect(server.output()).toContain('demo events not loaded');
    expect(server.output()).not.toMatch(/migration applied/);
    const list = await graphqlData(baseUrl, '{ getWorkflowInstances { id } }');
    expect(list).toEqual({ getWorkflowInstances: DEMO_INSTANCES.map((id) => ({ id })) });
    const metrics = await (await fetch(`${baseUrl}/q/metrics`)).text();
    // Label order is the metrics module's business: match the sample whatever the order.
    expect(metrics).toMatch(/^workflow_index_raw_events\{[^}]*store="workflow"[^}]*\} 38$/m);
    expect(metrics).toMatch(/^workflow_index_raw_events\{[^}]*store="task"[^}]*\} 49$/m);
    expect(metrics).toMatch(/^workflow_index_instances\{[^}]*\} 9$/m);
    expect(await stop(server)).toBe(0);
  });

  it('starts a database that holds only an old demo over, with a demo placed before the start; keeps one with other runs', async () => {
    const stale = join(dir, 'stale');
    const kept = join(dir, 'kept');
    const twoHoursAgo = Date.now() - 2 * 3600_000;
    await prepareDemo(stale, twoHoursAgo, false);
    await prepareDemo(kept, twoHoursAgo, true);

    const server = startMain(env(stale), [], 60_000);
    started.push(server);
    const ui = await server.waitFor(/GraphQL UI\s+(http:\/\/localhost:\d+)\/q\/graphql-ui/);
    await server.waitFor(/server started/);
    expect(server.output()).toContain('holds only a demo placed more than an hour ago: starting it over');
    const base = loggedDemoBaseMs(server.output());
    expect(base).toBeGreaterThan(twoHoursAgo + 3600_000);
    expect(await demoFreshness(ui[1] ?? '', base)).toEqual(expectedDemoFreshness());
    expect(await stop(server)).toBe(0);

    const other = startMain(env(kept), [], 60_000);
    started.push(other);
    const otherUi = await other.waitFor(/GraphQL UI\s+(http:\/\/localhost:\d+)\/q\/graphql-ui/);
    await other.waitFor(/server started/);
    expect(other.output()).toContain('demo events not loaded');
    const ids = await graphqlData<{ getWorkflowInstances: { id: string }[] }>(otherUi[1] ?? '', '{ getWorkflowInstances { id } }');
    expect(ids.getWorkflowInstances.map((r) => r.id)).toContain(OWN_RUN);
    expect(await stop(other)).toBe(0);
  });

  it('rejects an unknown --dev-services value, listing the problem', async () => {
    const server = startMain(env(), ['--dev-services=vm'], 60_000);
    started.push(server);
    expect(await server.exited).toBe(2);
    expect(server.output()).toContain('DEV_SERVICES must be one of embedded, container, got "vm"');
  });
});

describe.skipIf(containerRuntime)('development mode with --dev-services=container, where no container engine exists', () => {
  it('fails fast with a message that says what to do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wi-dev-container-'));
    try {
      const began = performance.now();
      const server = startMain({ NODE_ENV: 'development', HTTP_PORT: '0', DEV_DATA_DIR: join(dir, 'pglite') }, ['--dev-services=container'], 60_000);
      expect(await server.exited).toBe(1);
      expect(performance.now() - began).toBeLessThan(20_000);
      const output = server.output();
      expect(output).toContain('--dev-services=container needs a running Docker engine (or Podman / another runtime testcontainers supports), but none was found');
      expect(output).toContain('Could not find a working container runtime strategy');
      expect(output).toContain('use the embedded database (DEV_SERVICES=embedded, the default), or point DATABASE_URL at a PostgreSQL server');
      expect(existsSync(join(dir, 'pglite'))).toBe(false); // nothing embedded was started instead
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
