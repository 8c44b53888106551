// npm run bench:stats -- --backend opensearch [--instances 1000000 --tasks-per-instance 2 --duration 20 --queries a,b
//   --url http://127.0.0.1:9200 --keep-indices --reuse-prefix P]: the statistics queries on OpenSearch over the bench
// dataset (testkit bench-dataset.ts, the population PostgreSQL's bench:stats measures), measured as
// bench/load/stats-measure.ts says (fixed 10 req/s and saturation, a point lookup as floor in the same run, the
// machine's load average). The dataset is written straight into the normalized indices of a random prefix
// (server/opensearch/test/support/bench-dataset.ts: documents made by the normalizer's own function, bulk-indexed,
// then force-merged): a query benchmark, ingestion is bench:ingest's. 1,000,000 runs with 2 tasks each take about
// 12 minutes to write on the 2-core machine; --keep-indices / --reuse-prefix keep them for the next run.
import { Client } from '@opensearch-project/opensearch';
import { randomBytes } from 'node:crypto';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { applyNormalizedIndices, createOpenSearchReader, normalizedIndexNames } from '@workflow-index/opensearch';
import { writeDataset } from '@workflow-index/opensearch/testing';
import { round } from '../load/http-load.js';
import { checkStats, measureStats } from '../load/stats-measure.js';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 1_000_000 })
  .option('tasks-per-instance', { type: 'number', default: 2 })
  .option('duration', { type: 'number', default: 20, describe: 'seconds per measurement' })
  .option('queries', { type: 'string', describe: 'comma-separated parts of the query names to measure (default: all)' })
  .option('url', { type: 'string', default: process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200', describe: 'the node' })
  .option('keep-indices', { type: 'boolean', default: false, describe: 'keep the generated indices at the end (their prefix is printed) for --reuse-prefix' })
  .option('reuse-prefix', { type: 'string', describe: 'measure the indices a previous --keep-indices run generated (same --instances) instead of writing them; kept at the end' })
  .strict()
  .parseSync();

const prefix = argv['reuse-prefix'] ?? `wi-bench-stats-${randomBytes(4).toString('hex')}-`;
const client = new Client({ node: argv.url, requestTimeout: 600_000 });
const names = normalizedIndexNames(prefix);
try {
  if (argv['reuse-prefix'] === undefined) {
    const started = performance.now();
    await applyNormalizedIndices(client, prefix);
    await writeDataset(client, names, argv.instances, argv['tasks-per-instance']);
    console.log(`dataset ${prefix}: ${argv.instances} runs x ${argv['tasks-per-instance']} tasks over 30 days (${round(argv.instances / 30, 0)} runs a day), written in ${round((performance.now() - started) / 1000, 1)} s`);
  }
  // The same request repeated on unchanging indices would be answered from the shard request cache (size-0 searches
  // and aggregations are cached), which a live index refreshing every second rarely does: measured without it.
  await client.indices.putSettings({ index: `${names.workflowInstances},${names.taskExecutions}`, body: { index: { requests: { cache: { enable: false } } } } });
  const reader = createOpenSearchReader({ client: new Client({ node: argv.url, requestTimeout: 60_000 }), prefix });
  try {
    await checkStats(reader, argv.instances);
    await measureStats(reader, argv.instances, argv.duration, argv.queries?.split(',') ?? null);
  } finally {
    await reader.close();
  }
} finally {
  if (argv['keep-indices'] || argv['reuse-prefix'] !== undefined) console.log(`kept indices ${prefix}*`);
  else await client.indices.delete({ index: `${prefix}*` });
  await client.close();
}
