// A local OpenSearch node for tests, benchmarks and development mode: the pinned distribution
// (local-node-distribution.ts) run with a JDK >= 21 (local-node-java.ts) on loopback, as a non-root user
// (OpenSearch refuses to run as root), daemonized with a pid file so that `stop` and `status` find it again.
// `npm run opensearch` runs the pinned version with these defaults; the optional options (version, extra settings,
// a step that prepares the home, an https/authenticated health probe) serve a test's second node, e.g. the secured
// node of the least-privilege suite (test/support/secure-node.ts). A node may also be one member of a local cluster
// (`member`, local-cluster.ts): it then has its own config, data, logs and pid file beside the shared distribution.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, cpSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { OPENSEARCH_VERSION, ensureDistribution } from './local-node-distribution.js';
import { findJavaHome } from './local-node-java.js';

export const LOCAL_NODE_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 9200;
export const DEFAULT_HEAP = '512m';
export const DEFAULT_NODE_USER = 'opensearch';
const CLUSTER_NAME = 'workflow-index-local';

export interface LocalNodeOptions {
  /** Folder that holds the unzipped distribution, data, logs and the pid file (git-ignored `.data/opensearch`). */
  readonly dir: string;
  readonly httpPort: number;
  /** JVM heap, `-Xms`/`-Xmx` syntax (`512m`, `1g`). */
  readonly heap: string;
  /** The system user the node runs as when this script runs as root. */
  readonly user: string;
  readonly startTimeoutSeconds: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: (line: string) => void;
  /** OpenSearch version to run (default: the pinned OPENSEARCH_VERSION). */
  readonly version?: string;
  /** Lines appended to the generated opensearch.yml (e.g. the security plugin's settings). */
  readonly settings?: readonly string[];
  /**
   * Runs after the distribution is unzipped and before the node starts (as this process's user): plugins,
   * certificates. The lines it returns are appended to opensearch.yml after `settings`.
   */
  readonly prepare?: (paths: LocalNodePaths, javaHome: string) => readonly string[] | void;
  /** The node's URL scheme (default http); an https node needs `probe`. */
  readonly protocol?: 'http' | 'https';
  /** How the cluster's health is asked (default: plain, unauthenticated `GET /_cluster/health`). */
  readonly probe?: HealthProbe;
  /** This node is one member of a local cluster (local-cluster.ts) rather than a single-node cluster. */
  readonly member?: ClusterMember;
}

/** A node of a local cluster: its names, its folder, and how it finds the others. */
export interface ClusterMember {
  readonly clusterName: string;
  readonly nodeName: string;
  /** The node's own config, data, logs and pid file (the distribution is shared). */
  readonly nodeDir: string;
  /** Transport ports of every node of the cluster (discovery.seed_hosts on loopback). */
  readonly seedTransportPorts: readonly number[];
  /** Node names that elect the first cluster manager when the cluster forms for the first time. */
  readonly initialManagers: readonly string[];
}

/** Asks `<url>/_cluster/health<query>`; undefined when the node does not answer usefully. */
export type HealthProbe = (url: string, query: string) => Promise<ClusterHealth | undefined>;

export interface LocalNodePaths {
  readonly dir: string;
  readonly home: string;
  /** OPENSEARCH_PATH_CONF: the home's config folder, or a cluster member's own copy of it. */
  readonly config: string;
  readonly data: string;
  readonly logs: string;
  readonly log: string;
  readonly pidFile: string;
  readonly launcherLog: string;
}

export function localNodePaths(dir: string, version = OPENSEARCH_VERSION): LocalNodePaths {
  const logs = join(dir, 'logs');
  const home = join(dir, `opensearch-${version}`);
  return {
    dir,
    home,
    config: join(home, 'config'),
    data: join(dir, 'data'),
    logs,
    log: join(logs, `${CLUSTER_NAME}.log`),
    pidFile: join(dir, 'run', 'opensearch.pid'),
    launcherLog: join(dir, 'launcher.log'),
  };
}

