// A second, secured local OpenSearch node for the least-privilege suite: OpenSearch 3.4.0 with the security plugin
// 3.4.0.0 (the newest Maven Central serves; a plugin installs only on its exact OpenSearch version, and the bundle
// pins 3.8.0, whose plugin is not published there), run by local-node.ts from `<repo>/.data/opensearch-secure` on
// 127.0.0.1:9201 (transport 9301) with a 512 MiB heap, https with a CA made at start (secure-node-tls.ts) and an
// `admin` user mapped to all_access (the security admin a platform team has). Every start wipes the data folder, so
// the security index is initialized again from the yml files written here. The suite stops it by pid at the end; a
// process exit stops it too.
// Availability: Java >= 21, mvn, openssl, unzip and zip (and bash, curl and jq for the roles' apply.sh). Outside CI a missing tool skips the suite with the reason;
// with CI=true it fails. The port can be moved with WI_SECURE_OPENSEARCH_PORT.
import { Client } from '@opensearch-project/opensearch';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findJavaHome } from '../../src/local-node-java.js';
import { type ClusterHealth, type HealthProbe, type LocalNodePaths, runningPid, localNodePaths, startLocalNode, stopLocalNode } from '../../src/local-node.js';
import { completeSecureHome, SECURE_NODE_VERSION } from './secure-node-home.js';
import { ADMIN_DN, NODE_DN, writeNodeCertificates } from './secure-node-tls.js';

export { SECURE_NODE_VERSION };

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const SECURE_NODE_DIR = join(REPO_ROOT, '.data', 'opensearch-secure');
export const SECURE_HTTP_PORT = Number(process.env['WI_SECURE_OPENSEARCH_PORT'] ?? 9201);
export const SECURITY_ADMIN = 'admin';
// A loopback node that lives for one suite; the password only has to satisfy the plugin's rules.
const SECURITY_ADMIN_PASSWORD = 'Wi-test-admin-7f3a!';

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

export interface SecureNode {
  /** `https://127.0.0.1:9201` */
  readonly url: string;
  /** The CA that signed the node's certificate (OPENSEARCH_CA_FILE). */
  readonly caFile: string;
  readonly admin: Credentials;
  /** Seconds from the launch to green (the download and assembly of a first run excluded). */
  readonly startSeconds: number;
  /** A client that authenticates as `credentials` and verifies the node with the CA. */
  client(credentials: Credentials): Client;
  /** CONTRACT §4 connection settings for a process of ours that connects as `credentials`. */
  connectionEnv(credentials: Credentials): Record<string, string>;
  /** Stops the node by its pid; idempotent. */
  stop(): Promise<void>;
}

/** Why the secured node cannot run here, or undefined when everything it needs is installed. */
export function secureNodeUnavailable(): string | undefined {
  try {
    findJavaHome(process.env);
  } catch (error) {
    return (error as Error).message;
  }
  for (const tool of ['mvn', 'openssl', 'unzip', 'zip', 'bash', 'curl', 'jq']) {
    const probe = spawnSync(tool, [tool === 'openssl' ? 'version' : tool === 'mvn' || tool === 'zip' || tool === 'unzip' ? '-v' : '--version'], { stdio: 'ignore' });
    if (probe.error) return `\`${tool}\` is not installed`;
  }
  return undefined;
}

/** Outside CI: false with a message (the suite skips). With CI=true a missing tool throws: the suite fails. */
export function secureNodeAvailable(): boolean {
  const reason = secureNodeUnavailable();
  if (reason === undefined) return true;
  if (process.env['CI'] === 'true') throw new Error(`the least-privilege suite needs a secured OpenSearch ${SECURE_NODE_VERSION} node in CI, which cannot run here: ${reason}`);
  console.warn(`[skip] least-privilege suite skipped: the secured OpenSearch ${SECURE_NODE_VERSION} node cannot run here (${reason}).`);
  return false;
}

function httpsProbe(caFile: string, credentials: Credentials): HealthProbe {
  const ca = readFileSync(caFile);
  const authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  return (url, query) =>
    new Promise<ClusterHealth | undefined>((resolve) => {
      const req = request(`${url}/_cluster/health${query}`, { ca, headers: { authorization }, timeout: 3000 }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          if (response.statusCode !== 200 && response.statusCode !== 408) return resolve(undefined);
          try {
            const parsed = JSON.parse(body) as { status?: unknown; number_of_nodes?: unknown };
            resolve(typeof parsed.status === 'string' ? { status: parsed.status, numberOfNodes: Number(parsed.number_of_nodes) } : undefined);
          } catch {
            resolve(undefined);
          }
        });
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(undefined));
      req.end();
    });
}

function bcryptHash(home: string, javaHome: string, password: string): string {
  const result = spawnSync('bash', [join(home, 'plugins', 'opensearch-security', 'tools', 'hash.sh'), '-env', 'WI_HASH_PASSWORD'], {
    encoding: 'utf8',
    env: { ...process.env, JAVA_HOME: javaHome, OPENSEARCH_JAVA_HOME: javaHome, WI_HASH_PASSWORD: password },
  });
  const hash = result.stdout.trim().split('\n').pop() ?? '';
  if (result.status !== 0 || !hash.startsWith('$2')) throw new Error(`hash.sh failed (exit ${result.status}): ${result.stdout}${result.stderr}`);
  return hash;
}

