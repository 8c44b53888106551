// Least privilege, proven on a real node with the security plugin: the roles platform teams apply
// (kustomize/overlays/opensearch/security/roles.json, through apply.sh beside it, exactly as docs/deployment.md says)
// let each of our components do its work and nothing else:
//   admin       init-job opensearch-setup (twice: created, then unchanged), status, prune --dry-run
//   fluent-bit  Fluent Bit's _bulk into the daily raw indices; no other write, no read, no template
//   normalizer  the production normalizer process (raw -> normalized), retention deleting a processed raw index; no
//               raw write, no template, pipeline or index deletion outside the raw indices
//   server      the production server (GraphQL with run histories, readiness, /q/metrics); no raw document, no write
// The node is OpenSearch 3.4.0 with security 3.4.0.0 (the newest plugin Maven Central serves; the bundle pins 3.8.0):
// test/support/secure-node.ts starts it on 127.0.0.1:9201 for this file and stops it at the end. It is this suite's
// alone, so the production index names are used, without a test prefix.
import type { Client } from '@opensearch-project/opensearch';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_EVENTS, graphqlData, runInit, type ServerProcess, startNodeScript, stop } from '@workflow-index/testkit';
import { writeEventLines } from '../src/fluent-bit-bulk.js';
import { OpenSearchNormalizer } from '../src/normalizer-job.js';
import { eventLines, RECORD_TIME_MS } from './support/normalized-store.js';
import { type Credentials, type SecureNode, secureNodeAvailable, startSecureNode } from './support/secure-node.js';
import { freePort } from '@workflow-index/testkit';

const available = secureNodeAvailable();
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SECURITY_DIR = join(REPO_ROOT, 'kustomize', 'overlays', 'opensearch', 'security');
const SERVER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const NORMALIZER_MAIN = fileURLToPath(new URL('../src/normalizer-main.ts', import.meta.url));
const COMPONENTS = ['admin', 'server', 'normalizer', 'fluent-bit'] as const;
type Component = (typeof COMPONENTS)[number];
const DAY_MS = 86_400_000;
const RAW = ['workflow-instance-events-raw', 'task-execution-events-raw'] as const;

