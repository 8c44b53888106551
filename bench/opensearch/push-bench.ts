// npm run bench:push -- --backend opensearch [--runs N]
// Push latency of live updates on OpenSearch (bench/load/push-latency.ts): a scratch index namespace, the server with
// its change feed polling at the production interval, each change one Fluent Bit bulk into the raw indices and a
// normalizer cycle (refreshed, so "served" is when a query sees it). The last line printed is one JSON object.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { createTestNamespace, startOpenSearchLiveServer } from '@workflow-index/opensearch/testing';
import { POLL_INTERVAL_MS } from '@workflow-index/opensearch';
import { measurePushLatency, printPushLatency } from '../load/push-latency.js';

const argv = await yargs(hideBin(process.argv))
  .option('runs', { type: 'number', default: 100, describe: 'changes measured, one at a time' })
  .strict()
  .parse();

const namespace = createTestNamespace();
try {
  const server = await startOpenSearchLiveServer(namespace.client, namespace.prefix, { GRAPHQL_SUBSCRIPTION_HEARTBEAT_MS: '10000' }, POLL_INTERVAL_MS);
  try {
    printPushLatency('opensearch', await measurePushLatency(server, argv.runs, 'bench-os'));
  } finally {
    await server.close();
  }
} finally {
  await namespace.drop();
}
