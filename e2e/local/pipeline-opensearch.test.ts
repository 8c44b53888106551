// The whole OpenSearch pipeline on this machine, the twin of pipeline.test.ts (PostgreSQL):
//   workflow app stdout ──container runtime──> CRI log file (a >16 KiB line split P/P/F, ordinary log lines)
//   ──Fluent Bit (the model driven by fluent-bit/opensearch)──> `_bulk` requests as its opensearch outputs send them
//   ──> the real node
//   (raw daily indices through the ingest pipeline) ──`npm run normalize:opensearch`, a child process──> normalized
//   indices ──`npm run serve:opensearch`, a production-mode child process──> GraphQL over HTTP.
// The objects come from `init-job opensearch-setup` (spawned). Mid-stream the forwarder restarts (a new process of
// the model on the node's tail position database, tail-input.ts): it sends the chunk its filesystem buffer kept and
// reads on from the stored offset, nothing re-read, lost or doubled. The normalizer is restarted too: it continues
// from its checkpoint. Then a forwarder whose position database is lost re-sends the file from its head: every
// document it sent already is refused as a conflict (Generate_ID gives the same id to the same record and time).
// Everything lives under a random index prefix, removed afterwards.
import { Client } from '@opensearch-project/opensearch';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENSEARCH_URL, openSearchReachable } from '@workflow-index/opensearch/testing';
import { type BulkRequest, NodeLogs, TailDatabase, type TailRun, bulkRequests, createPipeline, loadFluentBitConfig, startTail } from '@workflow-index/fluent-bit';
import { openSearchEnvironment } from '@workflow-index/fluent-bit/testing';
import { podLogPath, criLogFile, graphqlData } from '@workflow-index/testkit';
import { eventsOf, workflowAppOutput } from '../support/workflow-app-output.js';
import { EXPECTED_RAW_ROWS } from '../support/expected-index.js';
import { expectServedIndexMatches, readServedIndex, waitForServedIndex } from '../support/index-assertions.js';
import { sendBulkRequests } from '../support/opensearch-forwarder.js';
import { SOURCE_NODE_ARGS, runProcess } from '../support/processes.js';
import { type ServiceProcess, startService } from '../support/service-processes.js';

const available = await openSearchReachable();

const PREFIX = `wi-e2e-${randomBytes(4).toString('hex')}-`;
const node = new URL(OPENSEARCH_URL);
const OPENSEARCH_ENV = {
  OPENSEARCH_HOST: node.hostname,
  OPENSEARCH_PORT: node.port || '9200',
  OPENSEARCH_PROTOCOL: node.protocol.replace(':', ''),
  WI_OPENSEARCH_INDEX_PREFIX: PREFIX,
};
const POD = 'order-app-5d8f7c9b6-x2x7q';
const CONTAINER_LOG = podLogPath(POD, 'workflows', 'app');
const CHUNK = 10;