/** A cluster member's folders: the distribution of `dir`, everything else under its own node folder. */
export function memberPaths(dir: string, member: ClusterMember, version = OPENSEARCH_VERSION): LocalNodePaths {
  const logs = join(member.nodeDir, 'logs');
  return {
    dir,
    home: join(dir, `opensearch-${version}`),
    config: join(member.nodeDir, 'config'),
    data: join(member.nodeDir, 'data'),
    logs,
    log: join(logs, `${member.clusterName}.log`),
    pidFile: join(member.nodeDir, 'run', 'opensearch.pid'),
    launcherLog: join(member.nodeDir, 'launcher.log'),
  };
}

export function localNodeUrl(port: number, protocol: 'http' | 'https' = 'http'): string {
  return `${protocol}://${LOCAL_NODE_HOST}:${port}`;
}

/** How the node finds its cluster: alone, or by the loopback transport ports of the other members. */
function discoverySettings(member: ClusterMember | undefined): string[] {
  if (member === undefined) return [`cluster.name: ${CLUSTER_NAME}`, `node.name: ${CLUSTER_NAME}`, 'discovery.type: single-node'];
  return [
    `cluster.name: ${member.clusterName}`,
    `node.name: ${member.nodeName}`,
    `discovery.seed_hosts: [${member.seedTransportPorts.map((port) => `"${LOCAL_NODE_HOST}:${port}"`).join(', ')}]`,
    // Read only when the cluster forms the first time (empty data folders); a restarted member rejoins by its state.
    `cluster.initial_cluster_manager_nodes: [${member.initialManagers.map((name) => `"${name}"`).join(', ')}]`,
  ];
}

export function nodeSettings(paths: LocalNodePaths, httpPort: number, extra: readonly string[] = [], member?: ClusterMember): string {
  return [
    '# Written by `npm run opensearch -- start` on every start; edits here are overwritten.',
    ...discoverySettings(member),
    `network.host: ${LOCAL_NODE_HOST}`,
    `http.port: ${httpPort}`,
    `transport.port: ${httpPort + 100}`,
    `path.data: ${paths.data}`,
    `path.logs: ${paths.logs}`,
    // CI disks are often more than 90 % full; the watermarks would make every new index read-only or unassigned.
    'cluster.routing.allocation.disk.threshold_enabled: false',
    ...extra,
    '',
  ].join('\n');
}

/**
 * The pid of the node running from this folder: the pid file's process when it is an OpenSearch node (not a
 * recycled pid), else a process whose command line names this home and config folder (the members of a local
 * cluster share the home). The launcher (`bin/opensearch -d`) puts the JVM in the background and exits at once; the
 * JVM writes the pid file only later in its bootstrap.
 */
export function runningPid(paths: LocalNodePaths): number | undefined {
  const markers = [`-Dopensearch.path.home=${paths.home}`, `-Dopensearch.path.conf=${paths.config}`];
  const isOurs = (pid: number): boolean => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv.includes('org.opensearch.bootstrap.OpenSearch') && markers.every((marker) => argv.includes(marker));
    } catch {
      return false;
    }
  };
  if (existsSync(paths.pidFile)) {
    const pid = Number.parseInt(readFileSync(paths.pidFile, 'utf8').trim(), 10);
    if (Number.isInteger(pid) && pid > 0 && isOurs(pid)) return pid;
  }
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const pid = Number(entry);
    if (isOurs(pid)) return pid;
  }
  return undefined;
}

/**
 * The node's process once its launcher returned. `bin/opensearch -d` starts the JVM in the background and exits at
 * once, so the background shell may not have become the JVM yet (its command line is still the shell's): looked for
 * again for a few seconds before the node counts as not started.
 */
