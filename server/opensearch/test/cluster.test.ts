// The backend on a local 3-node OpenSearch cluster with one replica of every shard (support/test-cluster.ts; .ci/run
// starts it): the whole conformance suite, then one node killed with SIGKILL while events are delivered (as Fluent
// Bit's `_bulk` writes them, retried as Fluent Bit retries a failed flush) and normalized (the production loop), and
// brought back with `npm run opensearch -- start --nodes 3`. Every client is the production client given the three
// nodes as OPENSEARCH_HOST lists them. Afterwards the normalized documents equal a clean normalization of the same
// events (nothing lost, nothing twice), and a reader querying in a loop throughout never failed (a connection to the
// dead node is sent to another; a partial answer, shards failed, is sent again and never served). One file, so the kill never meets the conformance suite; no timing is asserted.
import type { Client } from '@opensearch-project/opensearch';
import { errors } from '@opensearch-project/opensearch';
import { runConformanceSuite } from '@workflow-index/testkit';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { runningPid } from '../src/local-node.js';
import { normalizedIndexNames } from '../src/normalized-indices.js';
import { OpenSearchNormalizer } from '../src/normalizer-job.js';
import { openSearchClient, openSearchConnectionSettings } from '../src/opensearch-connection-settings.js';
import { createOpenSearchReader } from '../src/reader/opensearch-reader.js';
import { applyOpenSearchSetup } from '../src/setup/opensearch-setup.js';
import { conformanceStoreOn } from './support/conformance-store.js';
import { generatedEventLines } from './support/generated-events.js';
import { flushUntilWritten } from './support/retried-flush.js';
import { loadNormalized, RECORD_TIME_MS } from './support/normalized-store.js';
import { openSearchState } from './support/opensearch-state.js';
import { CLUSTER_NODES, clusterMembers, clusterReachable, clusterUrls, startMissingMembers } from './support/test-cluster.js';
import { createTestNamespace, type TestNamespace } from './support/test-node.js';

const available = await clusterReachable();

describe.skipIf(!available)('conformance: OpenSearch, 3-node cluster, 1 replica', () => {
  runConformanceSuite({
    name: 'opensearch-cluster',
    executionsPerRequest: 2,
    setup: (events) => conformanceStoreOn(clusterUrls(), events),
  });
});

/** The production client on the cluster: OPENSEARCH_HOST as a comma list of the three nodes. */
function productionClient(): Client {
  const host = clusterUrls().map((url) => new URL(url).host).join(',');
  const { settings, problems } = openSearchConnectionSettings({ OPENSEARCH_HOST: host });
  if (settings === null) throw new Error(problems.join('; '));
  expect(settings.nodes).toEqual(clusterUrls());
  return openSearchClient(settings);
}

interface ShardRow {
  index: string;
  shard: string;
  prirep: string;
  state: string;
  node: string | null;
}

async function shards(client: Client, prefix: string): Promise<ShardRow[]> {
  const response = await client.transport.request({ method: 'GET', path: `/_cat/shards/${prefix}*`, querystring: { format: 'json', h: 'index,shard,prirep,state,node' } });
  return response.body as ShardRow[];
}

/** Sends `lines` as Fluent Bit flushes of `flush` lines; a flush that fails, or items that fail, are sent again. */
async function deliver(client: Client, prefix: string, lines: readonly string[], flush: number, onFlush: (index: number) => Promise<void>): Promise<{ retries: number }> {
  let retries = 0;
  for (let start = 0, index = 0; start < lines.length; start += flush, index++) {
    retries += await flushUntilWritten(client, lines.slice(start, start + flush).map((line, j) => ({ line, recordTimeMs: RECORD_TIME_MS + start + j })), prefix);
    await onFlush(index);
  }
  return { retries };
}