describe.skipIf(!available)('local pipeline: app stdout → Fluent Bit routing → OpenSearch bulk → normalizer → GraphQL server', () => {
  const app = workflowAppOutput();
  const events = eventsOf(app);
  // The app prints the first half, the forwarder ships it (but crashes before its last chunk), the app prints
  // the rest, and a forwarder without tail position ships the whole file again.
  const cut = Math.floor(app.length / 2);
  const { config, parsers } = loadFluentBitConfig('opensearch');
  /** A Fluent Bit process: its filters' state starts empty. */
  const newPipeline = () => createPipeline({
    config,
    parsers,
    env: openSearchEnvironment(),
    podMetadata: () => ({ podId: '6a1f0c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b', labels: { app: 'order-app' }, host: 'node-1', containerImage: 'acme/order-app:1.0.0' }),
  });
  const pipeline = newPipeline();
  // The node's log files and the tail position database on its disk (a hostPath: it outlives every process).
  const nodeLogs = new NodeLogs();
  const tailDatabase = new TailDatabase();

  let client: Client;
  let normalizer: ServiceProcess | undefined;
  let server: ServiceProcess | undefined;
  let baseUrl: string;
  let sentBeforeRestart: BulkRequest[] = [];
  let backlog: BulkRequest[] = [];

  /** What one forwarder process reads now (from its positions), as the opensearch outputs send it. */
  const forward = (run: TailRun): BulkRequest[] => bulkRequests(pipeline, run.read().flatMap((r) => r.delivered), { maxRecordsPerChunk: CHUNK, indexPrefix: PREFIX });
  const count = async (indices: string): Promise<number> => {
    await client.transport.request({ method: 'POST', path: `/${indices}/_refresh`, querystring: { allow_no_indices: 'true', ignore_unavailable: 'true' } });
    const response = await client.transport.request({ method: 'GET', path: `/${indices}/_count`, querystring: { allow_no_indices: 'true', ignore_unavailable: 'true' } });
    return (response.body as { count: number }).count;
  };
  const counts = async () => ({
    raw: await count(`${PREFIX}workflow-instance-events-raw-*,${PREFIX}task-execution-events-raw-*`),
    errors: await count(`${PREFIX}workflow-index-ingest-errors`),
  });
  const startNormalizer = () => startService(join('server', 'opensearch', 'src', 'normalizer-main.ts'), { ...OPENSEARCH_ENV, NORMALIZER_INTERVAL_MS: '500', LOG_LEVEL: 'warn' }, { portVariable: 'NORMALIZER_HTTP_PORT' });

  beforeAll(() => {
    client = new Client({ node: OPENSEARCH_URL });
  });

  afterAll(async () => {
    await server?.stop();
    await normalizer?.stop();
    if (client) {
      await client.transport.request({ method: 'DELETE', path: `/${PREFIX}*`, querystring: { allow_no_indices: 'true', expand_wildcards: 'all' } }, { ignore: [404] });
      await client.transport.request({ method: 'DELETE', path: `/_index_template/${PREFIX}*` }, { ignore: [404] });
      await client.transport.request({ method: 'DELETE', path: `/_ingest/pipeline/${PREFIX}*` }, { ignore: [404] });
      await client.close();
    }
  });

  it('creates the raw templates and pipeline, the normalized indices and the two jobs with `init-job opensearch-setup`', async () => {
    const result = await runProcess([...SOURCE_NODE_ARGS, 'init-job/src/main.ts', 'opensearch-setup', '--wait-timeout=30'], OPENSEARCH_ENV, 90_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`index template ${PREFIX}workflow-instance-events-raw-template: created`);
    expect(result.stdout).toContain(`index ${PREFIX}workflow-instances: created`);
    expect(result.stdout).toContain('normalization job workflow-instance-transform: created');
    expect(result.stdout).toContain('normalization job task-execution-transform: created');
  }, 120_000);

  it('starts the normalizer and the production server, both ready, serving nothing yet', async () => {
    normalizer = await startNormalizer();
    server = await startService(join('server', 'opensearch', 'src', 'main.ts'), { ...OPENSEARCH_ENV, NODE_ENV: 'production', HTTP_HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, { portVariable: 'HTTP_PORT' });
    baseUrl = server.baseUrl;
    const ready = await fetch(`${server.baseUrl}/q/health/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe('UP');
    expect(await readServedIndex(baseUrl)).toEqual({ instances: [], tasks: [] });
  }, 180_000);

  it('serves what the forwarder shipped of the first half, and nothing of the rest', async () => {
    nodeLogs.append(CONTAINER_LOG, criLogFile(app.slice(0, cut)).content);
    const flushes = forward(startTail(newPipeline(), nodeLogs, tailDatabase));
    // The forwarder is killed before it could flush its last chunk, which waits in its filesystem buffer.
    sentBeforeRestart = flushes.slice(0, -1);
    backlog = flushes.slice(-1);
    const outcome = await sendBulkRequests(client, sentBeforeRestart);
    const shipped = sentBeforeRestart.reduce((n, f) => n + f.items.length, 0);
    expect(outcome).toEqual({ created: shipped, conflicts: 0, failed: [] });

    const started = [...new Set(sentBeforeRestart.flatMap((f) => f.items.map((i) => i.record))
      .filter((r) => String(r.record['eventType']).endsWith('.workflow.started.v1'))
      .map((r) => String(r.record['instanceId'])))].sort();
    expect(started.length).toBeGreaterThan(0);
    // The normalizer works in cycles and backs off (up to 30 s) while fresh indices are not searchable yet on a busy
    // node: wait until it has served every started instance of what was shipped.
    const index = await waitForServedIndex(baseUrl, 120_000, (i) => i.instances.length >= started.length);
    expect(index.instances.map((i) => i.id), normalizer!.output()).toEqual(started);
    const notYet = events.find((e) => !started.includes(e.instanceId))!.instanceId;
    expect(await graphqlData(baseUrl, 'query ($id: ID!) { getWorkflowInstance(id: $id) { id } }', { id: notYet })).toEqual({ getWorkflowInstance: null });
    expect(await counts()).toEqual({ raw: shipped, errors: 0 });
  }, 180_000);

  it('after a forwarder restart, which sends its buffered chunk and reads on from its stored offset (and a normalizer restart), serves every instance and task execution exactly once', async () => {
    expect(await normalizer!.stop()).toBe(0);
    const firstHalf = criLogFile(app.slice(0, cut)).content.length;
    nodeLogs.append(CONTAINER_LOG, criLogFile(app.slice(cut), { startMicros: 1_778_577_241_000_000 + 137 * cut }).content);
    const restarted = startTail(newPipeline(), nodeLogs, tailDatabase);
    const flushes = forward(restarted);
    expect(restarted.log).toEqual([]);
    expect(restarted.reads.map((r) => [r.name, r.from])).toEqual([[CONTAINER_LOG, firstHalf]]);
    const outcome = await sendBulkRequests(client, [...backlog, ...flushes]);
    const alreadySent = sentBeforeRestart.reduce((n, f) => n + f.items.length, 0);
    // Nothing is read twice: no document of the first run comes again.
    expect(outcome).toEqual({ created: EXPECTED_RAW_ROWS.workflow + EXPECTED_RAW_ROWS.task - alreadySent, conflicts: 0, failed: [] });
    expect(alreadySent).toBeGreaterThan(20);
    normalizer = await startNormalizer();

    const index = await waitForServedIndex(baseUrl, 120_000);
    expectServedIndexMatches(index, events);
    expect(await counts()).toEqual({ raw: EXPECTED_RAW_ROWS.workflow + EXPECTED_RAW_ROWS.task, errors: 0 });
  }, 180_000);

  it('after a restart that lost the position database, the re-sent file is refused document by document (conflicts), nothing served twice', async () => {
    const resent = forward(startTail(newPipeline(), nodeLogs, new TailDatabase()));
    const total = EXPECTED_RAW_ROWS.workflow + EXPECTED_RAW_ROWS.task;
    expect(await sendBulkRequests(client, resent)).toEqual({ created: 0, conflicts: total, failed: [] });
    expectServedIndexMatches(await waitForServedIndex(baseUrl, 120_000), events);
    expect(await counts()).toEqual({ raw: total, errors: 0 });
  }, 180_000);

  it('drains and exits 0 on SIGTERM (server and normalizer)', async () => {
    expect(await server!.stop()).toBe(0);
    server = undefined;
    expect(await normalizer!.stop()).toBe(0);
    normalizer = undefined;
  }, 60_000);
});