async function launchedPid(paths: LocalNodePaths, seconds = 15): Promise<number | undefined> {
  const until = performance.now() + seconds * 1000;
  for (;;) {
    const pid = runningPid(paths);
    if (pid !== undefined || performance.now() > until) return pid;
    await sleep(100);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface ClusterHealth {
  readonly status: string;
  readonly numberOfNodes: number;
}

export async function clusterHealth(url: string, query = '', timeoutMs = 3000): Promise<ClusterHealth | undefined> {
  try {
    const response = await fetch(`${url}/_cluster/health${query}`, { signal: AbortSignal.timeout(timeoutMs) });
    // 408 = wait_for_status timed out; the body still describes the cluster.
    if (response.status !== 200 && response.status !== 408) return undefined;
    const body = (await response.json()) as { status?: unknown; number_of_nodes?: unknown };
    return typeof body.status === 'string' ? { status: body.status, numberOfNodes: Number(body.number_of_nodes) } : undefined;
  } catch {
    return undefined;
  }
}

async function nodeVersion(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
    const body = (await response.json()) as { version?: { distribution?: string; number?: string } };
    return body.version?.number === undefined ? undefined : `${body.version.distribution ?? 'opensearch'} ${body.version.number}`;
  } catch {
    return undefined;
  }
}

export function tail(path: string, lines: number): string {
  if (!existsSync(path)) return `(${path} does not exist)`;
  return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

export function describe(paths: LocalNodePaths, url: string, pid: number | undefined): string {
  return [`  url:  ${url}`, `  pid:  ${pid ?? '-'} (${paths.pidFile})`, `  home: ${paths.home}`, `  data: ${paths.data}`, `  log:  ${paths.log}`].join('\n');
}

/** Creates the system user the node runs as (only possible, and only needed, as root). */
function ensureSystemUser(user: string, log: (line: string) => void): void {
  if (spawnSync('id', ['-u', user], { stdio: 'ignore' }).status === 0) return;
  log(`creating system user ${user} (OpenSearch refuses to run as root)`);
  const result = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', user], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`useradd ${user} failed: ${(result.stderr || result.error?.message || '').trim()}`);
}

/**
 * Gives `user` the node's own folders. Only its own: the folder may hold other nodes (the single node's folder holds
 * the local clusters' members) whose running processes create and delete files meanwhile. A file deleted while chown
 * walks is no failure.
 */
function chownNodeFolders(paths: LocalNodePaths, user: string): void {
  for (const path of new Set([paths.home, paths.config, paths.data, paths.logs, dirname(paths.pidFile)])) {
    if (!existsSync(path)) continue;
    const result = spawnSync('chown', ['-R', `${user}:`, path], { encoding: 'utf8' });
    const problems = result.stderr.split('\n').filter((line) => line.trim() !== '' && !/No such file or directory/.test(line));
    if (result.status !== 0 && (problems.length > 0 || result.error !== undefined)) throw new Error(`chown -R ${user} ${path} failed: ${result.stderr.trim()}`);
  }
}

export interface StartResult {
  readonly state: 'started' | 'already-running' | 'foreign';
  readonly pid?: number;
  readonly url: string;
  readonly seconds: number;
}

/** The folders of the node `options` describe: a single node's, or a cluster member's. */
export function nodePaths(options: Pick<LocalNodeOptions, 'dir' | 'version' | 'member'>): LocalNodePaths {
  const version = options.version ?? OPENSEARCH_VERSION;
  return options.member === undefined ? localNodePaths(options.dir, version) : memberPaths(options.dir, options.member, version);
}

/** A cluster member's config folder: a copy of the distribution's (jvm.options, log4j2.properties, keystore). */
function ensureMemberConfig(paths: LocalNodePaths): void {
  if (existsSync(join(paths.config, 'jvm.options'))) return;
  cpSync(join(paths.home, 'config'), paths.config, { recursive: true });
}

/**
 * Starts the node's process unless it runs already and returns once the JVM runs (not once it answers): the launch
 * half of startLocalNode, which local-cluster.ts calls for every member before it waits for the cluster.
 */
export async function launchLocalNode(options: LocalNodeOptions): Promise<{ state: StartResult['state']; pid?: number }> {
  const version = options.version ?? OPENSEARCH_VERSION;
  const paths = nodePaths(options);
  const url = localNodeUrl(options.httpPort, options.protocol);
  const probe: HealthProbe = options.probe ?? ((base, query) => clusterHealth(base, query));
  const log = options.log;
  const existing = runningPid(paths);
  if (existing !== undefined) return { state: 'already-running', pid: existing };
  const health = await probe(url, '');
  if (health) {
    log(`a node already answers on ${url} (status ${health.status}) and it was not started from ${paths.dir}: leaving it alone`);
    return { state: 'foreign' };
  }

  const java = findJavaHome(options.env);
  log(`java: ${java.path} (Java ${java.major}, from ${java.source})`);
  const distribution = ensureDistribution(options.dir, log, version);
  if (distribution.action !== 'present') {
    log(
      `distribution: ${distribution.action}` +
        (distribution.downloadSeconds === undefined ? '' : `, download ${distribution.downloadSeconds.toFixed(1)} s`) +
        (distribution.unzipSeconds === undefined ? '' : `, unzip ${distribution.unzipSeconds.toFixed(1)} s`),
    );
  }
  for (const folder of [paths.data, paths.logs, dirname(paths.pidFile)]) mkdirSync(folder, { recursive: true });
  if (options.member !== undefined) ensureMemberConfig(paths);
  const prepared = options.prepare?.(paths, java.path) ?? [];
  writeFileSync(join(paths.config, 'opensearch.yml'), nodeSettings(paths, options.httpPort, [...(options.settings ?? []), ...prepared], options.member));
  rmSync(paths.pidFile, { force: true });

  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    ensureSystemUser(options.user, log);
    // The node writes its pid file, data and logs, and reads its home: all must belong to its user.
    chownNodeFolders(paths, options.user);
    chmodSync(paths.dir, 0o755);
  }
  const environment = {
    OPENSEARCH_JAVA_HOME: java.path,
    // Appended after config/jvm.options (-Xms1g -Xmx1g there), so these win. G1 regions of 4 MiB (the JVM picks 1 MiB
    // below 4 GiB of heap): a search over millions of task documents builds bitsets of a few MiB, humongous objects
    // in 1 MiB regions; they fill the old generation faster than young collections reclaim them, and the node's
    // real-memory circuit breaker then refuses requests (docs/deployment.md, "G1 regions"; what Elasticsearch sets
    // for small heaps by default).
    OPENSEARCH_JAVA_OPTS: `-Xms${options.heap} -Xmx${options.heap} -XX:G1HeapRegionSize=4m`,
    OPENSEARCH_PATH_CONF: paths.config,
  };
  const launcher = join(paths.home, 'bin', 'opensearch');
  const command = asRoot ? 'runuser' : launcher;
  const args = asRoot
    ? ['-u', options.user, '--', 'env', ...Object.entries(environment).map(([k, v]) => `${k}=${v}`), launcher, '-d', '-p', paths.pidFile]
    : ['-d', '-p', paths.pidFile];
  const name = options.member === undefined ? '' : ` node ${options.member.nodeName} of ${options.member.clusterName}`;
  log(`starting OpenSearch ${version}${name} on ${url} (heap ${options.heap}${asRoot ? `, user ${options.user}` : ''})`);
  const output = openSync(paths.launcherLog, 'w');
  try {
    // -d puts the JVM in the background and returns; early output (bootstrap errors included) goes to launcher.log.
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      // detached: the node gets its own session, so it outlives this script and the terminal's signals.
      const child = spawn(command, args, { env: { ...process.env, ...environment }, stdio: ['ignore', output, output], detached: true });
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    });
    if (exitCode !== 0) {
      throw new Error(`the OpenSearch launcher exited with ${exitCode}.\n--- ${paths.launcherLog}\n${tail(paths.launcherLog, 30)}\n--- ${paths.log}\n${tail(paths.log, 30)}`);
    }
  } finally {
    closeSync(output);
  }
  const pid = await launchedPid(paths);
  if (pid === undefined) throw new Error(`OpenSearch did not stay up (no live node process from ${paths.home}).\n--- ${paths.launcherLog}\n${tail(paths.launcherLog, 20)}\n--- ${paths.log}\n${tail(paths.log, 40)}`);
  return { state: 'started', pid };
}