/** The security plugin's settings: transport TLS (mandatory), https, the security index initialized from the yml files. */
function securitySettings(certs: ReturnType<typeof writeNodeCertificates>): string[] {
  return [
    `plugins.security.ssl.transport.pemcert_filepath: ${certs.nodeCert}`,
    `plugins.security.ssl.transport.pemkey_filepath: ${certs.nodeKey}`,
    `plugins.security.ssl.transport.pemtrustedcas_filepath: ${certs.ca}`,
    'plugins.security.ssl.transport.enforce_hostname_verification: false',
    'plugins.security.ssl.http.enabled: true',
    `plugins.security.ssl.http.pemcert_filepath: ${certs.nodeCert}`,
    `plugins.security.ssl.http.pemkey_filepath: ${certs.nodeKey}`,
    `plugins.security.ssl.http.pemtrustedcas_filepath: ${certs.ca}`,
    'plugins.security.allow_default_init_securityindex: true',
    `plugins.security.authcz.admin_dn: ["${ADMIN_DN}"]`,
    `plugins.security.nodes_dn: ["${NODE_DN}"]`,
    'plugins.security.restapi.roles_enabled: ["all_access"]',
    'plugins.security.system_indices.enabled: true',
  ];
}

// Only the security admin exists at start; the suite creates the workflow-index users and roles through the REST API.
function writeSecurityConfig(paths: LocalNodePaths, javaHome: string): void {
  const folder = join(paths.home, 'config', 'opensearch-security');
  const hash = bcryptHash(paths.home, javaHome, SECURITY_ADMIN_PASSWORD);
  writeFileSync(
    join(folder, 'internal_users.yml'),
    `_meta:\n  type: "internalusers"\n  config_version: 2\n${SECURITY_ADMIN}:\n  hash: "${hash}"\n  reserved: true\n  description: "security admin of the test node"\n`,
  );
  writeFileSync(join(folder, 'roles_mapping.yml'), `_meta:\n  type: "rolesmapping"\n  config_version: 2\nall_access:\n  reserved: false\n  users: ["${SECURITY_ADMIN}"]\n`);
}

/** Starts a fresh secured node (any node left from an earlier run of this folder is stopped first). */
export async function startSecureNode(log: (line: string) => void = (line) => console.log(`[secure-node] ${line}`)): Promise<SecureNode> {
  const dir = SECURE_NODE_DIR;
  const paths = localNodePaths(dir, SECURE_NODE_VERSION);
  await stopLocalNode({ dir, version: SECURE_NODE_VERSION, log });
  for (const folder of [paths.data, paths.logs]) rmSync(folder, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });

  const admin: Credentials = { username: SECURITY_ADMIN, password: SECURITY_ADMIN_PASSWORD };
  const caFile = join(paths.home, 'config', 'root-ca.pem');
  const prepare = (prepared: LocalNodePaths, javaHome: string): string[] => {
    completeSecureHome(prepared.home, javaHome, log);
    const certs = writeNodeCertificates(join(prepared.home, 'config'));
    writeSecurityConfig(prepared, javaHome);
    return securitySettings(certs);
  };
  const options = {
    dir,
    httpPort: SECURE_HTTP_PORT,
    heap: '512m',
    user: 'opensearch',
    startTimeoutSeconds: 600,
    env: process.env,
    log,
    version: SECURE_NODE_VERSION,
    protocol: 'https' as const,
    prepare,
    // The CA exists only once prepare() ran; before, a probe finds no node (nothing else may hold the port).
    probe: ((url, query) => {
      try {
        return httpsProbe(caFile, admin)(url, query);
      } catch {
        return Promise.resolve(undefined);
      }
    }) satisfies HealthProbe,
  };
  const stop = async (): Promise<void> => {
    await stopLocalNode({ dir, version: SECURE_NODE_VERSION, log });
  };
  // A process that ends without the suite's afterAll (a crash, an interrupted run) must not leave the node behind.
  const onExit = (): void => {
    const pid = runningPid(paths);
    if (pid !== undefined) process.kill(pid, 'SIGTERM');
  };
  process.once('exit', onExit);
  let result;
  try {
    result = await startLocalNode(options);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  if (result.state !== 'started') {
    await stop().catch(() => undefined);
    throw new Error(`expected a fresh secured node on ${result.url}, found ${result.state === 'foreign' ? 'another node on that port' : 'one already running'}`);
  }
  const url = result.url;
  return {
    url,
    caFile,
    admin,
    startSeconds: result.seconds,
    client: (credentials) => new Client({ node: url, auth: credentials, ssl: { ca: readFileSync(caFile), rejectUnauthorized: true } }),
    connectionEnv: (credentials) => ({
      OPENSEARCH_HOST: '127.0.0.1',
      OPENSEARCH_PORT: String(SECURE_HTTP_PORT),
      OPENSEARCH_PROTOCOL: 'https',
      OPENSEARCH_CA_FILE: caFile,
      OPENSEARCH_USERNAME: credentials.username,
      OPENSEARCH_PASSWORD: credentials.password,
    }),
    stop: async () => {
      process.removeListener('exit', onExit);
      await stop();
    },
  };
}
