// npm run bench:export [-- --instances 1000000 --format jsonl|csv --page-size 500 --encoding identity|gzip]
//
// The export's memory and throughput on PostgreSQL (bench/load/export-measure.ts says what is measured). Generates the
// bench dataset (testkit bench-dataset.ts, bulk SQL into the normalized tables, no task executions: an export reads
// none) into a scratch database, starts the server (src/main.ts, production mode) as a child process and streams the
// export of every run. The last line printed is one JSON object with the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { createPostgresqlReader, migrate } from '@workflow-index/postgresql';
import { generateDataset } from '@workflow-index/postgresql/testing';
import { freePort } from '@workflow-index/testkit';
import { round } from '../load/http-load.js';
import { measureExport } from '../load/export-measure.js';
import { waitUntilReady } from '../load/server-process.js';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 1_000_000, describe: 'workflow instances generated (and exported)' })
  .option('format', { type: 'string', choices: ['jsonl', 'csv'] as const, default: 'jsonl' as const })
  .option('page-size', { type: 'number', default: 500, describe: "the server's EXPORT_PAGE_SIZE (and the floor's page)" })
  .option('encoding', { type: 'string', choices: ['identity', 'gzip'] as const, default: 'identity' as const, describe: 'Accept-Encoding of the export request' })
  .option('database-url', { type: 'string', default: process.env['WI_BENCH_DATABASE_URL'] ?? process.env['WI_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', describe: 'admin connection; a scratch database is created and dropped' })
  .strict()
  .parseSync();

const MAIN_SOURCE = fileURLToPath(new URL('../../server/postgresql/src/main.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function startServer(databaseUrl: string, pageSize: number): Promise<{ child: ChildProcess; baseUrl: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', MAIN_SOURCE], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1', DATABASE_URL: databaseUrl, EXPORT_PAGE_SIZE: String(pageSize), HTTP_MAX_REQUESTS_PER_CLIENT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilReady(child, `${baseUrl}/q/health/ready`, 'the server', 60);
  return { child, baseUrl };
}

async function main(): Promise<void> {
  const dbName = `wi_bench_export_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: argv['database-url'] });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = withDatabase(argv['database-url'], dbName);
  let server: ChildProcess | null = null;
  try {
    const owner = new pg.Client({ connectionString: url });
    await owner.connect();
    try {
      await migrate(owner);
      const genStart = performance.now();
      await generateDataset(owner, argv.instances, 0);
      log(`dataset: ${argv.instances} instances in ${round((performance.now() - genStart) / 1000, 1)} s`);
    } finally {
      await owner.end();
    }
    const started = await startServer(url, argv['page-size']);
    server = started.child;
    const reader = createPostgresqlReader({ pool: new pg.Pool({ connectionString: url, max: 2 }), ownsPool: true });
    try {
      const settings = { format: argv.format, encoding: argv.encoding, pageSize: argv['page-size'] };
      const figures = await measureExport({ baseUrl: started.baseUrl, pid: server.pid as number }, reader, settings, argv.instances, { id: { in: ['bench-00000001', 'bench-00000002'] } }, log);
      console.log(JSON.stringify({ backend: 'postgresql', ...figures }));
    } finally {
      await reader.close();
    }
  } finally {
    server?.kill('SIGTERM');
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