/** A node whose process must stay alive while the cluster is awaited. */
export interface WatchedNode {
  readonly pid: number;
  readonly paths: LocalNodePaths;
  readonly url: string;
}

/**
 * Waits until `url` reports the cluster green (with `extraQuery`, e.g. `&wait_for_nodes=3`), checking on every round
 * that the nodes still run, so a node that died is reported at once. Bounded back-off; fails with the log tail.
 */
export async function awaitGreen(url: string, probe: HealthProbe, nodes: readonly WatchedNode[], deadline: number, timeoutSeconds: number, extraQuery = ''): Promise<void> {
  let delayMs = 250;
  for (;;) {
    const health = await probe(url, `?wait_for_status=green&timeout=1s${extraQuery}`);
    if (health?.status === 'green') return;
    for (const node of nodes) {
      if (isAlive(node.pid)) continue;
      rmSync(node.paths.pidFile, { force: true });
      throw new Error(`OpenSearch (pid ${node.pid}) exited before the cluster was green.\n--- ${node.paths.log}\n${tail(node.paths.log, 40)}\n${describe(node.paths, node.url, undefined)}`);
    }
    if (performance.now() > deadline) {
      throw new Error(
        `OpenSearch (pid ${nodes.map((n) => n.pid).join(', ')}) is not green after ${timeoutSeconds} s (last status: ${health?.status ?? 'no answer'}); it is left running, ` +
          `stop it with \`npm run opensearch -- stop\`.\n${nodes.map((n) => `--- ${n.paths.log}\n${tail(n.paths.log, 20)}\n${describe(n.paths, n.url, n.pid)}`).join('\n')}`,
      );
    }
    await sleep(delayMs);
    delayMs = Math.min(delayMs * 2, 2000);
  }
}

