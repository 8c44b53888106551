// npm run bench:export -- --backend opensearch [--instances 1000000 --format jsonl|csv --page-size 500
//   --encoding identity|gzip --url http://127.0.0.1:9200 --keep-indices --reuse-prefix P]
//
// The export's memory and throughput on OpenSearch (bench/load/export-measure.ts says what is measured), the twin of
// the PostgreSQL benchmark. The bench dataset (testkit bench-dataset.ts) is written straight into the normalized
// indices of a random prefix (documents made by the normalizer's own function, bulk-indexed); `--reuse-prefix` exports
// the indices an earlier bench:stats or bench:query run kept instead. The server (src/main.ts, production mode) runs as
// a child process on that prefix. The last line printed is one JSON object with the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@opensearch-project/opensearch';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { applyNormalizedIndices, applyRawSchema, createOpenSearchReader, normalizedIndexNames } from '@workflow-index/opensearch';
import { writeDataset } from '@workflow-index/opensearch/testing';
import { benchInstanceId, freePort } from '@workflow-index/testkit';
import { round } from '../load/http-load.js';
import { measureExport } from '../load/export-measure.js';
import { waitUntilReady } from '../load/server-process.js';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 1_000_000, describe: 'workflow instances generated (and exported)' })
  .option('format', { type: 'string', choices: ['jsonl', 'csv'] as const, default: 'jsonl' as const })
  .option('page-size', { type: 'number', default: 500, describe: "the server's EXPORT_PAGE_SIZE (and the floor's page)" })
  .option('encoding', { type: 'string', choices: ['identity', 'gzip'] as const, default: 'identity' as const, describe: 'Accept-Encoding of the export request' })
  .option('url', { type: 'string', default: process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200', describe: 'the node' })
  .option('keep-indices', { type: 'boolean', default: false, describe: 'keep the generated indices at the end (their prefix is printed) for --reuse-prefix' })
  .option('reuse-prefix', { type: 'string', describe: 'export the indices a previous --keep-indices run generated (as many runs as --instances) instead of writing them; kept at the end' })
  .strict()
  .parseSync();

const MAIN_SOURCE = fileURLToPath(new URL('../../server/opensearch/src/main.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

async function startServer(prefix: string, pageSize: number): Promise<{ child: ChildProcess; baseUrl: string }> {
  const port = await freePort();
  const node = new URL(argv.url);
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', MAIN_SOURCE], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1', EXPORT_PAGE_SIZE: String(pageSize), HTTP_MAX_REQUESTS_PER_CLIENT: '0', LOG_LEVEL: 'warn',
      OPENSEARCH_HOST: node.hostname, OPENSEARCH_PORT: node.port || '9200', OPENSEARCH_PROTOCOL: node.protocol.replace(':', ''), WI_OPENSEARCH_INDEX_PREFIX: prefix,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, `${baseUrl}/q/health/ready`, 'the server', 120);
  return { child, baseUrl };
}

async function main(): Promise<void> {
  const prefix = argv['reuse-prefix'] ?? `wi-bench-export-${randomBytes(4).toString('hex')}-`;
  const client = new Client({ node: argv.url, requestTimeout: 600_000 });
  let server: ChildProcess | null = null;
  try {
    await applyRawSchema(client, { prefix });
    if (argv['reuse-prefix'] === undefined) {
      const started = performance.now();
      await applyNormalizedIndices(client, prefix);
      await writeDataset(client, normalizedIndexNames(prefix), argv.instances, 0);
      log(`dataset ${prefix}: ${argv.instances} runs written in ${round((performance.now() - started) / 1000, 1)} s`);
    }
    const started = await startServer(prefix, argv['page-size']);
    server = started.child;
    const reader = createOpenSearchReader({ client: new Client({ node: argv.url, requestTimeout: 60_000 }), prefix });
    try {
      const settings = { format: argv.format, encoding: argv.encoding, pageSize: argv['page-size'] };
      const figures = await measureExport({ baseUrl: started.baseUrl, pid: server.pid as number }, reader, settings, argv.instances, { id: { in: [benchInstanceId(1), benchInstanceId(2)] } }, log);
      console.log(JSON.stringify({ backend: 'opensearch', ...figures }));
    } finally {
      await reader.close();
    }
  } finally {
    server?.kill('SIGTERM');
    if (argv['keep-indices'] || argv['reuse-prefix'] !== undefined) log(`kept indices ${prefix}*`);
    else await client.indices.delete({ index: `${prefix}*` });
    await client.close();
  }
}

await main();
