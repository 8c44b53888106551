// OpenSearch connection settings from the environment (CONTRACT §4): OPENSEARCH_HOST (required), OPENSEARCH_PORT
// (9200), OPENSEARCH_PROTOCOL (http | https), OPENSEARCH_USERNAME / OPENSEARCH_PASSWORD, OPENSEARCH_CA_FILE (https).
// Every problem is collected so an operator fixes the configuration in one round; no message holds the password.
import { Client, type ClientOptions } from '@opensearch-project/opensearch';
import { readFileSync } from 'node:fs';

export interface OpenSearchConnectionSettings {
  readonly node: string;
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
  if (!Number.isInteger(port) || port < 1 || port > 65535) problems.push(`OPENSEARCH_PORT must be a port number (1-65535), got ${JSON.stringify(portText)}`);
  const protocol = (env['OPENSEARCH_PROTOCOL']?.trim() || 'http').toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') problems.push(`OPENSEARCH_PROTOCOL must be http or https, got ${JSON.stringify(protocol)}`);
  const username = env['OPENSEARCH_USERNAME'] || undefined;
  const password = env['OPENSEARCH_PASSWORD'] || undefined;
  if (password !== undefined && username === undefined) problems.push('OPENSEARCH_PASSWORD is set without OPENSEARCH_USERNAME');
  const caFile = env['OPENSEARCH_CA_FILE'] || undefined;
  if (caFile !== undefined && protocol !== 'https') problems.push('OPENSEARCH_CA_FILE needs OPENSEARCH_PROTOCOL=https');
  if (problems.length > 0) return { settings: null, problems };
  return { settings: { node: `${protocol}://${host}:${port}`, username, password, caFile }, problems };
}

/**
 * The client of the server and the normalizer: one node URL (a Service in front of the cluster), no sniffing (the
 * default: the pool stays that one URL, never the pod addresses behind it). After a failure the pool marks the node
 * dead, but a pool whose connections are all dead still hands out the dead one rather than NoLivingConnectionsError,
 * so the first request after an outage reaches the node again; the `ping` resurrection (60 s, doubling) only matters
 * for pools of several nodes. `outage-recovery.test.ts` holds both processes to that.
 */
export function openSearchClient(settings: OpenSearchConnectionSettings): Client {
  const options: ClientOptions = { node: settings.node, requestTimeout: 30_000 };
  if (settings.username !== undefined) options.auth = { username: settings.username, password: settings.password ?? '' };
  if (settings.caFile !== undefined) options.ssl = { ca: readFileSync(settings.caFile), rejectUnauthorized: true };
  return new Client(options);
}