/** Index names of a record time, as Fluent Bit's Logstash_Format makes them. */
function dayIndices(recordTimeMs: number): string[] {
  const day = new Date(recordTimeMs).toISOString().slice(0, 10).replaceAll('-', '.');
  return RAW.map((raw) => `${raw}-${day}`);
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** The HTTP status and body of a request, whatever the status. */
async function ask(client: Client, method: string, path: string, body?: unknown, bulk?: readonly unknown[]): Promise<Answer> {
  const params = bulk === undefined ? { method, path, ...(body === undefined ? {} : { body: body as Record<string, unknown> }) } : { method, path, bulkBody: bulk as Record<string, unknown>[] };
  const response = await client.transport.request(params, { ignore: [400, 401, 403, 404, 405, 409, 500] });
  return { status: response.statusCode ?? 0, body: response.body };
}

/** A bulk whose every item is refused (the plugin answers 403 for the request or per item): nothing is written. */
async function expectBulkRefused(client: Client, lines: readonly unknown[]): Promise<void> {
  const answer = await ask(client, 'POST', '/_bulk', undefined, lines);
  if (answer.status === 403) return;
  expect(answer.status).toBe(200);
  const items = (answer.body as { items: Record<string, { status: number }>[] }).items;
  expect(items.map((item) => Object.values(item)[0]!.status)).toEqual(items.map(() => 403));
}

function runApply(node: SecureNode, passwordDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(SECURITY_DIR, 'apply.sh')], {
      env: {
        PATH: process.env['PATH'] ?? '',
        OPENSEARCH_URL: node.url,
        OPENSEARCH_SECURITY_ADMIN: node.admin.username,
        OPENSEARCH_SECURITY_ADMIN_PASSWORD: node.admin.password,
        OPENSEARCH_CA_FILE: node.caFile,
        PASSWORD_DIR: passwordDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

async function until<T>(what: () => string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.skipIf(!available)('least privilege: the shipped OpenSearch roles on a secured node (OpenSearch 3.4.0 + security 3.4.0.0)', () => {
  let node: SecureNode;
  let passwordDir: string;
  const users = {} as Record<Component, Credentials>;
  const clients = {} as Record<Component | 'security', Client>;
  const processes: ServerProcess[] = [];
  const envOf = (component: Component): Record<string, string> => node.connectionEnv(users[component]);
  // Record times of the events Fluent Bit sends: a fixed old day (re-delivered lines land in old-dated indices) and today.
  const oldDay = RECORD_TIME_MS;
  const today = Date.now();
  const rawIndices = [...dayIndices(oldDay), ...dayIndices(today)];
  const lines = eventLines(CONFORMANCE_EVENTS);

  beforeAll(async () => {
    node = await startSecureNode();
    console.log(`[least-privilege] secured node green ${node.startSeconds.toFixed(1)} s after launch`);
    passwordDir = mkdtempSync(join(tmpdir(), 'wi-least-privilege-'));
    for (const component of COMPONENTS) {
      // The plugin refuses weak passwords; these are fresh for every run.
      const password = `Wi-${component}-${randomBytes(12).toString('base64url')}-9!`;
      writeFileSync(join(passwordDir, `${component}.password`), `${password}\n`);
      users[component] = { username: `workflow-index-${component}`, password };
    }
    const applied = await runApply(node, passwordDir);
    expect(applied.code, applied.output).toBe(0);
    for (const component of COMPONENTS) clients[component] = node.client(users[component]);
    clients.security = node.client(node.admin);
  }, 900_000);

  // A failed test must not leave its process running (the normalizer would keep the lease).
  afterEach(async () => {
    for (const child of processes.splice(0)) await stop(child);
  });

  afterAll(async () => {
    for (const client of Object.values(clients ?? {})) await client.close().catch(() => undefined);
    if (passwordDir !== undefined) rmSync(passwordDir, { recursive: true, force: true });
    await node?.stop();
  }, 120_000);

  it('apply.sh puts the four roles, their mappings and the users; a rerun only updates; each user holds its role', async () => {
    const again = await runApply(node, passwordDir);
    expect(again.code, again.output).toBe(0);
    const statuses = again.output.trim().split('\n').map((line) => line.split(': ')[1]);
    expect(statuses).toHaveLength(4 + 4 + 4);
    expect(new Set(statuses)).toEqual(new Set(['OK']));
    for (const component of COMPONENTS) {
      const info = await ask(clients[component], 'GET', '/_plugins/_security/authinfo');
      expect(info.status).toBe(200);
      expect((info.body as { roles: string[] }).roles).toEqual([`workflow_index_${component.replace('-', '_')}`]);
    }
  });

  it('admin: init-job opensearch-setup creates every object, a rerun finds them unchanged; status and prune --dry-run work', async () => {
    const setup = await runInit(['opensearch-setup', '--wait-timeout', '30'], envOf('admin'));
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stderr).toMatch(/opensearch setup done: 11 created, 0 updated, 0 unchanged/);
    const rerun = await runInit(['opensearch-setup', '--wait-timeout', '30'], envOf('admin'));
    expect(rerun.code, rerun.stdout + rerun.stderr).toBe(0);
    expect(rerun.stderr).toMatch(/opensearch setup done: 0 created, 0 updated, 11 unchanged/);
    const status = await runInit(['status', '--backend', 'opensearch', '--wait-timeout', '30'], envOf('admin'));
    expect(status.code, status.stdout + status.stderr).toBe(0);
    const prune = await runInit(['prune', '--backend', 'opensearch', '--dry-run', '--wait-timeout', '30'], envOf('admin'));
    expect(prune.code, prune.stdout + prune.stderr).toBe(0);
  }, 180_000);

  it("fluent-bit: Fluent Bit's bulk creates the daily raw indices and their documents; every other write, any read and any template change is refused", async () => {
    const fluentBit = clients['fluent-bit'];
    const records = lines.map((line, i) => ({ line, recordTimeMs: (i % 2 === 0 ? oldDay : today) + i }));
    const written = await writeEventLines(fluentBit, records);
    expect(written.items.filter((item) => item.status !== 201)).toEqual([]);
    expect(new Set(written.items.map((item) => item.index))).toEqual(new Set(rawIndices));
    // A retried flush: 409 per item, nothing duplicated (Generate_ID).
    const retried = await writeEventLines(fluentBit, records.slice(0, 10));
    expect(retried.items.map((item) => item.status)).toEqual(retried.items.map(() => 409));

    const someRaw = written.items[0]!;
    expect((await ask(fluentBit, 'POST', '/workflow-instances/_doc', { id: 'x' })).status).toBe(403);
    await expectBulkRefused(fluentBit, [{ create: { _index: 'task-executions', _id: 'x' } }, { id: 'x' }]);
    await expectBulkRefused(fluentBit, [{ index: { _index: 'workflow-index-normalizer', _id: 'checkpoint' } }, { kind: 'checkpoint' }]);
    expect((await ask(fluentBit, 'POST', `/${RAW[0]}-*/_search`, { query: { match_all: {} } })).status).toBe(403);
    expect((await ask(fluentBit, 'POST', '/_search', { query: { match_all: {} } })).status).toBe(403);
    expect((await ask(fluentBit, 'GET', `/${someRaw.index}/_doc/${someRaw.id}`)).status).toBe(403);
    expect((await ask(fluentBit, 'PUT', '/_index_template/wi-intruder', { index_patterns: ['workflow-instances'] })).status).toBe(403);
    expect((await ask(fluentBit, 'DELETE', `/${someRaw.index}`)).status).toBe(403);
    expect((await ask(fluentBit, 'PUT', '/workflow-index-intruder')).status).toBe(403);
  }, 120_000);

  it('normalizer: the production normalizer turns the raw events into the normalized documents; it may not write raw events or change templates, pipelines or other indices', async () => {
    const port = await freePort();
    const normalizer = startNodeScript(
      NORMALIZER_MAIN,
      { ...envOf('normalizer'), NORMALIZER_HTTP_PORT: String(port), NORMALIZER_INTERVAL_MS: '200' },
      { defaultWaitMs: 60_000, killAfterMs: 170_000 },
    );
    processes.push(normalizer);
    const admin = clients.admin;
    const instances = await until(() => `the normalized instances; normalizer output:\n${normalizer.output()}`, async () => {
      // A refused request shows as a failed cycle (warn) at once: no need to wait for the timeout.
      if (/"level":"(warn|error)"/.test(normalizer.output())) throw new Error(`the normalizer failed:\n${normalizer.output()}`);
      // Quiescent: every raw event counted by the normalizer's own metric, which a cycle raises after its writes;
      // so read it first, then refresh and count (counted the other way round, a cycle ending in between passed).
      const metrics = await fetch(`http://127.0.0.1:${port}/q/metrics`).then((r) => r.text(), () => '');
      const processed = Number(/^workflow_index_normalizer_raw_events_total (\d+)/m.exec(metrics)?.[1] ?? 0);
      if (processed !== lines.length) return undefined;
      await ask(admin, 'POST', '/workflow-instances,task-executions/_refresh');
      const count = await ask(admin, 'POST', '/workflow-instances/_count');
      const n = (count.body as { count?: number }).count ?? 0;
      return n > 0 ? n : undefined;
    }, 120_000);
    expect(instances).toBeGreaterThan(100);
    const suspended = await ask(admin, 'GET', '/workflow-instances/_doc/conformance-suspended');
    expect((suspended.body as { _source?: { status?: string } })._source?.status).toBe('SUSPENDED');
    const ready = await fetch(`http://127.0.0.1:${port}/q/health/ready`);
    expect(ready.status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/q/metrics`)).text();
    expect(metrics).toMatch(/^workflow_index_normalizer_failed_cycles_total 0$/m);
    expect(metrics).toMatch(/^workflow_index_normalizer_active 1$/m);
    expect(await stop(normalizer)).toBe(0);
    expect(normalizer.output()).not.toMatch(/"level":"(warn|error)"/);

    const client = clients.normalizer;
    const [workflowRaw] = dayIndices(today);
    expect((await ask(client, 'POST', `/${workflowRaw}/_doc`, { eventType: 'x' })).status).toBe(403);
    await expectBulkRefused(client, [{ create: { _index: workflowRaw } }, { eventType: 'x' }]);
    expect((await ask(client, 'PUT', `/${RAW[1]}-2030.01.01`)).status).toBe(403);
    expect((await ask(client, 'PUT', '/_index_template/workflow-instance-events-raw-template', { index_patterns: [`${RAW[0]}-*`] })).status).toBe(403);
    expect((await ask(client, 'PUT', '/_ingest/pipeline/workflow-events-raw-pipeline', { processors: [] })).status).toBe(403);
    expect((await ask(client, 'DELETE', '/workflow-instances')).status).toBe(403);
    expect((await ask(client, 'PUT', '/workflow-instances/_mapping', { properties: { intruder: { type: 'keyword' } } })).status).toBe(403);
    expect((await ask(client, 'PUT', '/_plugins/_security/api/roles/wi-intruder', { cluster_permissions: ['*'] })).status).toBe(403);
  }, 180_000);

  it('server: the production server answers GraphQL, readiness and /q/metrics; it may not read raw documents or write anything', async () => {
    const server = startNodeScript(
      SERVER_MAIN,
      { ...envOf('server'), NODE_ENV: 'production', HTTP_PORT: '0', HEALTH_DISK_MIN_FREE_BYTES: '0' },
      { defaultWaitMs: 60_000, killAfterMs: 170_000 },
    );
    processes.push(server);
    const port = Number((await server.waitFor(/"httpPort":(\d+)[^\n]*server started/))[1]);
    const base = `http://127.0.0.1:${port}`;
    const ready = await fetch(`${base}/q/health/ready`);
    expect(ready.status, await ready.text()).toBe(200);
    const data = await graphqlData<{ getWorkflowInstances: { id: string }[]; getWorkflowInstance: { status: string; events: { accepted: boolean; data: string | null }[] } | null }>(
      base,
      '{ getWorkflowInstances(limit: 3, orderBy: {id: ASC}) { id taskExecutions { id } } getWorkflowInstance(id: "conformance-suspended") { id status events { accepted data } } }',
    );
    expect(data.getWorkflowInstances).toHaveLength(3);
    expect(data.getWorkflowInstance?.status).toBe('SUSPENDED');
    // Its event history: the event store and the ingest-error records, which the server reads (no raw index).
    expect(data.getWorkflowInstance?.events.length).toBeGreaterThan(1);
    expect(data.getWorkflowInstance?.events.every((e) => e.accepted && e.data !== null)).toBe(true);
    const metrics = await (await fetch(`${base}/q/metrics`)).text();
    expect(metrics).toMatch(/^workflow_index_raw_events\{store="task"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^workflow_index_raw_events\{store="workflow"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^workflow_index_instances(?:\{[^}]*\})? [1-9]/m);
    expect(await stop(server)).toBe(0);
    // The one warning a production server without sign-in gives at start-up (AUTH_MODE=none) is expected.
    const output = server.output().split('\n').filter((line) => !line.includes('"msg":"AUTH_MODE is none'));
    expect(output.join('\n')).not.toMatch(/"level":(40|50|"warn"|"error")/);

    const client = clients.server;
    const [workflowRaw, taskRaw] = dayIndices(today);
    for (const index of [workflowRaw, `${RAW[1]}-*`, 'workflow-index-normalizer']) {
      expect((await ask(client, 'POST', `/${index}/_search`, { query: { match_all: {} } })).status, `search ${index}`).toBe(403);
    }
    expect((await ask(client, 'POST', `/${taskRaw}/_count`)).status).toBe(403);
    const rawDoc = await ask(clients.admin, 'POST', `/${workflowRaw}/_search`, { size: 1 });
    const rawId = (rawDoc.body as { hits: { hits: { _id: string }[] } }).hits.hits[0]!._id;
    expect((await ask(client, 'GET', `/${workflowRaw}/_doc/${rawId}`)).status).toBe(403);
    expect((await ask(client, 'POST', `/${workflowRaw}/_mget`, { ids: [rawId] })).status).toBe(403);
    expect((await ask(client, 'POST', '/_search', { query: { match_all: {} } })).status).toBe(403);
    expect((await ask(client, 'POST', '/workflow-instances/_doc', { id: 'x' })).status).toBe(403);
    expect((await ask(client, 'DELETE', '/workflow-instances/_doc/conformance-suspended')).status).toBe(403);
    expect((await ask(client, 'POST', '/task-executions/_update/x', { doc: { status: 'x' }, doc_as_upsert: true })).status).toBe(403);
    await expectBulkRefused(client, [{ index: { _index: 'workflow-instances', _id: 'x' } }, { id: 'x' }]);
    await expectBulkRefused(client, [{ create: { _index: workflowRaw } }, { eventType: 'x' }]);
    expect((await ask(client, 'PUT', '/workflow-instances/_settings', { index: { refresh_interval: '5s' } })).status).toBe(403);
    expect((await ask(client, 'DELETE', '/workflow-instances')).status).toBe(403);
    expect((await ask(client, 'PUT', '/_index_template/wi-intruder', { index_patterns: ['x-*'] })).status).toBe(403);
  }, 180_000);

  it('normalizer: retention deletes the raw indices past the horizon whose events are normalized, and keeps one that holds an event not normalized yet', async () => {
    // A late line of an earlier day lands in a new old-dated index, after everything else was normalized.
    const lateDay = oldDay - DAY_MS;
    const [lateIndex] = dayIndices(lateDay);
    const late = await writeEventLines(clients['fluent-bit'], [{ line: lines[0]!, recordTimeMs: lateDay }]);
    expect(late.items.map((item) => [item.index, item.status])).toEqual([[lateIndex, 201]]);
    await ask(clients.admin, 'POST', `/${lateIndex}/_refresh`);

    // A cycle with the default late window: its late-arrival count runs with the normalizer's role too.
    const auditing = new OpenSearchNormalizer({ client: clients.normalizer, holder: 'least-privilege-test', overlapMs: 1000 });
    expect(await auditing.acquire()).toBe(true);
    expect((await auditing.cycle()).newRawEvents).toBeGreaterThan(0);
    await auditing.release();
    // The checkpoint stands at the late event: with a 1 s overlap (and no late window beyond it, which would keep
    // every index written in its last two minutes) the earlier indices are behind it, the late one is not.
    const normalizer = new OpenSearchNormalizer({ client: clients.normalizer, holder: 'least-privilege-test', overlapMs: 1000, lateWindowMs: 1000 });
    expect(await normalizer.acquire()).toBe(true);
    await normalizer.cycle();
    // Eight days from now every raw index of this run is older than the default seven-day horizon.
    const result = await normalizer.retention(Date.now() + 8 * DAY_MS);
    expect(result.raw.deleted.map((d) => d.index).sort()).toEqual([...rawIndices].sort());
    expect(result.raw.decisions.filter((d) => d.action === 'keep').map((d) => [d.index, d.reason.replace(/ \(.*/, '')])).toEqual([[lateIndex, 'holds events the normalizer has not processed yet']]);
    const left = await ask(clients.admin, 'GET', `/${RAW[0]}-*,${RAW[1]}-*/_settings`);
    expect(Object.keys(left.body as object)).toEqual([lateIndex]);

    // The admin's retention commands over existing raw indices (refresh, settings, search) work too.
    const prune = await runInit(['prune', '--backend', 'opensearch', '--dry-run', '--wait-timeout', '30'], envOf('admin'));
    expect(prune.code, prune.stdout + prune.stderr).toBe(0);
    expect(prune.stdout + prune.stderr).toContain(lateIndex);
  }, 120_000);
});
