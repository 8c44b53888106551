// Starts (or finds) the OpenSearch node development mode uses, as node-source.ts chose it, and gives back how to
// reach it and how to stop it. What this process started, it stops: the container is removed (testcontainers'
// reaper removes it too should this process be killed), the local JVM is stopped by its pid. A node that already
// ran (started by `npm run opensearch -- start`, or any node the settings name) is left running.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Testcontainers from 'testcontainers';
import { OPENSEARCH_VERSION, cachedArchivePath } from '../local-node-distribution.js';
import { findJavaHome } from '../local-node-java.js';
import { DEFAULT_HEAP, DEFAULT_HTTP_PORT, DEFAULT_NODE_USER, clusterHealth, localNodePaths, localNodeUrl, runningPid, startLocalNode, stopLocalNode } from '../local-node.js';
import type { OpenSearchConnectionSettings } from '../opensearch-connection-settings.js';
import type { NodeChoice, NodeProbes } from './node-source.js';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface DevNode {
  readonly settings: OpenSearchConnectionSettings;
  /** For the start-up lines, e.g. `local OpenSearch 3.8.0 (pid 1234), started for this session`. */
  readonly description: string;
  /** Stops what this process started (nothing for a node that ran already). Idempotent. */
  stop(): Promise<void>;
  /** Synchronous last resort on process exit: signals a JVM this process started. */
  stopNow(): void;
}

export class DevNodeError extends Error {
  override readonly name = 'DevNodeError';
}

function commandOnPath(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

export function localNodeDir(env: Readonly<Record<string, string | undefined>>): string {
  return resolve(env['WI_OPENSEARCH_DIR'] ?? join(REPO_ROOT, '.data', 'opensearch'));
}

/** The probes of this machine: `docker info`, the JDK search of the local node, the distribution cache, the PATH. */
export function machineProbes(env: Readonly<Record<string, string | undefined>>): NodeProbes {
  return {
    dockerProblem: () => {
      const result = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 15_000 });
      if (result.error) return (result.error as NodeJS.ErrnoException).code === 'ENOENT' ? '`docker` is not installed' : result.error.message;
      if (result.status !== 0) return `\`docker info\` failed: ${(result.stderr || result.stdout).trim().split('\n').slice(-1)[0] ?? `exit ${result.status}`}`;
      return undefined;
    },
    javaHome: () => {
      try {
        return findJavaHome(env);
      } catch (error) {
        return { problem: (error as Error).message };
      }
    },
    distributionCached: () => existsSync(join(localNodePaths(localNodeDir(env)).home, '.workflow-index-complete')) || existsSync(cachedArchivePath()),
    missingCommands: () => ['mvn', 'unzip'].filter((c) => !commandOnPath(c)),
  };
}

async function startContainerNode(image: string, log: (line: string) => void): Promise<DevNode> {
  // Loaded only here: testcontainers is a development dependency.
  const testcontainers: typeof Testcontainers = await import('testcontainers');
  log(`starting a container of ${image} (single node, security plugin off: development only; removed on exit)`);
  const container = await new testcontainers.GenericContainer(image)
    .withEnvironment({
      'discovery.type': 'single-node',
      DISABLE_SECURITY_PLUGIN: 'true',
      DISABLE_INSTALL_DEMO_CONFIG: 'true',
      OPENSEARCH_JAVA_OPTS: `-Xms${DEFAULT_HEAP} -Xmx${DEFAULT_HEAP}`,
      'cluster.routing.allocation.disk.threshold_enabled': 'false',
    })
    .withExposedPorts(9200)
    .withWaitStrategy(testcontainers.Wait.forHttp('/_cluster/health?wait_for_status=yellow&timeout=1s', 9200).forStatusCode(200))
    .withStartupTimeout(600_000)
    .start();
  const host = container.getHost();
  const port = container.getMappedPort(9200);
  let stopped: Promise<void> | undefined;
  return {
    settings: { node: `http://${host}:${port}`, nodes: [`http://${host}:${port}`], username: undefined, password: undefined, caFile: undefined },
    description: `${image} container ${container.getId().slice(0, 12)} on ${host}:${port}`,
    stop: () => (stopped ??= container.stop().then(() => log('OpenSearch container removed'))),
    stopNow: () => undefined, // the reaper removes it
  };
}

