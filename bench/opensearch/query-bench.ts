// npm run bench:query -- --backend opensearch [--instances N --tasks-per-instance 10 --duration 10 --connections 10
//   --url http://127.0.0.1:9200 --freshness-samples 40 --queries a,b,c --keep-indices --reuse-prefix P
//   --server dist|source --server-node-options ... --server-node-flags "--cpu-prof --cpu-prof-dir=/tmp/prof"]
//
// Query performance of the real OpenSearch server on a real node, the twin of the PostgreSQL benchmark (the same mix of
// GraphQL queries and variants, bench/mix/query-mix.ts; same measurements, same JSON summary). The dataset is written
// straight into the normalized indices (server/opensearch/test/support/bench-dataset.ts) under a random prefix; the
// production server (NODE_ENV=production) runs as a child process, by default as the image runs it (built,
// dist/main.js, with the image's NODE_OPTIONS), as the PostgreSQL benchmark does; `--server source` runs src/main.ts
// through tsx; autocannon measures each query at saturation (rps, p50, p99) and a fixed 100 requests/s (p99). The
// floor, in the same run: the hand-written request(s) per row (query-floors.ts) sent with the same client library at
// the same concurrency — what the node alone delivers. Then the freshness figure: a workflow.started event sent in
// Fluent Bit's bulk shape, with the production normalizer (normalizer-main.ts) running as a child process, until
// GraphQL serves its instance (p50/p99). `--auth admin|scoped` runs the server with sign-in on (bench/auth/bench-auth.ts):
// a test OpenID provider, a bearer token on every measured request. The last line printed is one JSON object.
import { benchInstanceId, postGraphQL } from '@workflow-index/testkit';
import { Client } from '@opensearch-project/opensearch';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { seededRandom } from '@workflow-index/testkit';
import { selectQueries } from '../mix/query-mix.js';
import { applyRawSchema } from '@workflow-index/opensearch';
import { writeEventLines } from '@workflow-index/opensearch';
import { applyNormalizedIndices, normalizedIndexNames } from '@workflow-index/opensearch';
import { holdsRate, type Measurement, measureFixedRate, measureHttp, measureLoop, percentile, round } from '../load/http-load.js';
import { writeDataset } from '@workflow-index/opensearch/testing';
import { type FloorRequest, openSearchFloors, type QuerySpec } from './query-floors.js';
import { cpuMs, peakRssMiB, waitUntilReady } from '../load/server-process.js';
import { AUTH_MODES, type AuthMode, type BenchAuth, checkAuthEnforced, startBenchAuth } from '../auth/bench-auth.js';
import { freePort } from '@workflow-index/testkit';

