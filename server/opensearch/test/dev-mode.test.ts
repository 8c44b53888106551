// Development mode on OpenSearch end to end: dev-main.ts as a child process (what `npm run start:opensearch` runs)
// against the real local node (OPENSEARCH_* pointing at it, every object under a random prefix), on a free port:
// schema created, demo events sent through Fluent Bit's bulk shape and normalized by the in-process normalizer,
// GraphQL, UI and metrics served; Ctrl-C stops it with exit code 0 and leaves a node it did not start running; a
// restart keeps the data and loads nothing twice.
import { Client } from '@opensearch-project/opensearch';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localNodePaths, runningPid } from '../src/local-node.js';
import { localNodeDir } from '../src/dev/dev-node.js';
import { OPENSEARCH_URL, openSearchReachable } from './support/test-node.js';
import { demoRecordTimeMs } from '../src/dev/demo-events.js';
import { DEMO_INSTANCES, demoFreshness, expectedDemoFreshness, graphqlData, loggedDemoBaseMs } from '@workflow-index/testkit';
import { DEMO_REFERENCE_EVENTS, demoEventLines } from '@workflow-index/events';
import { readFileSync } from 'node:fs';

const available = await openSearchReachable();
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DEV_MAIN = fileURLToPath(new URL('../src/dev/dev-main.ts', import.meta.url));
const PREFIX = `wi-test-dev-${Math.random().toString(16).slice(2, 10)}-`;
const node = new URL(OPENSEARCH_URL);

/** ISO-8601 UTC with six fractional digits, `micros` after `ms`. */
const isoMicros = (ms: number, micros: number): string => new Date(ms + Math.floor(micros / 1000)).toISOString().replace(/\.(\d{3})Z$/, (_, m: string) => `.${m}${String(micros % 1000).padStart(3, '0')}Z`);

