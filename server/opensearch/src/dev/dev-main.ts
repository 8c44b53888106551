#!/usr/bin/env node
// `npm run start:opensearch`: development mode on OpenSearch, the same experience as `npm start`.
//   1. an OpenSearch node: the one OPENSEARCH_* names, else a container, else the pinned local distribution
//      (node-source.ts decides, dev-node.ts starts it and stops on exit what it started);
//   2. the schema: raw ingest pipeline and index templates, normalized, ingest-errors and normalizer-state indices
//      (the server-side code `opensearch-setup` runs too);
//   3. the normalizer, in this process, continuous (the jobs workflow-instance-transform and task-execution-transform);
//   4. the demo events through Fluent Bit's bulk shape into an empty node, waited for until normalized;
//   5. the GraphQL server and UI on 127.0.0.1:8080 (HTTP_PORT), development mode.
// Ctrl-C (SIGINT), SIGTERM and a failed start all run the same shutdown, in reverse order, so no JVM or container
// outlives this process. WI_OPENSEARCH_INDEX_PREFIX puts every object under a prefix (tests on a shared node).
// Exit codes: 0 after a shutdown on a signal, 1 when start-up fails.
import type { Client } from '@opensearch-project/opensearch';
import { applyRawSchema } from '../apply-raw-schema.js';
import { OpenSearchNormalizer } from '../normalizer-job.js';
import { openSearchClient } from '../opensearch-connection-settings.js';
import { DEFAULT_DEMO_EVENTS, loadDemoEventsIfEmpty, waitForNormalized } from './demo-events.js';
import { type DevNode, DevNodeError, machineProbes, startDevNode } from './dev-node.js';
import { startDevServer } from './dev-server.js';
import { chooseNodeSource } from './node-source.js';

const env = process.env;
const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const shutdownSteps: Array<{ name: string; run: () => Promise<void> }> = [];
let node: DevNode | undefined;
/** The node's start while it is under way: a shutdown then waits for it (it stops a half-started JVM itself). */
let nodeStarting: Promise<DevNode> | undefined;
let shuttingDown: Promise<void> | undefined;
const interrupted = new AbortController();

async function shutdown(reason: string, exitCode: number): Promise<void> {
  shuttingDown ??= (async () => {
    log(`stopping (${reason})`);
    interrupted.abort();
    await nodeStarting?.catch(() => undefined);
    for (const step of shutdownSteps.splice(0).reverse()) {
      try {
        await step.run();
      } catch (error) {
        log(`  ${step.name} failed to stop: ${(error as Error).message}`);
      }
    }
    process.exit(exitCode);
  })();
  return shuttingDown;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(signal, 0));
// Last resort should anything end the process without the shutdown above (an uncaught error): the local JVM.
process.on('exit', () => node?.stopNow());

async function waitForCluster(client: Client, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const health = await client.transport.request({ method: 'GET', path: '/_cluster/health' }, { requestTimeout: 5000, maxRetries: 0 });
      const status = (health.body as { status?: string }).status;
      if (status === 'green' || status === 'yellow') return;
      if (Date.now() > deadline) throw new Error(`cluster health is ${String(status)}`);
    } catch (error) {
      if (Date.now() > deadline) throw new DevNodeError(`OpenSearch does not answer within ${timeoutMs / 1000} s: ${(error as Error).message}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function main(): Promise<void> {
  const prefix = env['WI_OPENSEARCH_INDEX_PREFIX'] ?? '';
  log('Workflow Index development mode on OpenSearch');
  const choice = chooseNodeSource(env, machineProbes(env));
  if (choice.kind === 'missing') throw new DevNodeError(choice.message);
  log(`OpenSearch: ${choice.kind === 'configured' ? choice.settings.node : choice.kind === 'container' ? `container ${choice.image}` : `local distribution, Java ${choice.java.major} (${choice.java.path})`} — ${choice.reason}`);
  nodeStarting = startDevNode(choice, env, log, interrupted.signal);
  node = await nodeStarting;
  nodeStarting = undefined;
  const started = node;
  shutdownSteps.push({ name: 'OpenSearch', run: () => started.stop() });
  log(`OpenSearch ready: ${node.description}`);

  const client = openSearchClient(node.settings);
  shutdownSteps.push({ name: 'OpenSearch client', run: () => client.close() });
  await waitForCluster(client, 60_000);

  for (const result of await applyRawSchema(client, { prefix })) log(`  ${result.kind} ${result.name}: ${result.action}`);
  const normalizer = new OpenSearchNormalizer({
    client,
    prefix,
    holder: `dev-mode-${process.pid}`,
    logger: {
      info: () => undefined, // a line per cycle would drown the links; the metrics say it
      warn: (message, fields) => log(`normalizer: ${message} ${JSON.stringify(fields ?? {})}`),
    },
  });
  await normalizer.setup();
  log(`  indices ${Object.values(normalizer.names).join(', ')}: present`);
  const stopNormalizer = new AbortController();
  const running = normalizer.run(stopNormalizer.signal);
  shutdownSteps.push({
    name: 'normalizer',
    run: async () => {
      stopNormalizer.abort();
      await running;
    },
  });
  log('normalizer running in this process (jobs workflow-instance-transform, task-execution-transform)');

  const demoFile = env['DEV_DEMO_EVENTS'] ?? DEFAULT_DEMO_EVENTS;
  if (demoFile.toLowerCase() !== 'none') {
    const demo = await loadDemoEventsIfEmpty(client, demoFile, prefix);
    if (demo.status === 'loaded') {
      log(`demo events sent through Fluent Bit's bulk shape: ${demo.events} events (${demo.rejected} refused by the bulk API) from ${demoFile}, placed before ${new Date(demo.baseMs).toISOString()}`);
      const normalized = await waitForNormalized(client, normalizer, demo.events - demo.rejected, prefix, 120_000);
      log(`demo events normalized: ${normalized.events} of ${demo.events - demo.rejected} events, ${normalized.instances} of ${demo.instances} instances served`);
    } else {
      log(`demo events not loaded: ${demo.reason}`);
    }
  }

  const server = await startDevServer({ settings: node.settings, client, prefix, normalizer, env });
  shutdownSteps.push({ name: 'HTTP server', run: () => server.close() });
  log(['', 'Workflow Index (OpenSearch, development) is running:', ...server.links, '', 'Stop with Ctrl-C (stops what was started for this session).', ''].join('\n'));
}

main().catch(async (error: unknown) => {
  process.stderr.write(`start:opensearch: ${error instanceof DevNodeError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await shutdown('start-up failed', 1);
});