const argv = yargs(hideBin(process.argv))
  .option('backend', { type: 'string', choices: ['opensearch'], default: 'opensearch', describe: 'dispatched here by bench/dispatch.ts' })
  .option('instances', { type: 'number', default: 20_000, describe: 'workflow instances generated' })
  .option('tasks-per-instance', { type: 'number', default: 10, describe: 'task executions per instance' })
  .option('duration', { type: 'number', default: 10, describe: 'seconds per measurement' })
  .option('warmup', { type: 'number', default: 2, describe: 'seconds of warm-up per query before measuring' })
  .option('connections', { type: 'number', default: 10, describe: 'concurrent HTTP connections at saturation = floor concurrency' })
  .option('rate', { type: 'number', default: 100, describe: 'requests/s of the fixed-rate measurement (uniform arrivals)' })
  .option('queries', { type: 'string', describe: 'comma-separated names of the mix to measure (default: all)' })
  .option('keep-indices', { type: 'boolean', default: false, describe: 'keep the generated indices at the end (their prefix is printed) for --reuse-prefix' })
  .option('reuse-prefix', { type: 'string', describe: 'measure the indices a previous --keep-indices run generated (same --instances) instead of writing them; they are kept at the end' })
  .option('freshness-samples', { type: 'number', default: 40, describe: 'events timed from bulk request to GraphQL answer (0 skips)' })
  .option('auth', {
    type: 'string', choices: AUTH_MODES, default: 'none',
    describe: 'access control of the server: none (AUTH_MODE=none), admin (AUTH_MODE=oidc, a token of a group with rule * and payloads: the token is verified, the plain Reader reads) or scoped (a group with half the namespaces, no payloads: the scoped Reader adds a namespace filter); a test OpenID provider runs in this process and every measured request carries its bearer token; the floor is unchanged',
  })
  .option('log-level', { type: 'string', default: 'info', describe: "the server's LOG_LEVEL (info is the production default: one JSON line per request)" })
  .option('server', { type: 'string', choices: ['dist', 'source'], default: 'dist', describe: 'run the server and the normalizer as production does (npm run build, then dist/*.js) or from source through tsx' })
  .option('server-node-options', { type: 'string', describe: "NODE_OPTIONS for the server and normalizer processes; default: the image's (Dockerfile.server), so they run with the heap settings production has" })
  .option('server-node-flags', { type: 'string', default: '', describe: 'node flags for the server process that NODE_OPTIONS refuses, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (written when the bench stops it)' })
  .option('url', { type: 'string', default: process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200', describe: 'the node' })
  .strict()
  .parseSync();

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Each process's entry: from source through tsx, or compiled (what the images run). */
const ENTRIES = {
  source: { server: fileURLToPath(new URL('../../server/opensearch/src/main.ts', import.meta.url)), normalizer: fileURLToPath(new URL('../../server/opensearch/src/normalizer-main.ts', import.meta.url)) },
  dist: { server: fileURLToPath(new URL('../../server/opensearch/dist/main.js', import.meta.url)), normalizer: fileURLToPath(new URL('../../server/opensearch/dist/normalizer-main.js', import.meta.url)) },
} as const;
const serverMode = argv.server as keyof typeof ENTRIES;
const PREFIX = argv['reuse-prefix'] ?? `wi-bench-query-${randomBytes(4).toString('hex')}-`;
const NAMES = normalizedIndexNames(PREFIX);
const node = new URL(argv.url);
const client = new Client({ node: argv.url, requestTimeout: 60_000 });
const { querySpecs, runFloor } = openSearchFloors(client, NAMES);
const sendFloor = async (request: FloorRequest): Promise<void> => {
  await runFloor(request);
};
const log = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

const children: ChildProcess[] = [];
let auth: BenchAuth | null = null;

/** The data of a query that must answer 200 without errors, asked with the run's token (if any). */
async function graphqlData<T = Record<string, unknown>>(baseUrl: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const { status, body } = await postGraphQL<T>(baseUrl, query, variables, auth?.headers ?? {});
  if (status !== 200 || body.errors !== undefined || body.data === undefined || body.data === null) throw new Error(`query failed (HTTP ${status}): ${JSON.stringify(body).slice(0, 2000)}\n${query}`);
  return body.data;
}
const nodeEnv = { OPENSEARCH_HOST: node.hostname, OPENSEARCH_PORT: node.port || '9200', OPENSEARCH_PROTOCOL: node.protocol.replace(':', ''), WI_OPENSEARCH_INDEX_PREFIX: PREFIX };

/** NODE_OPTIONS of the server image (the ENV of Dockerfile.server's runtime stage, shared by the OpenSearch targets). */
function imageNodeOptions(): string {
  const dockerfile = readFileSync(new URL('../../Dockerfile.server', import.meta.url), 'utf8');
  const match = /^\s*NODE_OPTIONS=(?:"([^"]*)"|(\S+))/m.exec(dockerfile);
  if (match === null) throw new Error('Dockerfile.server sets no NODE_OPTIONS: give --server-node-options');
  return match[1] ?? match[2] ?? '';
}
const nodeOptions = argv['server-node-options'] ?? imageNodeOptions();

/** `npm run build` (tsc -b tsconfig.build.json), so dist/ is what the source says. */
function build(): void {
  const result = spawnSync(process.execPath, [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-b', 'tsconfig.build.json'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run build failed (use --server source to run from source):\n${result.stdout}${result.stderr}`);
}

/** Starts `entry` (source via tsx, or a dist file) with the production environment; waits until `readyUrl` answers 200. */
async function startChild(entry: string, env: Record<string, string>, readyUrl: string, what: string, nodeFlags: readonly string[] = []): Promise<ChildProcess> {
  const args = [...nodeFlags, ...(serverMode === 'source' ? ['--conditions=source', '--import', 'tsx', entry] : [entry])];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', ...(nodeOptions === '' ? {} : { NODE_OPTIONS: nodeOptions }), ...nodeEnv, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  await waitUntilReady(child, readyUrl, what, 120);
  return child;
}

/** Event sent in Fluent Bit's bulk shape → its instance served by GraphQL, with the production normalizer running. */
async function freshness(baseUrl: string, samples: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const id = `fresh-${i}-${randomBytes(3).toString('hex')}`;
    const sent = Date.now();
    const seconds = sent / 1000;
    const line = `{"instanceId":"${id}","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${seconds},"startTime":${seconds},"workflowNamespace":"bench","workflowName":"freshness","workflowVersion":"1.0.0","status":"RUNNING","input":{"n":${i}}}`;
    const result = await writeEventLines(client, [{ line, recordTimeMs: sent }], PREFIX);
    if (result.errors) throw new Error(`bulk failed: ${JSON.stringify(result.items)}`);
    for (;;) {
      const answer = await graphqlData<{ getWorkflowInstance: { id: string } | null }>(baseUrl, 'query ($id: ID!) { getWorkflowInstance(id: $id) { id } }', { id });
      if (answer.getWorkflowInstance?.id === id) break;
      if (Date.now() - sent > 60_000) throw new Error(`instance ${id} not served within 60 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
    latencies.push(Date.now() - sent);
    await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400)));
  }
  return latencies.sort((a, b) => a - b);
}

/** Whether a query's answer holds anything: a row, a non-empty list, a count above zero. */
function foundSomething(answer: unknown): boolean {
  if (Array.isArray(answer)) return answer.some(foundSomething);
  if (answer === null || typeof answer !== 'object') return false;
  const { value, count } = answer as { value?: unknown; count?: unknown };
  if (typeof value === 'number') return value > 0;
  if (count !== undefined) return foundSomething(count);
  return true;
}

async function main(): Promise<void> {
  const started = performance.now();
  try {
    let written: { instances: number; executions: number };
    if (argv['reuse-prefix'] === undefined) {
      await applyRawSchema(client, { prefix: PREFIX });
      await applyNormalizedIndices(client, PREFIX);
      log(`dataset: ${argv.instances} instances × ${argv['tasks-per-instance']} task executions, documents from the normalizer's own function bulk-indexed straight into ${NAMES.workflowInstances} and ${NAMES.taskExecutions} (a query benchmark: the ingestion path is bench:ingest's)`);
      const genStart = performance.now();
      written = await writeDataset(client, NAMES, argv.instances, argv['tasks-per-instance']);
      log(`dataset ready in ${round((performance.now() - genStart) / 1000, 1)} s (bulk, refresh, force-merge): ${written.instances} instances, ${written.executions} task executions`);
    } else {
      const counted = async (index: string): Promise<number> => ((await client.transport.request({ method: 'GET', path: `/${index}/_count` })).body as { count: number }).count;
      written = { instances: await counted(NAMES.workflowInstances), executions: await counted(NAMES.taskExecutions) };
      if (written.instances < argv.instances) throw new Error(`--reuse-prefix ${PREFIX}: ${written.instances} instances, fewer than --instances ${argv.instances}`);
      log(`dataset: the indices of ${PREFIX} (--reuse-prefix): ${written.instances} instances, ${written.executions} task executions`);
    }
    const stores = (await client.transport.request({ method: 'GET', path: `/_cat/indices/${NAMES.workflowInstances},${NAMES.taskExecutions}`, querystring: { format: 'json', bytes: 'b', h: 'index,docs.count,store.size' } })).body as { index: string; 'store.size': string }[];
    const storeMiB = round(stores.reduce((sum, row) => sum + Number(row['store.size']), 0) / 1024 / 1024, 1);
    log(`disk use of the dataset: ${storeMiB} MiB (${stores.map((row) => `${row.index.slice(PREFIX.length)} ${round(Number(row['store.size']) / 1024 / 1024, 1)} MiB`).join(', ')})`);

    const picks = seededRandom(20261124);
    const cursorIds = [...new Set(Array.from({ length: 200 }, () => benchInstanceId(1 + Math.floor(picks() * argv.instances))))].sort();
    const found = await client.transport.request({ method: 'POST', path: `/${NAMES.workflowInstances}/_search`, body: { size: cursorIds.length, query: { ids: { values: cursorIds } }, _source: ['id', 'start_time', 'start_time_us'] } });
    const cursorRows = (found.body as { hits: { hits: { _source: { id: string; start_time: string; start_time_us: number } }[] } }).hits.hits
      .map((h) => ({ id: h._source.id, start: h._source.start_time, startUs: h._source.start_time_us }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const specs = selectQueries(querySpecs(argv.instances, cursorRows), argv.queries);

    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    if (serverMode === 'dist') build();
    const nodeFlags = argv['server-node-flags'].split(' ').filter((flag) => flag !== '');
    auth = await startBenchAuth(argv.auth as AuthMode);
    const authHeaders = auth.headers;
    const server = await startChild(ENTRIES[serverMode].server, { HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1', LOG_LEVEL: argv['log-level'], HTTP_MAX_REQUESTS_PER_CLIENT: '0', ...auth.serverEnv }, `${baseUrl}/q/health/ready`, 'the server', nodeFlags);
    const pid = server.pid as number;
    log(`server pid ${pid} on ${baseUrl}: ${serverMode === 'dist' ? 'dist/main.js' : 'src/main.ts via tsx'}, production mode, LOG_LEVEL ${argv['log-level']}, NODE_OPTIONS ${nodeOptions === '' ? '(none)' : nodeOptions}${argv['server-node-options'] === undefined ? " (the image's)" : ''}${nodeFlags.length > 0 ? `, node flags ${nodeFlags.join(' ')}` : ''}; auth ${auth.description}`);
    log(`saturation: autocannon, ${argv.connections} connections, ${argv.duration} s; fixed rate: ${argv.rate} requests/s; floor: a hand-written _search/_msearch per request through the same client library, ${argv.connections} concurrent, ${argv.duration} s`);

    // Every query must answer with data before it is measured: a benchmark of errors (or of empty answers) measures
    // nothing. Every variant is asked once; a variant may find nothing, a query whose variants all do is refused.
    for (const spec of specs) {
      let found = 0;
      for (const variables of spec.variables) {
        const data = await graphqlData(baseUrl, spec.query, variables);
        if (foundSomething(Object.values(data)[0])) found++;
      }
      if (found === 0) throw new Error(`${spec.name}: no variant finds anything in this dataset (${JSON.stringify(spec.variables[0])})`);
      log(`${spec.name.padEnd(34)} ${found} of ${spec.variables.length} variants find rows`);
      await runFloor(spec.floor(spec.variables[0] as Record<string, unknown>));
    }
    if (specs[0] !== undefined) await checkAuthEnforced(baseUrl, auth, JSON.stringify({ query: specs[0].query, variables: specs[0].variables[0] }));

    const results: Array<{ name: string; rps: number; p50Ms: number; p99Ms: number; p99At100RpsMs: number; fixedRps: number; floorRps: number; floorP50Ms: number; floorP99Ms: number; ratio: number; serverCpuMsPerRequest: number; failures: number }> = [];
    const bodiesOf = (spec: QuerySpec): string[] => spec.variables.map((variables) => JSON.stringify({ query: spec.query, variables }));
    const floorOf = (spec: QuerySpec): FloorRequest[] => spec.variables.map((v) => spec.floor(v));
    for (const spec of specs) {
      await measureHttp(baseUrl, bodiesOf(spec), { connections: argv.connections, duration: argv.warmup, headers: authHeaders });
      await measureLoop(floorOf(spec), sendFloor, argv.connections, argv.warmup);
    }
    for (const spec of specs) {
      const cpuBefore = cpuMs(pid);
      const saturated = await measureHttp(baseUrl, bodiesOf(spec), { connections: argv.connections, duration: argv.duration, headers: authHeaders });
      const serverCpuMsPerRequest = round((cpuMs(pid) - cpuBefore) / Math.max(1, saturated.requests), 3);
      const fixed = await measureFixedRate(baseUrl, bodiesOf(spec), argv.rate, argv.duration, authHeaders);
      const floor: Measurement = await measureLoop(floorOf(spec), sendFloor, argv.connections, argv.duration);
      const row = {
        name: spec.name, rps: saturated.rps, p50Ms: saturated.p50Ms, p99Ms: saturated.p99Ms, p99At100RpsMs: fixed.p99Ms, fixedRps: fixed.rps,
        floorRps: floor.rps, floorP50Ms: floor.p50Ms, floorP99Ms: floor.p99Ms, ratio: round(saturated.rps / floor.rps, 3), serverCpuMsPerRequest,
        failures: saturated.failures + fixed.failures + floor.failures,
      };
      results.push(row);
      log(`${spec.name.padEnd(30)} ${String(row.rps).padStart(8)} rps  p50 ${row.p50Ms} ms  p99 ${row.p99Ms} ms  | at ${argv.rate} rps: p99 ${row.p99At100RpsMs} ms (${fixed.rps} rps)  | floor ${row.floorRps} rps (p50 ${row.floorP50Ms} ms, p99 ${row.floorP99Ms} ms)  ratio ${row.ratio}  | server CPU ${row.serverCpuMsPerRequest} ms/request${row.failures > 0 ? `  FAILURES ${row.failures}` : ''}`);
    }
    const peakRss = peakRssMiB(pid);

    let fresh: number[] = [];
    if (argv['freshness-samples'] > 0) {
      const metricsPort = await freePort();
      await startChild(ENTRIES[serverMode].normalizer, { NORMALIZER_HTTP_PORT: String(metricsPort), LOG_LEVEL: 'warn' }, `http://127.0.0.1:${metricsPort}/q/health/ready`, 'the normalizer');
      fresh = await freshness(baseUrl, argv['freshness-samples']);
      log(`freshness (bulk request sent → instance served by GraphQL, production normalizer and server as child processes): ${fresh.length} samples, p50 ${percentile(fresh, 50)} ms, p99 ${percentile(fresh, 99)} ms, max ${fresh[fresh.length - 1]} ms`);
    }

    const page = results.find((r) => r.name === 'instances-page');
    const loadAverage = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
    log(`peak RSS of the server: ${peakRss} MiB; total ${round((performance.now() - started) / 1000, 1)} s; load average ${loadAverage.join(' ')}`);
    log(`targets: page query ≥ 0.5 × floor: ${page && page.ratio >= 0.5 ? 'met' : 'NOT met'} (${page?.ratio}); freshness p99 ≤ 5 s: ${fresh.length === 0 ? 'not measured' : percentile(fresh, 99) <= 5000 ? 'met' : 'NOT met'}; p99 < 50 ms at ${argv.rate} rps for every query: ${results.every((r) => holdsRate(r, argv.rate)) ? 'met' : 'NOT met (a row over 50 ms, below the rate, or with failures)'}`);
    log(JSON.stringify({
      backend: 'opensearch',
      instances: argv.instances,
      taskExecutions: written.executions,
      connections: argv.connections,
      durationSeconds: argv.duration,
      fixedRate: argv.rate,
      server: serverMode,
      auth: argv.auth,
      dataset: 'normalizer documents bulk-indexed into the normalized indices',
      queries: results.map(({ name, rps, p50Ms, p99Ms, p99At100RpsMs, fixedRps, floorRps, ratio, serverCpuMsPerRequest, failures }) => ({ name, rps, p50Ms, p99Ms, p99At100RpsMs, fixedRps, floorRps, ratio, serverCpuMsPerRequest, failures })),
      peakRssMiB: peakRss,
      datasetStoreMiB: storeMiB,
      loadAverage,
      ...(fresh.length > 0 ? { freshnessP50Ms: percentile(fresh, 50), freshnessP99Ms: percentile(fresh, 99), freshnessSamples: fresh.length } : {}),
    }));
  } finally {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
    }
    await auth?.stop();
    // A reused dataset belongs to the run that wrote it (minutes of bulk indexing): it is never deleted here.
    if (argv['keep-indices'] || argv['reuse-prefix'] !== undefined) log(`kept the indices of ${PREFIX}: --reuse-prefix ${PREFIX} measures them again; DELETE /${PREFIX}* when done`);
    else {
      await client.transport.request({ method: 'DELETE', path: `/${PREFIX}*`, querystring: { allow_no_indices: 'true', expand_wildcards: 'all' } }, { ignore: [404] });
      await client.transport.request({ method: 'DELETE', path: `/_index_template/${PREFIX}*` }, { ignore: [404] });
      await client.transport.request({ method: 'DELETE', path: `/_ingest/pipeline/${PREFIX}*` }, { ignore: [404] });
    }
    await client.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:query --backend opensearch failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
