#!/usr/bin/env node
// Entry point of the PostgreSQL server (`npm start`, `npm run serve:postgresql`, the container image).
// Exit codes: 0 after a graceful shutdown, 1 when start-up fails, 2 for invalid configuration or flags.
import { ConfigError } from '@workflow-index/core';
import { installGracefulShutdown } from '@workflow-index/core';
import { tuneHeapGrowth } from '@workflow-index/core';
import { createLogger } from '@workflow-index/core';
import { startTracing, tracingSettings } from '@workflow-index/core';
import { DevServicesError } from './dev-database.js';
import { loadPostgresqlConfig, parseServerFlags, serverHelp } from './postgresql-config.js';
import type { PostgresqlServerConfig } from './postgresql-config.js';
import { startPostgresqlServer } from './postgresql-server.js';

async function main(): Promise<void> {
  const { flags, problems } = parseServerFlags(process.argv.slice(2));
  if (flags.help === true && problems.length === 0) {
    process.stdout.write(`${await serverHelp()}\n`);
    return;
  }
  let config: PostgresqlServerConfig;
  try {
    config = loadPostgresqlConfig(process.env, flags, problems);
    tracingSettings(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`workflow-index: invalid configuration:\n${error.problems.map((p) => `  - ${p}`).join('\n')}\n(see --help and docs/configuration.md)\n`);
    process.exitCode = 2;
    return;
  }
  // Before anything large is allocated: the old generation grows by a fixed factor (heap-tuning.ts).
  const heapGrowth = tuneHeapGrowth();
  const logger = createLogger(config.core);
  logger.info({ mode: config.core.mode, backend: 'postgresql', heapGrowth }, 'starting');
  // Before the app is built: the GraphQL layer adds its spans only when tracing is on (OTEL_* environment).
  const tracing = startTracing(process.env, logger);
  let server;
  try {
    server = await startPostgresqlServer(config, logger);
  } catch (error) {
    if (error instanceof DevServicesError) logger.fatal(error.message);
    else logger.fatal({ err: error }, 'start-up failed');
    process.exitCode = 1;
    await tracing?.shutdown();
    // Whatever was started has been stopped; a handle nobody owns must not keep a failed process alive.
    setTimeout(() => process.exit(1), 2000).unref();
    return;
  }
  // The HTTP servers drain first (installGracefulShutdown closes them); close() then releases pool and dev database.
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