/**
 * Starts the node unless it runs already, and resolves once the cluster is green. Fails (with the log tail) when
 * the process exits or the node is not green within the timeout.
 */
export async function startLocalNode(options: LocalNodeOptions): Promise<StartResult> {
  const began = performance.now();
  const paths = nodePaths(options);
  const url = localNodeUrl(options.httpPort, options.protocol);
  const probe: HealthProbe = options.probe ?? ((base, query) => clusterHealth(base, query));
  const launched = await launchLocalNode(options);
  if (launched.state === 'foreign' || launched.pid === undefined) return { state: 'foreign', url, seconds: 0 };
  const pid = launched.pid;
  if (launched.state === 'already-running') options.log(`OpenSearch already runs (pid ${pid}); waiting for it to be green`);
  await awaitGreen(url, probe, [{ pid, paths, url }], began + options.startTimeoutSeconds * 1000, options.startTimeoutSeconds);
  const seconds = (performance.now() - began) / 1000;
  options.log(`OpenSearch ${launched.state === 'started' ? 'started' : 'runs'}, green after ${seconds.toFixed(1)} s\n${describe(paths, url, pid)}`);
  return { state: launched.state, pid, url, seconds };
}

export async function stopLocalNode(options: Pick<LocalNodeOptions, 'dir' | 'log' | 'version' | 'member'>, timeoutSeconds = 60): Promise<'stopped' | 'not-running'> {
  const paths = nodePaths(options);
  const pid = runningPid(paths);
  if (pid === undefined) {
    rmSync(paths.pidFile, { force: true });
    options.log(`OpenSearch is not running (no live node in ${paths.pidFile})`);
    return 'not-running';
  }
  const began = performance.now();
  process.kill(pid, 'SIGTERM');
  let delayMs = 50;
  while (isAlive(pid)) {
    if (performance.now() - began > timeoutSeconds * 1000) {
      options.log(`OpenSearch (pid ${pid}) ignored SIGTERM for ${timeoutSeconds} s: sending SIGKILL`);
      process.kill(pid, 'SIGKILL');
    }
    await sleep(delayMs);
    delayMs = Math.min(delayMs * 2, 500);
  }
  rmSync(paths.pidFile, { force: true });
  options.log(`OpenSearch (pid ${pid}) stopped in ${((performance.now() - began) / 1000).toFixed(1)} s`);
  return 'stopped';
}

export interface NodeStatus {
  readonly running: boolean;
  readonly pid?: number;
  readonly health?: ClusterHealth;
  readonly version?: string;
  readonly text: string;
}

export async function localNodeStatus(options: Pick<LocalNodeOptions, 'dir' | 'httpPort'>): Promise<NodeStatus> {
  const paths = localNodePaths(options.dir);
  const url = localNodeUrl(options.httpPort);
  const pid = runningPid(paths);
  const health = await clusterHealth(url);
  const version = health ? await nodeVersion(url) : undefined;
  const headline =
    pid !== undefined
      ? `OpenSearch runs (pid ${pid}), ${health ? `${version ?? 'version unknown'}, cluster ${health.status}` : 'not answering yet'}`
      : health
        ? `a node answers on ${url} (${version ?? 'version unknown'}, cluster ${health.status}) but was not started from ${paths.dir}`
        : 'OpenSearch is not running';
  return { running: pid !== undefined || health !== undefined, ...(pid === undefined ? {} : { pid }), ...(health ? { health } : {}), ...(version ? { version } : {}), text: `${headline}\n${describe(paths, url, pid)}` };
}
