// npm run bench:filter-cost -- --backend postgresql|opensearch [--instances N --repeat 5 --shapes a,b
//   --reuse-database NAME | --reuse-prefix P --keep]
//
// What a request makes the database do, per unit of each priced shape (docs/query-cost.md): every filter shape of the
// query cost (server/core/src/query-cost.ts) at growing sizes through the whole server in this process (GraphQL,
// resolvers, the backend's reader), with no limit in the way (the cost and in-flight budgets off). For each size it
// prints the median time of --repeat requests and the backend's peak memory while they ran: PostgreSQL, the private
// memory (RssAnon) of the server's backend processes read from /proc, sampled every few milliseconds; OpenSearch, the
// node's request circuit breaker and heap, read from the node stats. Then, per shape, the time and memory of one more
// unit (the slope from the smallest to the largest size) and that time in served rows (a row of the `rows` shape).
// The last line printed is one JSON object with every figure.
import { Client } from '@opensearch-project/opensearch';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { createApp, createLogger, loadCoreConfig } from '@workflow-index/core';
import type { Reader } from '@workflow-index/core';
import { migrate } from '@workflow-index/postgresql';
import { createPostgresqlReader } from '@workflow-index/postgresql';
import { generateDataset } from '@workflow-index/postgresql/testing';
import { applyNormalizedIndices, normalizedIndexNames } from '@workflow-index/opensearch';
import { createOpenSearchReader } from '@workflow-index/opensearch';
import { writeDataset } from '@workflow-index/opensearch/testing';
import { FILTER_SHAPES, type FilterShape } from './filter-shapes.js';

