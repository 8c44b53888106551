// The local 3-node OpenSearch cluster the cluster tests run against: `npm run opensearch -- start --nodes 3 --port
// <port>` (.ci/run starts it at 9220 and stops it on exit) named by WI_TEST_OPENSEARCH_CLUSTER_PORT. Outside CI an
// unset or silent cluster skips the suites with a message; with CI=true it fails. The tests never stop the cluster:
// the node-death test kills one member by its pid and brings it back with the same `start` command, which starts the
// members that do not run.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LocalClusterNode, localClusterNodes, localClusterUrls } from '../../src/local-cluster.js';

export const CLUSTER_NODES = 3;
const PORT_ENV = 'WI_TEST_OPENSEARCH_CLUSTER_PORT';
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/local-node-cli.ts', import.meta.url));

function basePort(): number | undefined {
  const text = process.env[PORT_ENV];
  return text === undefined || text === '' ? undefined : Number(text);
}

/** The HTTP URLs of the cluster's nodes. */
export function clusterUrls(): string[] {
  return localClusterUrls({ basePort: basePort() ?? 9220, nodes: CLUSTER_NODES });
}

/** The cluster's members with their folders and pid files (the folder `npm run opensearch` uses). */
export function clusterMembers(): LocalClusterNode[] {
  const dir = resolve(process.env['WI_OPENSEARCH_DIR'] ?? resolve(REPO_ROOT, '.data', 'opensearch'));
  return localClusterNodes({ dir, basePort: basePort() ?? 9220, nodes: CLUSTER_NODES });
}

let reachable: boolean | undefined;
export async function clusterReachable(): Promise<boolean> {
  if (reachable !== undefined) return reachable;
  const port = basePort();
  try {
    if (port === undefined) throw new Error(`${PORT_ENV} is not set`);
    const url = clusterUrls()[0]!;
    const response = await fetch(`${url}/_cluster/health?wait_for_nodes=${CLUSTER_NODES}&timeout=30s`, { signal: AbortSignal.timeout(40_000) });
    const body = (await response.json()) as { number_of_nodes?: number };
    if (body.number_of_nodes !== CLUSTER_NODES) throw new Error(`the cluster at ${url} has ${String(body.number_of_nodes)} nodes, not ${CLUSTER_NODES}`);
    reachable = true;
  } catch (error) {
    const reason = (error as Error).message;
    if (process.env['CI'] === 'true') throw new Error(`a ${CLUSTER_NODES}-node OpenSearch cluster is required in CI: ${reason}`);
    console.warn(`[skip] OpenSearch cluster suites skipped (${reason}). Start one with \`npm run opensearch -- start --nodes ${CLUSTER_NODES} --port 9210\` and set ${PORT_ENV}=9210.`);
    reachable = false;
  }
  return reachable;
}

/**
 * `npm run opensearch -- start --nodes 3 --port <port>` as a child process: starts the members that do not run and
 * returns once the cluster is green with all of them. The child is killed if the wait is abandoned.
 */
export async function startMissingMembers(timeoutMs: number): Promise<string> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', CLI, 'start', '--nodes', String(CLUSTER_NODES), '--port', String(basePort() ?? 9220)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    const code = await new Promise<number | null>((done, fail) => {
      child.once('error', fail);
      child.once('exit', (exitCode) => done(exitCode));
    });
    if (code !== 0) throw new Error(`opensearch start --nodes ${CLUSTER_NODES} exited with ${String(code)}:\n${output}`);
    return output;
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