async function startLocalDevNode(env: Readonly<Record<string, string | undefined>>, log: (line: string) => void, signal: AbortSignal): Promise<DevNode> {
  const dir = localNodeDir(env);
  const port = Number(env['WI_OPENSEARCH_PORT'] ?? DEFAULT_HTTP_PORT);
  const heap = env['WI_OPENSEARCH_HEAP'] ?? DEFAULT_HEAP;
  const ranBefore = runningPid(localNodePaths(dir)) !== undefined;
  const url = localNodeUrl(port);
  const settings: OpenSearchConnectionSettings = { node: url, nodes: [url], username: undefined, password: undefined, caFile: undefined };
  if (ranBefore) {
    // A node that already runs serves development as soon as it answers: yellow (an index of someone else's with a
    // replica nowhere to go) is no reason to wait for green, as `npm run opensearch -- start` does.
    const health = await clusterHealth(url);
    if (health?.status === 'green' || health?.status === 'yellow') {
      log(`OpenSearch already runs from ${dir} (cluster ${health.status})`);
      return { settings, description: `the local node that already ran from ${dir} (${url}), left running on exit`, stop: async () => undefined, stopNow: () => undefined };
    }
  }
  // A JVM on a busy machine takes from seconds to minutes to be green: say every 10 s that it is still coming.
  const began = Date.now();
  const ticker = setInterval(() => {
    void clusterHealth(url, '', 2000).then((health) => log(`  … OpenSearch is starting (${Math.round((Date.now() - began) / 1000)} s, ${health ? `cluster ${health.status}` : 'not answering yet'}; log ${localNodePaths(dir).log})`));
  }, 10_000);
  let started: Awaited<ReturnType<typeof startLocalNode>>;
  try {
    const starting = startLocalNode({
      dir,
      httpPort: port,
      heap,
      user: env['WI_OPENSEARCH_USER'] ?? DEFAULT_NODE_USER,
      startTimeoutSeconds: Number(env['WI_OPENSEARCH_START_TIMEOUT'] ?? 600),
      env,
      log,
    });
    // Ctrl-C while the JVM boots: stop waiting (the catch below stops the JVM; the abandoned wait then ends on its own).
    starting.catch(() => undefined);
    const interrupted = new Promise<never>((_, reject) => {
      const abort = (): void => reject(new DevNodeError('interrupted while OpenSearch was starting'));
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    });
    interrupted.catch(() => undefined);
    started = await Promise.race([starting, interrupted]);
  } catch (error) {
    // A node that came up but never got green is ours to stop: no JVM outlives a failed start.
    if (!ranBefore && runningPid(localNodePaths(dir)) !== undefined) await stopLocalNode({ dir, log }).catch(() => undefined);
    throw error;
  } finally {
    clearInterval(ticker);
  }
  if (started.state !== 'started') {
    const whose = started.state === 'foreign' ? 'a node that already answered there' : `the local node that already ran from ${dir}`;
    return { settings, description: `${whose} (${started.url}), left running on exit`, stop: async () => undefined, stopNow: () => undefined };
  }
  let stopped: Promise<void> | undefined;
  const pid = started.pid;
  return {
    settings,
    description: `local OpenSearch ${OPENSEARCH_VERSION} (pid ${pid ?? '?'}, ${dir}) on ${started.url}, stopped on exit`,
    stop: () => (stopped ??= stopLocalNode({ dir, log }).then(() => undefined)),
    stopNow: () => {
      if (pid === undefined || stopped !== undefined) return;
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // gone already
      }
    },
  };
}

export async function startDevNode(choice: NodeChoice, env: Readonly<Record<string, string | undefined>>, log: (line: string) => void, signal: AbortSignal): Promise<DevNode> {
  switch (choice.kind) {
    case 'configured':
      return { settings: choice.settings, description: `${choice.settings.node} (from OPENSEARCH_*), left running on exit`, stop: async () => undefined, stopNow: () => undefined };
    case 'container':
      return startContainerNode(choice.image, log);
    case 'local':
      return startLocalDevNode(env, log, signal);
    case 'missing':
      throw new DevNodeError(choice.message);
  }
}