describe.skipIf(!available)('a node of the 3-node cluster killed with SIGKILL during delivery and normalization, then brought back', () => {
  const namespaces: TestNamespace[] = [];
  const clients: Client[] = [];

  afterAll(async () => {
    // Never leave the cluster short of a node, whatever happened above.
    if (clusterMembers().some((member) => runningPid(member.paths) === undefined)) await startMissingMembers(600_000);
    for (const client of clients) await client.close();
    for (const ns of namespaces) await ns.drop();
  }, 660_000);

  it('normalizes every event once and answers every query', async () => {
    const ns = createTestNamespace(clusterUrls());
    namespaces.push(ns);
    const [writer, normalizerClient, readerClient] = [productionClient(), productionClient(), productionClient()];
    clients.push(writer, normalizerClient, readerClient);
    await applyOpenSearchSetup(writer, { prefix: ns.prefix, layout: { shards: 2, replicas: 1 } });
    const names = normalizedIndexNames(ns.prefix);
    const before = await shards(writer, names.workflowInstances);
    expect(before.filter((s) => s.prirep === 'p')).toHaveLength(2);
    expect(before.filter((s) => s.prirep === 'r')).toHaveLength(2);

    const lines = generatedEventLines(300, 20_261_129);
    const normalizer = new OpenSearchNormalizer({ client: normalizerClient, prefix: ns.prefix, refresh: true, intervalMs: 200, maxBackoffMs: 2000 });
    const stopNormalizer = new AbortController();
    const normalizing = normalizer.run(stopNormalizer.signal);

    // The reader: every answer counted; a connection failure it sent again to another node, and a partial answer
    // (shards failed) it sent again, are seen on its client.
    const reader = createOpenSearchReader({ client: readerClient, prefix: ns.prefix });
    const seen = { answered: 0, failed: [] as string[], failovers: 0, partial: 0 };
    readerClient.on('response', (error, result) => {
      if (error instanceof errors.ConnectionError) seen.failovers++;
      const body = result?.body as { _shards?: { failed?: number }; responses?: { _shards?: { failed?: number } }[] } | undefined;
      for (const part of [body, ...(body?.responses ?? [])]) if ((part?._shards?.failed ?? 0) > 0) seen.partial++;
    });
    let reading = true;
    const readLoop = (async () => {
      for (let i = 0; reading; i++) {
        try {
          if (i % 3 === 0) await reader.listInstances({ filter: null, orderBy: [], limit: 20, offset: 0, payloads: true });
          else if (i % 3 === 1) await reader.countInstances(null, { exactLimit: 10_000 });
          else await reader.getInstance(`gen-${String(i % 300).padStart(3, '0')}`, { payloads: true, tasks: { payloads: true } });
          seen.answered++;
        } catch (error) {
          seen.failed.push((error as Error).message);
        }
        await sleep(20);
      }
    })();

    // Kill the node that holds a primary of the runs' index, a third of the way through the delivery.
    const flush = 40;
    const killAt = Math.floor(lines.length / flush / 3);
    let killed: { name: string; pid: number; answered: number } | undefined;
    const delivery = await deliver(writer, ns.prefix, lines, flush, async (index) => {
      // Paced, so that most of the delivery, its normalization and many queries fall in the time the node is down.
      await sleep(200);
      if (index !== killAt) return;
      const primary = (await shards(writer, names.workflowInstances)).find((s) => s.prirep === 'p' && s.state === 'STARTED');
      const member = clusterMembers().find((m) => m.member.nodeName === primary?.node);
      const pid = member === undefined ? undefined : runningPid(member.paths);
      if (member === undefined || pid === undefined) throw new Error(`no running member holds ${names.workflowInstances}'s primary (${JSON.stringify(primary)})`);
      process.kill(pid, 'SIGKILL');
      killed = { name: member.member.nodeName, pid, answered: seen.answered };
    });
    expect(killed).toBeDefined();
    const answeredWhileDown = seen.answered - (killed?.answered ?? 0);
    const restart = await startMissingMembers(600_000);
    expect(restart).toContain(`OpenSearch cluster of ${CLUSTER_NODES} nodes green`);

    reading = false;
    await readLoop;
    stopNormalizer.abort();
    await normalizing;
    // To quiescence after the cluster is whole again.
    expect(await normalizer.acquire()).toBe(true);
    for (let guard = 0; (await normalizer.cycle()).newRawEvents > 0; guard++) if (guard > 20) throw new Error('no quiescence in 20 cycles');

    const clean = createTestNamespace(clusterUrls());
    namespaces.push(clean);
    await loadNormalized(clean.client, clean.prefix, lines);
    const expected = await openSearchState(clean.client, normalizedIndexNames(clean.prefix));
    const actual = await openSearchState(writer, names);
    expect(actual.instances).toHaveLength(new Set(lines.map((l) => (JSON.parse(l) as { instanceId: string }).instanceId)).size);
    expect(actual).toEqual(expected);
    const rawCount = await writer.transport.request({ method: 'POST', path: `/${ns.prefix}*-events-raw-*/_count` });
    expect((rawCount.body as { count: number }).count).toBe(lines.length);

    console.log(
      `[cluster] killed ${killed?.name} (pid ${killed?.pid}) at flush ${killAt}; flushes retried ${delivery.retries}; ` +
        `queries answered ${seen.answered} (${answeredWhileDown} between the kill and the restart), failed ${seen.failed.length}, ` +
        `failed over to another node ${seen.failovers}, partial answers sent again ${seen.partial}`,
    );
    expect(seen.failed).toEqual([]);
    expect(seen.answered).toBeGreaterThan(0);
  }, 900_000);
});
