// A local OpenSearch cluster of N nodes for tests and benchmarks (`npm run opensearch -- start --nodes N`): the
// members run from the one distribution of `dir`, each with its own config, data, logs and pid file under
// `<dir>/cluster-<port>/node-<i>`, on HTTP port `<port> + i` and transport port `<port> + 100 + i`, and find each other
// by their loopback transport ports. Every member is eligible as cluster manager; the first start bootstraps the
// cluster from all of them. Starting again starts only the members that do not run (a node killed by a test comes
// back with its data) and waits for green with every member joined.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureDistribution } from './local-node-distribution.js';
import {
  type ClusterHealth,
  type ClusterMember,
  type HealthProbe,
  type LocalNodeOptions,
  type LocalNodePaths,
  type WatchedNode,
  awaitGreen,
  clusterHealth,
  launchLocalNode,
  localNodeUrl,
  nodePaths,
  runningPid,
  stopLocalNode,
} from './local-node.js';

/** Smaller than a single node's: N of them share the machine. */
export const DEFAULT_CLUSTER_HEAP = '384m';

export interface LocalClusterOptions extends Omit<LocalNodeOptions, 'httpPort' | 'member' | 'prepare' | 'protocol' | 'probe'> {
  /** HTTP port of the first node; node i answers on port + i. */
  readonly basePort: number;
  readonly nodes: number;
}

export interface LocalClusterNode {
  readonly member: ClusterMember;
  readonly httpPort: number;
  readonly url: string;
  readonly paths: LocalNodePaths;
}

function clusterDir(dir: string, basePort: number): string {
  return join(dir, `cluster-${basePort}`);
}

/** The members of the cluster at `basePort`, in order. */
export function localClusterNodes(options: Pick<LocalClusterOptions, 'dir' | 'basePort' | 'nodes' | 'version'>): LocalClusterNode[] {
  const names = Array.from({ length: options.nodes }, (_, i) => `node-${i}`);
  const seedTransportPorts = names.map((_, i) => options.basePort + 100 + i);
  return names.map((nodeName, i) => {
    const member: ClusterMember = {
      clusterName: `workflow-index-local-${options.basePort}`,
      nodeName,
      nodeDir: join(clusterDir(options.dir, options.basePort), nodeName),
      seedTransportPorts,
      initialManagers: names,
    };
    const httpPort = options.basePort + i;
    return { member, httpPort, url: localNodeUrl(httpPort), paths: nodePaths({ dir: options.dir, member, ...(options.version === undefined ? {} : { version: options.version }) }) };
  });
}

export function localClusterUrls(options: Pick<LocalClusterOptions, 'basePort' | 'nodes'>): string[] {
  return Array.from({ length: options.nodes }, (_, i) => localNodeUrl(options.basePort + i));
}

export interface ClusterStartResult {
  readonly started: number;
  readonly urls: readonly string[];
  readonly pids: readonly number[];
  readonly seconds: number;
}

/** Starts the members that do not run, then waits until the cluster is green with all of them. */
export async function startLocalCluster(options: LocalClusterOptions): Promise<ClusterStartResult> {
  const began = performance.now();
  const nodes = localClusterNodes(options);
  const probe: HealthProbe = (url, query) => clusterHealth(url, query);
  // Once, before the members start side by side (each would unzip it otherwise).
  ensureDistribution(options.dir, options.log, options.version);
  // Side by side: a member's launcher returns only once its node started, which waits for the others to form a quorum.
  const launched = await Promise.all(nodes.map((node) => launchLocalNode({ ...options, httpPort: node.httpPort, member: node.member })));
  const foreign = nodes.filter((_, i) => launched[i]?.state === 'foreign');
  if (foreign.length > 0) throw new Error(`ports ${foreign.map((n) => n.httpPort).join(', ')} answer but are not nodes of ${clusterDir(options.dir, options.basePort)}: stop what runs there or pick another --port`);
  const watched: WatchedNode[] = nodes.map((node, i) => ({ pid: launched[i]?.pid ?? 0, paths: node.paths, url: node.url }));
  const first = nodes[0];
  if (first === undefined) throw new Error('a cluster needs at least one node');
  await awaitGreen(first.url, probe, watched, began + options.startTimeoutSeconds * 1000, options.startTimeoutSeconds, `&wait_for_nodes=${nodes.length}`);
  const seconds = (performance.now() - began) / 1000;
  const started = launched.filter((l) => l.state === 'started').length;
  options.log(`OpenSearch cluster of ${nodes.length} nodes green after ${seconds.toFixed(1)} s (${started} started): ${nodes.map((n) => n.url).join(', ')}`);
  return { started, urls: nodes.map((n) => n.url), pids: watched.map((w) => w.pid), seconds };
}

/** Stops every member found under the cluster's folder (however many `start` was given). */
export async function stopLocalCluster(options: Pick<LocalClusterOptions, 'dir' | 'basePort' | 'log' | 'version'>): Promise<number> {
  const root = clusterDir(options.dir, options.basePort);
  const count = existsSync(root) ? readdirSync(root).filter((name) => /^node-[0-9]+$/.test(name)).length : 0;
  const nodes = localClusterNodes({ ...options, nodes: count });
  const results = await Promise.all(nodes.map((node) => stopLocalNode({ dir: options.dir, log: options.log, member: node.member, ...(options.version === undefined ? {} : { version: options.version }) })));
  return results.filter((r) => r === 'stopped').length;
}

export interface ClusterStatus {
  readonly running: number;
  readonly health?: ClusterHealth;
  readonly text: string;
}

export async function localClusterStatus(options: Pick<LocalClusterOptions, 'dir' | 'basePort' | 'nodes'>): Promise<ClusterStatus> {
  const nodes = localClusterNodes(options);
  const pids = nodes.map((node) => runningPid(node.paths));
  let health: ClusterHealth | undefined;
  for (const node of nodes) health ??= await clusterHealth(node.url);
  const running = pids.filter((pid) => pid !== undefined).length;
  const lines = nodes.map((node, i) => `  ${node.member.nodeName}: ${node.url}, pid ${pids[i] ?? '-'} (${node.paths.pidFile}), log ${node.paths.log}`);
  const headline = `OpenSearch cluster ${clusterDir(options.dir, options.basePort)}: ${running} of ${nodes.length} nodes run${health ? `, cluster ${health.status} with ${health.numberOfNodes} nodes` : ''}`;
  return { running, ...(health ? { health } : {}), text: [headline, ...lines].join('\n') };
}
