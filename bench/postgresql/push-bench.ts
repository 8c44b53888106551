// npm run bench:push [-- --runs N]
// Push latency of live updates on PostgreSQL (bench/load/push-latency.ts): a scratch database, the server with its
// LISTEN feed over real HTTP, each change one Fluent Bit flush (the pgsql output's INSERT). The last line printed is
// one JSON object with the figures.
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { createTestDatabase, loadEvents, startPostgresqlLiveServer } from '@workflow-index/postgresql/testing';
import { measurePushLatency, printPushLatency } from '../load/push-latency.js';

const argv = await yargs(hideBin(process.argv))
  .option('runs', { type: 'number', default: 200, describe: 'changes measured, one at a time' })
  .strict()
  .parse();

const database = await createTestDatabase();
try {
  const server = await startPostgresqlLiveServer(database, { GRAPHQL_SUBSCRIPTION_HEARTBEAT_MS: '10000' });
  try {
    printPushLatency('postgresql', await measurePushLatency({ baseUrl: server.baseUrl, deliver: (events) => loadEvents(database.pool, events) }, argv.runs, 'bench-pg'));
  } finally {
    await server.close();
  }
} finally {
  await database.drop();
}