const argv = yargs(hideBin(process.argv))
  .option('backend', { type: 'string', choices: ['postgresql', 'opensearch'], default: 'postgresql' })
  .option('instances', { type: 'number', default: 100_000, describe: 'workflow instances generated (10 task executions each)' })
  .option('repeat', { type: 'number', default: 5, describe: 'requests per size; the median time is reported' })
  .option('shapes', { type: 'string', describe: 'comma-separated shapes to measure (default: all)' })
  .option('keep', { type: 'boolean', default: false, describe: 'keep the generated database or indices (the name is printed)' })
  .option('reuse-database', { type: 'string', describe: 'PostgreSQL: measure this database (made by a --keep run) instead of generating one' })
  .option('reuse-prefix', { type: 'string', describe: 'OpenSearch: measure these indices (made by a --keep run) instead of writing them' })
  .option('database-url', { type: 'string', default: process.env['WI_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres', describe: 'PostgreSQL admin connection' })
  .option('url', { type: 'string', default: process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200', describe: 'OpenSearch node' })
  .strict()
  .parseSync();

const APPLICATION_NAME = `wi-filter-cost-${randomBytes(3).toString('hex')}`;
const log = (line: string): void => void process.stdout.write(`${line}\n`);

/** Peak backend memory while a request runs, in bytes above what the backend held before it. */
interface MemoryProbe {
  start(): Promise<void>;
  stop(): Promise<number>;
}

interface Backend {
  readonly reader: Reader;
  readonly memory: MemoryProbe;
  close(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function postgresqlBackend(): Promise<Backend> {
  const database = argv['reuse-database'] ?? `wi_filter_cost_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: argv['database-url'] });
  await admin.connect();
  if (argv['reuse-database'] === undefined) {
    await admin.query(`CREATE DATABASE ${database}`);
    const setup = new pg.Client({ connectionString: withDatabase(argv['database-url'], database) });
    await setup.connect();
    await migrate(setup);
    log(`generating ${argv.instances} instances into ${database}`);
    await generateDataset(setup, argv.instances, 10);
    await setup.end();
  }
  const pool = new pg.Pool({ connectionString: withDatabase(argv['database-url'], database), max: 10, application_name: APPLICATION_NAME, statement_timeout: 600_000 });
  const backends = async (): Promise<number[]> =>
    (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [APPLICATION_NAME])).rows.map((r) => r.pid);
  return {
    reader: createPostgresqlReader({ pool }),
    memory: processMemoryProbe(backends),
    async close() {
      await pool.end();
      if (argv['reuse-database'] === undefined && !argv.keep) await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
      else log(`database kept: ${database}`);
      await admin.end();
    },
  };
}

/** RssAnon of a process in bytes (0 once it is gone). */
function rssAnon(pid: number): number {
  try {
    const match = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

/** Samples the private memory of the server's backends every 2 ms; the peak growth of any one of them. */
function processMemoryProbe(backends: () => Promise<number[]>): MemoryProbe {
  let timer: ReturnType<typeof setInterval> | undefined;
  let baseline = new Map<number, number>();
  let peak = 0;
  return {
    async start() {
      const pids = await backends();
      baseline = new Map(pids.map((pid) => [pid, rssAnon(pid)]));
      peak = 0;
      timer = setInterval(() => {
        for (const [pid, before] of baseline) peak = Math.max(peak, rssAnon(pid) - before);
      }, 2);
    },
    async stop() {
      clearInterval(timer);
      for (const [pid, before] of baseline) peak = Math.max(peak, rssAnon(pid) - before);
      return peak;
    },
  };
}

async function openSearchBackend(): Promise<Backend> {
  const client = new Client({ node: argv.url });
  const prefix = argv['reuse-prefix'] ?? `wi-filter-cost-${randomBytes(4).toString('hex')}-`;
  const names = normalizedIndexNames(prefix);
  if (argv['reuse-prefix'] === undefined) {
    await applyNormalizedIndices(client, prefix);
    log(`writing ${argv.instances} instances under ${prefix}`);
    await writeDataset(client, names, argv.instances, 10);
    await client.indices.refresh({ index: `${prefix}*` });
  }
  return {
    reader: createOpenSearchReader({ client, prefix, requestTimeoutMs: 600_000, ownsClient: false }),
    memory: nodeMemoryProbe(client),
    async close() {
      if (argv['reuse-prefix'] === undefined && !argv.keep) await client.indices.delete({ index: `${prefix}*` });
      else log(`indices kept: ${prefix}`);
      await client.close();
    },
  };
}

/** The node's request breaker estimate and heap, polled every 10 ms: the peak growth of either. */
function nodeMemoryProbe(client: Client): MemoryProbe {
  let running = false;
  let loop: Promise<void> = Promise.resolve();
  let peak = 0;
  const read = async (): Promise<{ breaker: number; heap: number }> => {
    const stats = (await client.nodes.stats({ node_id: '_local', metric: ['breaker', 'jvm'] })).body as {
      nodes: Record<string, { breakers: { request: { estimated_size_in_bytes: number } }; jvm: { mem: { heap_used_in_bytes: number } } }>;
    };
    const node = Object.values(stats.nodes)[0]!;
    return { breaker: node.breakers.request.estimated_size_in_bytes, heap: node.jvm.mem.heap_used_in_bytes };
  };
  return {
    async start() {
      const before = await read();
      peak = 0;
      running = true;
      loop = (async () => {
        while (running) {
          const now = await read();
          peak = Math.max(peak, now.breaker - before.breaker, now.heap - before.heap);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
    },
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}

interface Measured {
  readonly size: number;
  readonly ms: number;
  readonly memoryMiB: number;
  readonly errors: readonly string[];
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const round = (value: number, digits = 3): number => Number(value.toPrecision(digits));

async function measure(fetchGraphQL: (body: string) => Promise<{ errors?: { message: string }[] }>, backend: Backend, shape: FilterShape, size: number): Promise<Measured> {
  const body = JSON.stringify(shape.request(size));
  await fetchGraphQL(body); // warm: plans, caches, compiled execution
  const times: number[] = [];
  let memory = 0;
  const errors = new Set<string>();
  for (let i = 0; i < argv.repeat; i++) {
    await backend.memory.start();
    const started = performance.now();
    const answer = await fetchGraphQL(body);
    times.push(performance.now() - started);
    memory = Math.max(memory, await backend.memory.stop());
    for (const e of answer.errors ?? []) errors.add(e.message.slice(0, 160));
  }
  return { size, ms: round(median(times)), memoryMiB: round(memory / 2 ** 20), errors: [...errors] };
}

async function main(): Promise<void> {
  const backend = argv.backend === 'postgresql' ? await postgresqlBackend() : await openSearchBackend();
  const env = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    GRAPHQL_MAX_COST: '1000000000',
    GRAPHQL_MAX_COST_IN_FLIGHT: '0',
    GRAPHQL_MAX_ALIASES: '1000',
    GRAPHQL_MAX_TOKENS: '10000000',
    HTTP_MAX_BODY_BYTES: String(64 * 2 ** 20),
  };
  const config = loadCoreConfig(env);
  const app = createApp({ config, reader: backend.reader, logger: createLogger(config), backend: argv.backend });
  const fetchGraphQL = async (body: string): Promise<{ errors?: { message: string }[] }> => {
    const response = await app.fetch(new Request('http://bench/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body }));
    return (await response.json()) as { errors?: { message: string }[] };
  };
  const wanted = argv.shapes === undefined ? null : new Set(argv.shapes.split(','));
  const results: { shape: string; unit: string; sizes: Measured[]; msPerUnit: number; kibPerUnit: number; rowsPerUnit: number }[] = [];
  let msPerRow = 0;
  try {
    for (const shape of FILTER_SHAPES) {
      if (wanted !== null && !wanted.has(shape.name) && shape.name !== 'rows') continue;
      const sizes: Measured[] = [];
      for (const size of shape.sizes) {
        const m = await measure(fetchGraphQL, backend, shape, size);
        sizes.push(m);
        log(`${shape.name.padEnd(22)} ${String(size).padStart(6)} ${shape.unit.padEnd(14)} ${String(m.ms).padStart(9)} ms ${String(m.memoryMiB).padStart(8)} MiB${m.errors.length > 0 ? `  errors: ${m.errors.join(' | ')}` : ''}`);
      }
      const first = sizes[0]!;
      const last = sizes[sizes.length - 1]!;
      const units = last.size - first.size;
      const msPerUnit = (last.ms - first.ms) / units;
      if (shape.name === 'rows') msPerRow = msPerUnit;
      const kibPerUnit = ((last.memoryMiB - first.memoryMiB) * 1024) / units;
      results.push({ shape: shape.name, unit: shape.unit, sizes, msPerUnit: round(msPerUnit), kibPerUnit: round(kibPerUnit), rowsPerUnit: msPerRow > 0 ? round(msPerUnit / msPerRow) : 0 });
      log(`${shape.name.padEnd(22)} per ${shape.unit}: ${round(msPerUnit * 1000)} µs, ${round(kibPerUnit)} KiB, ${msPerRow > 0 ? round(msPerUnit / msPerRow) : '—'} rows`);
    }
  } finally {
    await app.dispose();
    await backend.close();
  }
  log(JSON.stringify({ backend: argv.backend, instances: argv.instances, msPerRow: round(msPerRow), shapes: results }));
}

await main();
