// Start-up of the OpenSearch server from a loaded configuration: client → (when configured) raw schema and normalized
// indices → reader → app → HTTP. close() undoes it in reverse: drain HTTP, dispose the app, close the client.
// The server only reads the normalized indices (the normalizer writes them, `npm run normalize:opensearch`); readiness
// is DOWN, with the reason, while the cluster does not answer or the normalized indices do not exist, and comes UP by
// itself once they do (every probe searches them).
import type { Client } from '@opensearch-project/opensearch';
import { createApp } from '@workflow-index/core';
import type { App } from '@workflow-index/core';
import { startHttpServer } from '@workflow-index/core';
import type { RunningServer } from '@workflow-index/core';
import type { Logger } from '@workflow-index/core';
import { applyRawSchema } from './apply-raw-schema.js';
import { applyNormalizedIndices, normalizedIndexNames } from './normalized-indices.js';
import { OpenSearchChangeFeed } from './opensearch-change-feed.js';
import { openSearchClient } from './opensearch-connection-settings.js';
import type { OpenSearchServerConfig } from './opensearch-server-config.js';
import { createOpenSearchReader, type OpenSearchReader } from './reader/opensearch-reader.js';

export const BACKEND_NAME = 'opensearch';

export interface OpenSearchServer {
  readonly app: App;
  readonly reader: OpenSearchReader;
  readonly http: RunningServer;
  /** Base URL of the HTTP listener on loopback, e.g. `http://localhost:8080`. */
  readonly baseUrl: string;
  /** Drains HTTP, disposes the app, closes the client (unless it was passed in). Idempotent. */
  close(): Promise<void>;
}

export interface StartOpenSearchServerOptions {
  /** A client to use instead of one built from `config.opensearch.connection` (then close() leaves it open). */
  readonly client?: Client;
}

/** Starts everything; on failure, whatever was already started is stopped again before the error is thrown. */
export async function startOpenSearchServer(config: OpenSearchServerConfig, logger: Logger, options: StartOpenSearchServerOptions = {}): Promise<OpenSearchServer> {
  const cleanups: Array<() => Promise<void>> = [];
  const unwind = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    const { opensearch } = config;
    const client = options.client ?? openSearchClient(opensearch.connection);
    if (options.client === undefined) cleanups.push(() => client.close());
    logger.info({ node: opensearch.connection.node, user: opensearch.connection.username ?? null, indexPrefix: opensearch.indexPrefix || undefined }, 'opensearch');

    if (opensearch.schemaInit) {
      await applyRawSchema(client, { prefix: opensearch.indexPrefix });
      const indices = await applyNormalizedIndices(client, opensearch.indexPrefix);
      logger.info({ indices: indices.map((i) => `${i.name}: ${i.action}`) }, 'raw templates, pipeline and normalized indices in place');
    } else {
      logger.info('schema initialization off (OPENSEARCH_SCHEMA_INIT=false): the init job (opensearch-setup) manages the indices');
    }

    const reader = createOpenSearchReader({ client, prefix: opensearch.indexPrefix, requestTimeoutMs: opensearch.queryTimeoutMs, ownsClient: false });
    try {
      await reader.ping(config.core.health.backendTimeoutMs);
    } catch (error) {
      // Not fatal: readiness reports DOWN with the reason, and every probe tries again.
      logger.warn({ reason: (error as Error).message }, 'OpenSearch not ready at start; serving with readiness DOWN until it is');
    }

    const changeFeed = new OpenSearchChangeFeed({ client, index: normalizedIndexNames(opensearch.indexPrefix).workflowInstances, logger });
    const app = createApp({ config: config.core, reader, logger, backend: BACKEND_NAME, changeFeed });
    cleanups.push(() => app.dispose());
    const http = await startHttpServer(app, config.core, logger);
    cleanups.push(() => http.close());

    const baseUrl = `http://localhost:${http.httpPort}`;
    let closing: Promise<void> | undefined;
    return { app, reader, http, baseUrl, close: () => (closing ??= unwind()) };
  } catch (error) {
    await unwind();
    throw error;
  }
}