/** The daily raw indices Fluent Bit would write the demo of this base into, with their document counts. */
function expectedRawIndices(base: number): [string, string][] {
  const counts = new Map<string, number>();
  const reference = readFileSync(DEMO_REFERENCE_EVENTS, 'utf8').split('\n').filter((l) => l.trim() !== '');
  for (const line of demoEventLines(reference, base)) {
    const day = new Date(demoRecordTimeMs(line)).toISOString().slice(0, 10).replaceAll('-', '.');
    const store = (JSON.parse(line) as { eventType: string }).eventType.includes('.task.') ? 'task-execution' : 'workflow-instance';
    const name = `${PREFIX}${store}-events-raw-${day}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]): [string, string] => [name, String(n)]).sort();
}

interface DevProcess {
  readonly child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  readonly exited: Promise<number | null>;
}

const started: DevProcess[] = [];

function startDev(env: Record<string, string>): DevProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', DEV_MAIN], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', HTTP_PORT: '0', WI_OPENSEARCH_INDEX_PREFIX: PREFIX, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const dev: DevProcess = {
    child,
    output: () => output,
    exited,
    async waitFor(pattern, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}) before ${pattern} appeared:\n${output}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} in:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
  started.push(dev);
  return dev;
}

async function interrupt(dev: DevProcess): Promise<number | null> {
  if (dev.child.exitCode === null) dev.child.kill('SIGINT');
  return dev.exited;
}

const configured = { OPENSEARCH_HOST: node.hostname, OPENSEARCH_PORT: node.port || '9200', OPENSEARCH_PROTOCOL: node.protocol.replace(':', '') };

describe.skipIf(!available)('development mode on OpenSearch (npm run start:opensearch)', () => {
  let client: Client;
  beforeAll(() => {
    client = new Client({ node: OPENSEARCH_URL });
  });
  afterAll(async () => {
    for (const dev of started) {
      if (dev.child.exitCode === null) dev.child.kill('SIGKILL');
    }
    await client.transport.request({ method: 'DELETE', path: `/${PREFIX}*`, querystring: { allow_no_indices: 'true', expand_wildcards: 'all' } }, { ignore: [404] });
    await client.transport.request({ method: 'DELETE', path: `/_index_template/${PREFIX}*` }, { ignore: [404] });
    await client.transport.request({ method: 'DELETE', path: `/_ingest/pipeline/${PREFIX}*` }, { ignore: [404] });
    await client.close();
  });

  it('creates the schema, loads and normalizes the demo events, serves GraphQL, the UI and metrics, and stops on Ctrl-C', async () => {
    const dev = startDev(configured);
    const ui = await dev.waitFor(/GraphQL UI\s+(http:\/\/[^/\s]+)\/q\/graphql-ui/, 180_000);
    const baseUrl = ui[1]!;
    const output = dev.output();
    // The console's line first, as the PostgreSQL development mode prints it, and the console answers there.
    expect(output).toMatch(new RegExp(`is running:\\n  Console       ${baseUrl}/\\n  GraphQL UI    ${baseUrl}/q/graphql-ui\\n`));
    // 200, or 503 "run npm run build" in a checkout whose console is not built; never 404.
    expect([200, 503]).toContain((await fetch(`${baseUrl}/`)).status);
    expect(output).toContain(`OpenSearch: ${OPENSEARCH_URL.replace(/\/$/, '')} — OPENSEARCH_HOST is set`);
    expect(output).toContain(`ingest pipeline ${PREFIX}workflow-events-raw-pipeline: created`);
    expect(output).toContain(`index template ${PREFIX}workflow-instance-events-raw-template: created`);
    expect(output).toMatch(/demo events sent through Fluent Bit's bulk shape: 87 events \(0 refused by the bulk API\)/);
    expect(output).toContain('demo events normalized: 87 of 87 events, 9 of 9 instances served');
    // The demo is placed just before the start (the base, logged): every time below is relative to it.
    const base = loggedDemoBaseMs(output);
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/); // development mode listens on loopback

    // What the demo data is, as Fluent Bit would have written it: daily raw indices of the events' own day.
    const raw = await client.transport.request({ method: 'GET', path: `/_cat/indices/${PREFIX}*-events-raw-*`, querystring: { h: 'index,docs.count', format: 'json' } });
    expect((raw.body as { index: string; 'docs.count': string }[]).map((i) => [i.index, i['docs.count']]).sort()).toEqual(expectedRawIndices(base));

    expect(await graphqlData(baseUrl, '{ getWorkflowInstances { id } }')).toEqual({ getWorkflowInstances: DEMO_INSTANCES.map((id) => ({ id })) });
    expect(await demoFreshness(baseUrl, base)).toEqual(expectedDemoFreshness());
    expect(await graphqlData(baseUrl, `{ getWorkflowInstance(id: "01KRDQDZBS8TBDWA72Q1575QHY") {
      name namespace status startDate error { status title } taskExecutions { id status } } }`)).toEqual({
      getWorkflowInstance: {
        name: 'payment-capture', namespace: 'com.acme.billing', status: 'FAULTED', startDate: isoMicros(base - 5.5 * 3600_000, 38),
        error: { status: 503, title: 'Service Unavailable' }, taskExecutions: [
          { id: '01KRDQDZBS8TBDWA72Q1575QHY:do/0/loadInvoice', status: 'COMPLETED' },
          { id: '01KRDQDZBS8TBDWA72Q1575QHY:do/1/chargeCard', status: 'FAULTED' },
        ],
      },
    });
    const page = await fetch(`${baseUrl}/q/graphql-ui`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    expect((await fetch(`${baseUrl}/q/health/ready`)).status).toBe(200);
    const metrics = await (await fetch(`${baseUrl}/q/metrics`)).text();
    expect(metrics).toMatch(/^workflow_index_normalizer_raw_events_total\{backend="opensearch"\} 87$/m);
    expect(metrics).toMatch(/^workflow_index_normalizer_active\{backend="opensearch"\} 1$/m);

    expect(await interrupt(dev)).toBe(0);
    expect(dev.output()).toContain('stopping (SIGINT)');
    // The node named by OPENSEARCH_* is not ours to stop.
    expect((await fetch(`${OPENSEARCH_URL}/_cluster/health`)).status).toBe(200);
  }, 240_000);

  it('a restart keeps what is there and loads the demo events only once', async () => {
    const dev = startDev(configured);
    const ui = await dev.waitFor(/GraphQL UI\s+(http:\/\/[^/\s]+)\/q\/graphql-ui/, 180_000);
    expect(dev.output()).toContain('demo events not loaded: the node already holds workflow events');
    expect(dev.output()).toContain(`index template ${PREFIX}workflow-instance-events-raw-template: unchanged`);
    expect(await graphqlData(ui[1]!, '{ getWorkflowInstances { id } }')).toEqual({ getWorkflowInstances: DEMO_INSTANCES.map((id) => ({ id })) });
    const count = await client.transport.request({ method: 'GET', path: `/${PREFIX}*-events-raw-*/_count` });
    expect((count.body as { count: number }).count).toBe(87);
    dev.child.kill('SIGTERM');
    expect(await dev.exited).toBe(0);
  }, 240_000);

  // Only where the test node is the local distribution started from this checkout's .data/opensearch.
  const localNodeRuns = runningPid(localNodePaths(localNodeDir(process.env))) !== undefined && node.hostname === '127.0.0.1' && (node.port || '9200') === '9200';
  it.skipIf(!localNodeRuns)('without OPENSEARCH_*, uses the local node that already runs and leaves it running on exit', async () => {
    const pid = runningPid(localNodePaths(localNodeDir(process.env)));
    const dev = startDev({ DEV_OPENSEARCH_NODE: 'local' });
    await dev.waitFor(/GraphQL UI\s+(http:\/\/[^/\s]+)\/q\/graphql-ui/, 180_000);
    expect(dev.output()).toMatch(/OpenSearch: local distribution, Java \d+ \(.+\) — DEV_OPENSEARCH_NODE=local/);
    expect(dev.output()).toContain(`OpenSearch ready: the local node that already ran from ${localNodeDir(process.env)} (http://127.0.0.1:9200), left running on exit`);
    expect(await interrupt(dev)).toBe(0);
    expect(runningPid(localNodePaths(localNodeDir(process.env)))).toBe(pid);
  }, 240_000);

  const dockerAnswers = spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 15_000 }).status === 0;
  it.skipIf(dockerAnswers)('fails with exit code 1 and the reason when the requested way is impossible', async () => {
    const dev = startDev({ DEV_OPENSEARCH_NODE: 'container' });
    expect(await dev.exited).toBe(1);
    expect(dev.output()).toMatch(/start:opensearch: DEV_OPENSEARCH_NODE=container, but no Docker engine answers: .+\. Start Docker, or unset DEV_OPENSEARCH_NODE to run the local distribution\./);
  }, 60_000);
});
