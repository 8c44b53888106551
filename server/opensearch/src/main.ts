#!/usr/bin/env node
// Entry point of the OpenSearch server (`npm run serve:opensearch`, the container image's opensearch target); the
// path from flags to a running server (or to SERVER_PROCESSES workers) is core's server-main.ts.
import { runServerMain } from '@workflow-index/core';
import { loadOpenSearchServerConfig, openSearchServerHelp, parseOpenSearchServerFlags } from './opensearch-server-config.js';
import { startOpenSearchServer } from './opensearch-server.js';

runServerMain({
  backend: 'opensearch',
  parseFlags: parseOpenSearchServerFlags,
  help: openSearchServerHelp,
  loadConfig: loadOpenSearchServerConfig,
  start: (config, logger) => startOpenSearchServer(config, logger),
});
