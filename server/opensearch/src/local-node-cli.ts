// `npm run opensearch -- start|stop|status [--nodes 1] [--heap 512m] [--port 9200] [--dir .data/opensearch] [--timeout 600]`
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_CLUSTER_HEAP, localClusterStatus, startLocalCluster, stopLocalCluster } from './local-cluster.js';
import { DEFAULT_HEAP, DEFAULT_HTTP_PORT, DEFAULT_NODE_USER, localNodeStatus, startLocalNode, stopLocalNode } from './local-node.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

const USAGE = `usage: npm run opensearch -- <start|stop|status> [options]

  start    fetch the pinned OpenSearch (Maven Central, cached in ~/.m2) if needed, run it on 127.0.0.1 and
           return once the cluster is green; says so when it already runs
  stop     stop the node started from the same folder (by its pid)
  status   whether it runs, its health, version and folders (exit code 3 when it does not run)

options (environment in brackets):
  --nodes <n>        nodes: 1 runs a single-node cluster; more run a local cluster with node i on HTTP port
                     port + i and transport port port + 100 + i, its files under <dir>/cluster-<port>/node-<i>
                     (stop stops every node there) [WI_OPENSEARCH_NODES] (default 1)
  --heap <size>      JVM heap of each node, e.g. 512m or 1g [WI_OPENSEARCH_HEAP] (default ${DEFAULT_HEAP}, ${DEFAULT_CLUSTER_HEAP} with --nodes > 1)
  --port <n>         HTTP port (of the first node); transport uses port + 100 [WI_OPENSEARCH_PORT] (default ${DEFAULT_HTTP_PORT})
  --dir <path>       distribution, data, logs and pid file [WI_OPENSEARCH_DIR] (default <repo>/.data/opensearch)
  --user <name>      system user the node runs as when started by root [WI_OPENSEARCH_USER] (default ${DEFAULT_NODE_USER})
  --timeout <s>      how long start waits for green [WI_OPENSEARCH_START_TIMEOUT] (default 600)
  Java: OPENSEARCH_JAVA_HOME, else JAVA_HOME, else the newest JDK >= 21 under /usr/lib/jvm.`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    nodes: { type: 'string' },
    heap: { type: 'string' },
    port: { type: 'string' },
    dir: { type: 'string' },
    user: { type: 'string' },
    timeout: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const command = positionals[0];
if (positionals.length !== 1 || (command !== 'start' && command !== 'stop' && command !== 'status')) fail(USAGE);

const env = process.env;
const nodes = Number(values.nodes ?? env['WI_OPENSEARCH_NODES'] ?? 1);
if (!Number.isInteger(nodes) || nodes < 1 || nodes > 9) fail(`--nodes must be a whole number from 1 to 9, got ${values.nodes ?? env['WI_OPENSEARCH_NODES']}`);
const heap = values.heap ?? env['WI_OPENSEARCH_HEAP'] ?? (nodes > 1 ? DEFAULT_CLUSTER_HEAP : DEFAULT_HEAP);
if (!/^[1-9][0-9]*[kmgKMG]$/.test(heap)) fail(`--heap must look like 512m or 1g, got ${heap}`);
const port = Number(values.port ?? env['WI_OPENSEARCH_PORT'] ?? DEFAULT_HTTP_PORT);
if (!Number.isInteger(port) || port < 1 || port + nodes - 1 > 65435) fail(`--port must be a port number (transport uses port + 100), got ${values.port ?? env['WI_OPENSEARCH_PORT']}`);
const timeout = Number(values.timeout ?? env['WI_OPENSEARCH_START_TIMEOUT'] ?? 600);
if (!Number.isFinite(timeout) || timeout <= 0) fail(`--timeout must be a positive number of seconds`);
const options = {
  dir: resolve(values.dir ?? env['WI_OPENSEARCH_DIR'] ?? resolve(REPO_ROOT, '.data', 'opensearch')),
  httpPort: port,
  heap,
  user: values.user ?? env['WI_OPENSEARCH_USER'] ?? DEFAULT_NODE_USER,
  startTimeoutSeconds: timeout,
  env,
  log: (line: string) => console.log(line),
};

try {
  if (nodes > 1) {
    const cluster = { ...options, basePort: port, nodes };
    if (command === 'start') {
      await startLocalCluster(cluster);
    } else if (command === 'stop') {
      console.log(`${await stopLocalCluster(cluster)} node(s) stopped`);
    } else {
      const status = await localClusterStatus(cluster);
      console.log(status.text);
      process.exitCode = status.running === nodes ? 0 : 3;
    }
  } else if (command === 'start') {
    await startLocalNode(options);
  } else if (command === 'stop') {
    await stopLocalNode(options);
  } else {
    const status = await localNodeStatus(options);
    console.log(status.text);
    process.exitCode = status.running ? 0 : 3;
  }
} catch (error) {
  console.error(`opensearch ${command}: ${(error as Error).message}`);
  process.exitCode = 1;
}
