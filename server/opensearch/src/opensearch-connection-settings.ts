// OpenSearch connection settings from the environment (CONTRACT §4): OPENSEARCH_HOST (required), OPENSEARCH_PORT
// (9200), OPENSEARCH_PROTOCOL (http | https), OPENSEARCH_USERNAME / OPENSEARCH_PASSWORD, OPENSEARCH_CA_FILE (https).
// OPENSEARCH_HOST may name several nodes of one cluster, separated by commas, each `host` or `host:port` (the port
// defaults to OPENSEARCH_PORT); one host (a Kubernetes Service) is the usual case.
// Every problem is collected so an operator fixes the configuration in one round; no message holds the password.
import { Client, type ClientOptions } from '@opensearch-project/opensearch';
import { readFileSync } from 'node:fs';

export interface OpenSearchConnectionSettings {
  /** The first node's URL. */
  readonly node: string;
  /** Every node's URL, `node` first. */
  readonly nodes: readonly string[];
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly caFile: string | undefined;
}

export function openSearchConnectionSettings(env: Readonly<Record<string, string | undefined>>): { settings: OpenSearchConnectionSettings | null; problems: string[] } {
  const problems: string[] = [];
  const host = env['OPENSEARCH_HOST']?.trim();
  if (!host) problems.push('OPENSEARCH_HOST is required (the OpenSearch host name, e.g. opensearch.example.svc)');
  const portText = env['OPENSEARCH_PORT']?.trim() || '9200';
  const port = Number(portText);
  if (!isPort(port)) problems.push(`OPENSEARCH_PORT must be a port number (1-65535), got ${JSON.stringify(portText)}`);
  const hosts = host ? hostList(host, port, problems) : [];
  const protocol = (env['OPENSEARCH_PROTOCOL']?.trim() || 'http').toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') problems.push(`OPENSEARCH_PROTOCOL must be http or https, got ${JSON.stringify(protocol)}`);
  const username = env['OPENSEARCH_USERNAME'] || undefined;
  const password = env['OPENSEARCH_PASSWORD'] || undefined;
  if (password !== undefined && username === undefined) problems.push('OPENSEARCH_PASSWORD is set without OPENSEARCH_USERNAME');
  const caFile = env['OPENSEARCH_CA_FILE'] || undefined;
  if (caFile !== undefined && protocol !== 'https') problems.push('OPENSEARCH_CA_FILE needs OPENSEARCH_PROTOCOL=https');
  if (problems.length > 0) return { settings: null, problems };
  const nodes = hosts.map((h) => `${protocol}://${h}`);
  return { settings: { node: nodes[0] ?? '', nodes, username, password, caFile }, problems };
}

function isPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

/** `a, b:9201` → `['a:<port>', 'b:9201']`; an IPv6 address is written in brackets (`[::1]:9200`). */
function hostList(text: string, port: number, problems: string[]): string[] {
  return text.split(',').flatMap((entry) => {
    const item = entry.trim();
    const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+)(?::(\d+))?$/.exec(item);
    if (match === null || (match[2] !== undefined && !isPort(Number(match[2])))) {
      problems.push(`OPENSEARCH_HOST must be host names separated by commas, each host or host:port, got ${JSON.stringify(item)} in ${JSON.stringify(text)}`);
      return [];
    }
    return [`${match[1]}:${match[2] ?? port}`];
  });
}

/**
 * The client of the server, the normalizer and the init job: the nodes configured (usually one, a Service in front
 * of the cluster), no sniffing (the default: the pool stays those URLs, never the pod addresses behind a Service).
 * After a connection failure the pool marks the node dead and the client retries the request on the next live node
 * (maxRetries 3, the default; the reader's searches fail over themselves, search-requests.ts); a dead node is tried
 * again by the `ping` resurrection (after 60 s, doubling). A pool whose connections are all dead still hands out a
 * dead one rather than NoLivingConnectionsError, so the first request after an outage reaches the node again.
 * `outage-recovery.test.ts` holds both processes to that for one node, `cluster-node-death.test.ts` for three.
 */
export function openSearchClient(settings: OpenSearchConnectionSettings): Client {
  const options: ClientOptions = { nodes: [...settings.nodes], requestTimeout: 30_000 };
  if (settings.username !== undefined) options.auth = { username: settings.username, password: settings.password ?? '' };
  if (settings.caFile !== undefined) options.ssl = { ca: readFileSync(settings.caFile), rejectUnauthorized: true };
  return new Client(options);
}
