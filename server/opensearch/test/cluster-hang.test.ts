// A node of the local 3-node cluster that HANGS (SIGSTOP) while it holds a primary of a raw index, with events
// delivered through another node the way Fluent Bit sends them (a flush every quarter second, each sent without
// waiting for the previous ones, failed items sent again) and the production normalizer loop running on the two
// live nodes; the node is resumed (SIGCONT) after 45 s. The ingest pipeline stamps `wi.ingest_time` on the node that
// received the bulk, before the write reaches its primary: the writes held by the hung primary become searchable only
// once fault detection has removed the node and a replica was promoted, with a stamp older than what the normalizer
// already saw. An observer lists the raw documents every half second and records, per document, when it became
// searchable against its stamp and against the normalizer's high-water mark at that moment. Afterwards the
// normalized documents must equal a clean normalization of the same events. No timing is asserted; the figures are
// printed. Runs only when WI_TEST_OPENSEARCH_HANG=1 (it takes about three minutes with the hang) besides the cluster.
import type { Client } from '@opensearch-project/opensearch';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { fluentBitDocument, writeEventLines } from '../src/fluent-bit-bulk.js';
import { runningPid } from '../src/local-node.js';
import { normalizedIndexNames } from '../src/normalized-indices.js';
import { readCheckpoint } from '../src/normalizer-checkpoint.js';
import { OpenSearchNormalizer } from '../src/normalizer-job.js';
import { openSearchClient, openSearchConnectionSettings } from '../src/opensearch-connection-settings.js';
import { scanIngestedSince } from '../src/raw-event-source.js';
import { applyOpenSearchSetup } from '../src/setup/opensearch-setup.js';
import { generatedEventLines } from './support/generated-events.js';
import { loadNormalized, RECORD_TIME_MS } from './support/normalized-store.js';
import { openSearchState } from './support/opensearch-state.js';
import { clusterMembers, clusterReachable, clusterUrls, startMissingMembers } from './support/test-cluster.js';
import { createTestNamespace, type TestNamespace } from './support/test-node.js';

const wanted = process.env['WI_TEST_OPENSEARCH_HANG'] === '1';
const available = wanted && (await clusterReachable());
const OVERLAP_MS = 10_000;
const HANG_MS = 45_000;

function clientOn(urls: readonly string[]): Client {
  const { settings, problems } = openSearchConnectionSettings({ OPENSEARCH_HOST: urls.map((url) => new URL(url).host).join(',') });
  if (settings === null) throw new Error(problems.join('; '));
  return openSearchClient(settings);
}

interface ShardRow {
  index: string;
  prirep: string;
  state: string;
  node: string | null;
}

async function rawPrimaries(client: Client, prefix: string): Promise<ShardRow[]> {
  const response = await client.transport.request({ method: 'GET', path: `/_cat/shards/${prefix}*-raw-*`, querystring: { format: 'json', h: 'index,shard,prirep,state,node' } });
  return (response.body as ShardRow[]).filter((s) => s.prirep === 'p' && s.state === 'STARTED');
}

/** What the observer saw of one raw document. */
interface Sighting {
  readonly stampMs: number;
  readonly seenAtMs: number;
  /** The normalizer's high-water mark read right before the listing that first showed the document. */
  readonly highWaterMs: number;
}

