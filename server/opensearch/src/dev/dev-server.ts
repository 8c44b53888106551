// The GraphQL server and UI of development mode on OpenSearch: the backend-neutral app (server/core) over the
// OpenSearch reader, in development mode (GraphiQL UI, /docs, loopback 127.0.0.1:8080 unless HTTP_HOST/HTTP_PORT
// say otherwise), with the in-process normalizer's metrics on the same /q/metrics.
import { createApp } from '@workflow-index/core/app';
import { loadCoreConfig } from '@workflow-index/core/config';
import { startHttpServer } from '@workflow-index/core/http-server';
import { createLogger } from '@workflow-index/core/logger';
import type { Metric } from 'prom-client';
import type { OpenSearchNormalizer } from '../normalizer-job.js';
import { openSearchClient, type OpenSearchConnectionSettings } from '../opensearch-connection-settings.js';
import { createOpenSearchReader } from '../reader/opensearch-reader.js';

export interface DevServerOptions {
  readonly settings: OpenSearchConnectionSettings;
  readonly prefix: string;
  readonly normalizer: OpenSearchNormalizer;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface DevServer {
  readonly baseUrl: string;
  /** The lines printed once the server listens (UI, docs, API, health and metrics). */
  readonly links: readonly string[];
  close(): Promise<void>;
}

export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  // Development mode whatever NODE_ENV says: this command is for a developer's machine.
  const config = loadCoreConfig({ ...options.env, NODE_ENV: 'development' });
  const logger = createLogger(config);
  const reader = createOpenSearchReader({ client: openSearchClient(options.settings), prefix: options.prefix });
  const app = createApp({ config, reader, logger, backend: 'opensearch' });
  // One scrape shows the server and the normalizer (the production normalizer serves the same metrics on its own port).
  for (const metric of options.normalizer.metrics.registry.getMetricsAsArray()) app.registry.registerMetric(metric as unknown as Metric);
  let http;
  try {
    http = await startHttpServer(app, config, logger);
  } catch (error) {
    await app.dispose();
    await reader.close();
    throw error;
  }
  const running = http;
  const baseUrl = `http://${config.http.host === null || config.http.host === '0.0.0.0' ? 'localhost' : config.http.host}:${running.httpPort}`;
  let closed: Promise<void> | undefined;
  return {
    baseUrl,
    links: [
      `  GraphQL UI    ${baseUrl}/q/graphql-ui`,
      `  Docs          ${baseUrl}/docs`,
      `  GraphQL API   ${baseUrl}/graphql  (POST)`,
      `  Health        ${baseUrl}/q/health   Metrics ${baseUrl}/q/metrics (normalizer included)`,
    ],
    close: () => (closed ??= (async () => {
      await running.close();
      await app.dispose();
      await reader.close();
    })()),
  };
}
