#!/usr/bin/env node
// Entry point of the PostgreSQL server (`npm start`, `npm run serve:postgresql`, the container image); the path
// from flags to a running server (or to SERVER_PROCESSES workers) is core's server-main.ts.
import { runServerMain } from '@workflow-index/core';
import { DevServicesError } from './dev-database.js';
import { loadPostgresqlConfig, parseServerFlags, serverHelp } from './postgresql-config.js';
import { startPostgresqlServer } from './postgresql-server.js';

runServerMain({
  backend: 'postgresql',
  parseFlags: parseServerFlags,
  help: serverHelp,
  loadConfig: loadPostgresqlConfig,
  start: startPostgresqlServer,
  startFailure: (error) => (error instanceof DevServicesError ? error.message : undefined),
});
