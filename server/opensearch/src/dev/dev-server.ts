// The GraphQL server and UI of development mode on OpenSearch: the production server's start-up
// (opensearch-server.ts) with its configuration loaded in development mode (GraphiQL UI, /docs, loopback
// 127.0.0.1:8080 unless HTTP_HOST/HTTP_PORT say otherwise), pointed at the node dev-main started and sharing its
// client, with the in-process normalizer's metrics on the same /q/metrics. Invalid settings (HTTP_PORT=abc, …) are
// reported all at once, as `npm start` does.
import type { Client } from '@opensearch-project/opensearch';
import type { Metric } from 'prom-client';
import { ConfigError } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
import type { OpenSearchNormalizer } from '../normalizer-job.js';
import type { OpenSearchConnectionSettings } from '../opensearch-connection-settings.js';
import { loadOpenSearchServerConfig } from '../opensearch-server-config.js';
import { startOpenSearchServer } from '../opensearch-server.js';
import { DevNodeError } from './dev-node.js';

export interface DevServerOptions {
  readonly settings: OpenSearchConnectionSettings;
  readonly client: Client;
  readonly prefix: string;
  readonly normalizer: OpenSearchNormalizer;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface DevServer {
  readonly baseUrl: string;
  /** The lines printed once the server listens (console, UI, docs, API, health and metrics). */
  readonly links: readonly string[];
  close(): Promise<void>;
}

/** The OPENSEARCH_* variables that name `settings` (the node dev-main chose may not be the environment's). */
function connectionEnv(settings: OpenSearchConnectionSettings): Record<string, string | undefined> {
  const url = new URL(settings.node);
  return {
    OPENSEARCH_HOST: url.hostname,
    OPENSEARCH_PORT: url.port || (url.protocol === 'https:' ? '443' : '80'),
    OPENSEARCH_PROTOCOL: url.protocol.replace(':', ''),
    OPENSEARCH_USERNAME: settings.username,
    OPENSEARCH_PASSWORD: settings.password,
    OPENSEARCH_CA_FILE: settings.caFile,
  };
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  let config;
  try {
    config = loadOpenSearchServerConfig({
      ...options.env,
      ...connectionEnv(options.settings),
      // Development mode whatever NODE_ENV says: this command is for a developer's machine.
      NODE_ENV: 'development',
      WI_OPENSEARCH_INDEX_PREFIX: options.prefix,
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new DevNodeError(`invalid configuration:\n${error.problems.map((p) => `  - ${p}`).join('\n')}`);
    throw error;
  }
  const logger = createLogger(config.core);
  const server = await startOpenSearchServer(config, logger, { client: options.client });
  // One scrape shows the server and the normalizer (the production normalizer serves the same metrics on its own port).
  for (const metric of options.normalizer.metrics.registry.getMetricsAsArray()) server.app.registry.registerMetric(metric as unknown as Metric);
  const host = config.core.http.host === null || config.core.http.host === '0.0.0.0' ? 'localhost' : config.core.http.host;
  const baseUrl = `http://${host}:${server.http.httpPort}`;
  return {
    baseUrl,
    links: [
      // The same condition as the server's console routes (and as the PostgreSQL development mode's line).
      ...(config.core.console.enabled && config.core.graphql.introspection !== 'NO_INTROSPECTION_OR_QUERY' ? [`  Console       ${baseUrl}/`] : []),
      `  GraphQL UI    ${baseUrl}/q/graphql-ui`,
      `  Docs          ${baseUrl}/docs`,
      `  GraphQL API   ${baseUrl}/graphql  (POST)`,
      `  Health        ${baseUrl}/q/health   Metrics ${baseUrl}/q/metrics (normalizer included)`,
    ],
    close: () => server.close(),
  };
}
