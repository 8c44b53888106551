#!/usr/bin/env node
// Entry point of the OpenSearch server (`npm run serve:opensearch`, the container image's opensearch target).
// Exit codes: 0 after a graceful shutdown, 1 when start-up fails, 2 for invalid configuration or flags.
import { ConfigError } from '@workflow-index/core';
import { tuneHeapGrowth } from '@workflow-index/core';
import { installGracefulShutdown } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
import { startTracing, tracingSettings } from '@workflow-index/core';
import { loadOpenSearchServerConfig, openSearchServerHelp, parseOpenSearchServerFlags } from './opensearch-server-config.js';
import type { OpenSearchServerConfig } from './opensearch-server-config.js';
import { startOpenSearchServer } from './opensearch-server.js';

async function main(): Promise<void> {
  const { flags, problems } = parseOpenSearchServerFlags(process.argv.slice(2));
  if (flags.help === true && problems.length === 0) {
    process.stdout.write(`${openSearchServerHelp()}\n`);
    return;
  }
  let config: OpenSearchServerConfig;
  try {
    config = loadOpenSearchServerConfig(process.env, flags, problems);
    tracingSettings(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`workflow-index: invalid configuration:\n${error.problems.map((p) => `  - ${p}`).join('\n')}\n(see --help and docs/configuration.md)\n`);
    process.exitCode = 2;
    return;
  }
  // The same heap-growth bound as the PostgreSQL server (server/core/src/heap-tuning.ts): responses are built alike.
  const heapGrowth = tuneHeapGrowth();
  const logger = createLogger(config.core);
  logger.info({ mode: config.core.mode, backend: 'opensearch', heapGrowth }, 'starting');
  // Before the app is built: the GraphQL layer adds its spans only when tracing is on (OTEL_* environment).
  const tracing = startTracing(process.env, logger);
  let server;
  try {
    server = await startOpenSearchServer(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    process.exitCode = 1;
    await tracing?.shutdown();
    // Whatever was started has been stopped; a handle nobody owns must not keep a failed process alive.
    setTimeout(() => process.exit(1), 2000).unref();
    return;
  }
  // The HTTP servers drain first (installGracefulShutdown closes them); close() then releases the client.
  installGracefulShutdown(server.http, async () => {
    await server.close();
    await tracing?.shutdown();
  }, logger);
  logger.info({ startupMs: Math.round(performance.now()), httpPort: server.http.httpPort }, 'server started');
}

main().catch((error: unknown) => {
  process.stderr.write(`workflow-index: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