describe.skipIf(!available)('a node holding a raw primary hangs (SIGSTOP) during delivery and normalization, then resumes', () => {
  const namespaces: TestNamespace[] = [];
  const clients: Client[] = [];
  let stopped: number | undefined;

  afterAll(async () => {
    if (stopped !== undefined) process.kill(stopped, 'SIGCONT');
    if (clusterMembers().some((member) => runningPid(member.paths) === undefined)) await startMissingMembers(600_000);
    for (const client of clients) await client.close();
    for (const ns of namespaces) await ns.drop();
  }, 660_000);

  it('normalizes every event, also those that became searchable after the overlap', async () => {
    const urls = clusterUrls();
    const ns = createTestNamespace(urls);
    namespaces.push(ns);
    const admin = clientOn(urls);
    clients.push(admin);
    await applyOpenSearchSetup(admin, { prefix: ns.prefix, layout: { shards: 2, replicas: 1 } });
    const names = normalizedIndexNames(ns.prefix);
    const lines = generatedEventLines(300, 20_261_130);
    const records = lines.map((line, i) => ({ line, recordTimeMs: RECORD_TIME_MS + i }));
    const flush = 20;

    // The first flush creates both raw indices; then the node to hang holds one of their primaries (not the elected
    // cluster manager: fault detection of a follower is the case), and the others deliver, normalize and observe.
    const firstWriter = clientOn(urls);
    clients.push(firstWriter);
    expect((await writeEventLines(firstWriter, records.slice(0, flush), ns.prefix)).items.every((i) => i.status === 201)).toBe(true);
    const managerResponse = await admin.transport.request({ method: 'GET', path: '/_cat/cluster_manager', querystring: { format: 'json', h: 'node' } });
    const manager = (managerResponse.body as { node: string }[])[0]?.node;
    const primaries = await rawPrimaries(admin, ns.prefix);
    const hungName = primaries.map((p) => p.node).find((node) => node !== null && node !== manager) ?? primaries[0]!.node!;
    const members = clusterMembers();
    const hung = members.find((m) => m.member.nodeName === hungName)!;
    const live = members.filter((m) => m !== hung).map((m) => urls[members.indexOf(m)]!);
    const [writer, normalizerClient, observerClient] = [clientOn([live[0]!]), clientOn(live), clientOn(live)];
    clients.push(writer, normalizerClient, observerClient);

    const normalizer = new OpenSearchNormalizer({ client: normalizerClient, prefix: ns.prefix, refresh: true, intervalMs: 500, overlapMs: OVERLAP_MS, maxBackoffMs: 2000, retentionIntervalMs: 0 });
    const stopNormalizer = new AbortController();
    const normalizing = normalizer.run(stopNormalizer.signal);

    const sightings = new Map<string, Sighting>();
    let observing = true;
    const observe = (async () => {
      while (observing) {
        try {
          const highWaterMs = (await readCheckpoint(observerClient, names.normalizerState)).highWaterMs;
          const marks = await scanIngestedSince(observerClient, ns.prefix, 0);
          const now = Date.now();
          for (const m of marks) if (!sightings.has(m.key)) sightings.set(m.key, { stampMs: m.ingestTimeMs, seenAtMs: now, highWaterMs });
        } catch {
          // A listing that failed during the hang is simply tried again.
        }
        await sleep(500);
      }
    })();

    // Flushes every 250 ms, each sent without waiting for the previous (Fluent Bit's flushes are concurrent); the
    // items that failed are sent again after half a second, as Fluent Bit retries.
    let retries = 0;
    const send = async (batch: typeof records): Promise<void> => {
      let pending = batch;
      while (pending.length > 0) {
        try {
          const written = await writeEventLines(writer, pending, ns.prefix);
          const failed = new Set(written.items.filter((item) => item.status !== 201 && item.status !== 409).map((item) => item.id));
          pending = pending.filter((record) => failed.has(fluentBitDocument('', record).id));
        } catch {
          // The whole flush failed: sent again.
        }
        if (pending.length > 0) {
          retries++;
          await sleep(500);
        }
      }
    };
    const inFlight: Promise<void>[] = [];
    let resumed: Promise<void> | undefined;
    let hangStartedAt = 0;
    for (let start = flush, index = 1; start < records.length; start += flush, index++) {
      inFlight.push(send(records.slice(start, start + flush)));
      if (index === 20) {
        const pid = runningPid(hung.paths);
        if (pid === undefined) throw new Error(`${hungName} does not run`);
        process.kill(pid, 'SIGSTOP');
        stopped = pid;
        hangStartedAt = Date.now();
        resumed = sleep(HANG_MS).then(() => {
          process.kill(pid, 'SIGCONT');
          stopped = undefined;
        });
      }
      await sleep(250);
    }
    await Promise.all(inFlight);
    await resumed;
    const green = await admin.transport.request({ method: 'GET', path: '/_cluster/health', querystring: { wait_for_status: 'green', wait_for_nodes: '3', timeout: '180s' } });
    expect((green.body as { status: string }).status).toBe('green');
    await sleep(3000);
    observing = false;
    await observe;
    stopNormalizer.abort();
    await normalizing;
    expect(await normalizer.acquire()).toBe(true);
    for (let guard = 0; (await normalizer.cycle()).newRawEvents > 0; guard++) if (guard > 20) throw new Error('no quiescence in 20 cycles');

    const all = [...sightings.values()];
    const late = all.filter((s) => s.stampMs < s.highWaterMs - OVERLAP_MS);
    const delays = all.map((s) => s.seenAtMs - s.stampMs).sort((a, b) => a - b);
    const behind = all.map((s) => s.highWaterMs - s.stampMs).sort((a, b) => a - b);
    const clean = createTestNamespace(urls);
    namespaces.push(clean);
    await loadNormalized(clean.client, clean.prefix, lines);
    const expected = await openSearchState(clean.client, normalizedIndexNames(clean.prefix));
    const actual = await openSearchState(admin, names);
    const differing = expected.instances.filter((e, i) => JSON.stringify(e) !== JSON.stringify(actual.instances[i])).length;
    console.log(
      `[cluster-hang] hung ${hungName} (primaries ${JSON.stringify(primaries.map((p) => `${p.index.replace(ns.prefix, '')}@${p.node}`))}) for ${HANG_MS} ms from ${new Date(hangStartedAt).toISOString()}; ` +
        `raw documents observed ${all.length} of ${lines.length}; searchable after their stamp: median ${delays[delays.length >> 1]} ms, max ${delays[delays.length - 1]} ms; ` +
        `behind the normalizer's high water when first seen: max ${behind[behind.length - 1]} ms; more than the ${OVERLAP_MS} ms overlap behind: ${late.length}; ` +
        `flush retries ${retries}; runs differing from a clean normalization ${differing} of ${expected.instances.length}`,
    );
    const rawCount = await admin.transport.request({ method: 'POST', path: `/${ns.prefix}*-events-raw-*/_count` });
    expect((rawCount.body as { count: number }).count).toBe(lines.length);
    expect(actual).toEqual(expected);
  }, 900_000);
});
