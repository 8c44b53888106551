// npm run bench:export [-- --instances 1000000 --format jsonl|csv --page-size 500 --encoding identity|gzip]
//
// The export's memory and throughput on PostgreSQL. Generates the bench dataset (testkit bench-dataset.ts, bulk SQL
// into the normalized tables, no task executions: an export reads none) into a scratch database, starts the server
// (src/main.ts, production mode) as a child process and streams GET /export/workflow-instances of every run over HTTP,
// counting rows. Memory: the server's RSS at rest (after start-up and one small export), then its peak resident set
// during the export (VmHWM, reset through /proc/<pid>/clear_refs just before it starts) — flat means the peak stays
// near the rest whatever --instances is. Throughput: rows/s of the export against a floor measured in the same run: the
// same keyset pages read straight through the PostgreSQL Reader in this process (no HTTP, no encoding), so the ratio
// is what the endpoint costs over the reads it cannot avoid. The last line printed is one JSON object with the figures.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { DEFAULT_LIST_ORDER, effectiveSortKeys, type KeysetPosition, type Reader } from '@workflow-index/core';
import { createPostgresqlReader, migrate } from '@workflow-index/postgresql';
import { generateDataset } from '@workflow-index/postgresql/testing';
import { freePort } from '@workflow-index/testkit';
import { round } from '../load/http-load.js';
import { peakRssMiB } from '../load/server-process.js';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 1_000_000, describe: 'workflow instances generated (and exported)' })
  .option('format', { type: 'string', choices: ['jsonl', 'csv'], default: 'jsonl' })
  .option('page-size', { type: 'number', default: 500, describe: "the server's EXPORT_PAGE_SIZE (and the floor's page)" })
  .option('encoding', { type: 'string', choices: ['identity', 'gzip'], default: 'identity', describe: 'Accept-Encoding of the export request' })
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

/** The process's current resident set (VmRSS), MiB. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return round(Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024, 1);
}

async function startServer(databaseUrl: string, pageSize: number): Promise<{ child: ChildProcess; baseUrl: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', MAIN_SOURCE], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1', DATABASE_URL: databaseUrl, EXPORT_PAGE_SIZE: String(pageSize), HTTP_MAX_REQUESTS_PER_CLIENT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const readyBy = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode} during start-up`);
    if ((await fetch(`${baseUrl}/q/health/ready`).then((r) => r.status, () => 0)) === 200) return { child, baseUrl };
    if (Date.now() > readyBy) throw new Error('the server did not become ready within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Streams one export, counting its lines (rows + header/trailer) and bytes, sampling the server's RSS meanwhile. */
async function exportOnce(baseUrl: string, pid: number, filter: unknown): Promise<{ lines: number; bytes: number; seconds: number; sampledPeakMiB: number; trailer: string }> {
  const params = new URLSearchParams({ format: argv.format, ...(filter === null ? {} : { filter: JSON.stringify(filter) }) });
  const started = performance.now();
  const response = await fetch(`${baseUrl}/export/workflow-instances?${params.toString()}`, { headers: { 'accept-encoding': argv.encoding } });
  if (response.status !== 200 || response.body === null) throw new Error(`export answered ${response.status}: ${await response.text()}`);
  // fetch undoes gzip itself: bytes are counted decompressed.
  const body: AsyncIterable<Buffer> = Readable.fromWeb(response.body as NodeWebReadableStream<Uint8Array>);
  let lines = 0;
  let bytes = 0;
  let sampledPeakMiB = 0;
  let tail = '';
  const sampler = setInterval(() => {
    sampledPeakMiB = Math.max(sampledPeakMiB, rssMiB(pid));
  }, 50);
  try {
    for await (const chunk of body) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      tail = (tail + chunk.toString('utf8')).slice(-600);
    }
  } finally {
    clearInterval(sampler);
  }
  const trailer = tail.trimEnd().split('\n').at(-1) ?? '';
  return { lines, bytes, seconds: (performance.now() - started) / 1000, sampledPeakMiB, trailer };
}

/** The floor: the same keyset pages through the Reader in this process. */
async function readerFloor(reader: Reader, pageSize: number): Promise<{ rows: number; seconds: number }> {
  const order = effectiveSortKeys<string>([], DEFAULT_LIST_ORDER);
  const started = performance.now();
  let rows = 0;
  let after: KeysetPosition | null = null;
  for (;;) {
    const page = await reader.listInstances({ filter: null, orderBy: [], after, limit: pageSize, offset: 0, payloads: true });
    rows += page.length;
    const last = page.at(-1);
    if (page.length < pageSize || last === undefined) break;
    after = { values: order.map((k) => (last as unknown as Record<string, string | null>)[k.field] ?? null) };
  }
  return { rows, seconds: (performance.now() - started) / 1000 };
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
    const pid = server.pid as number;
    // At rest: started, and one small export done (code paths loaded, pools open).
    await exportOnce(started.baseUrl, pid, { id: { in: ['bench-00000001', 'bench-00000002'] } });
    await new Promise((r) => setTimeout(r, 1000));
    const restMiB = rssMiB(pid);
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    log(`server pid ${pid}: RSS at rest ${restMiB} MiB; exporting ${argv.instances} runs as ${argv.format} (${argv.encoding}), pages of ${argv['page-size']}`);
    const run = await exportOnce(started.baseUrl, pid, null);
    const peakMiB = Math.max(peakRssMiB(pid), run.sampledPeakMiB);
    const rows = run.lines - (argv.format === 'csv' ? 2 : 1);
    if (rows !== argv.instances || !/complete/.test(run.trailer)) throw new Error(`the export wrote ${rows} rows, trailer ${run.trailer}`);
    log(`export: ${rows} rows, ${round(run.bytes / 1024 / 1024, 1)} MiB in ${round(run.seconds, 1)} s; peak RSS ${peakMiB} MiB`);

    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const reader = createPostgresqlReader({ pool, ownsPool: true });
    let floor: { rows: number; seconds: number };
    try {
      floor = await readerFloor(reader, argv['page-size']);
    } finally {
      await reader.close();
    }
    log(`floor: ${floor.rows} rows through the Reader in ${round(floor.seconds, 1)} s`);
    const rowsPerSecond = round(rows / run.seconds, 0);
    const floorRowsPerSecond = round(floor.rows / floor.seconds, 0);
    console.log(JSON.stringify({
      backend: 'postgresql', instances: argv.instances, format: argv.format, encoding: argv.encoding, pageSize: argv['page-size'],
      rows, megabytes: round(run.bytes / 1024 / 1024, 1), seconds: round(run.seconds, 1),
      rowsPerSecond, floorRowsPerSecond, ratio: round(rowsPerSecond / floorRowsPerSecond, 3),
      restRssMiB: restMiB, peakRssMiB: peakMiB, peakOverRestMiB: round(peakMiB - restMiB, 1),
    }));
  } finally {
    server?.kill('SIGTERM');
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
