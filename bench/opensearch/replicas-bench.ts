// npm run bench:normalizer-replicas [-- --instances 1500 --replicas 1,2,3 --rounds 2 --url http://127.0.0.1:9200]
//
// The normalizer as 1, 2 and 3 replica processes (`npm run normalize:opensearch`, as production runs it) over the same
// delivery: generated instances (bench:ingest's generator, ≈20 events each) written once through the raw ingest
// pipeline; then, per run, the normalizer's state, store and normalized indices are dropped and created again, the
// replicas start and wait behind a single lease of an earlier release held by this benchmark (they heartbeat, so
// they know each other), and the clock starts when that lease is deleted; it stops when the replicas together have
// counted every raw event. Runs alternate (1, 2, 3, 1, 2, 3, …), and each round's 1-replica run is the floor its
// 2- and 3-replica runs are divided by. Printed per run: events/s, CPU seconds per 1,000 events of the replicas
// (utime + stime from /proc/<pid>/stat over the timed window) and of the OpenSearch node (its process CPU from the
// nodes stats API), and where the replicas' time went (workflow_index_normalizer_phase_seconds_total: scan, fetch,
// plan, write, checkpoint). The load average is printed with every run. Everything lives under a random prefix,
// removed at the end. The last line is one JSON object.
import { Client } from '@opensearch-project/opensearch';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { type ServerProcess, freePort, startNodeScript } from '@workflow-index/testkit';
import { generateEventStream } from '../generators/event-generator.js';
import { LEGACY_LEASE_ID, OpenSearchNormalizer, applyRawSchema, writeEventLines } from '@workflow-index/opensearch/admin';

const argv = yargs(hideBin(process.argv))
  .option('instances', { type: 'number', default: 1500, describe: 'instances generated (≈20 events each)' })
  .option('replicas', { type: 'string', default: '1,2,3', describe: 'comma-separated replica counts; the first is the floor' })
  .option('rounds', { type: 'number', default: 2, describe: 'rounds of alternating runs' })
  .option('url', { type: 'string', default: process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200', describe: 'the node' })
  .option('timeout', { type: 'number', default: 600, describe: 'seconds a run may take' })
  .strict()
  .parseSync();

const NORMALIZER_MAIN = 'server/opensearch/src/normalizer-main.ts';
const PHASES = ['scan', 'fetch', 'plan', 'write', 'checkpoint'] as const;
const client = new Client({ node: argv.url, requestTimeout: 120_000 });
const url = new URL(argv.url);
const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond; // utime, stime (fields 14 and 15)
}

/** CPU seconds the OpenSearch node(s) have used (the nodes stats API: process.cpu.total_in_millis). */
async function nodeCpuSeconds(): Promise<number> {
  const response = await client.transport.request({ method: 'GET', path: '/_nodes/stats/process' });
  const nodes = Object.values((response.body as { nodes: Record<string, { process: { cpu: { total_in_millis: number } } }> }).nodes);
  return nodes.reduce((sum, n) => sum + n.process.cpu.total_in_millis, 0) / 1000;
}

interface Replica {
  readonly process: ServerProcess;
  readonly port: number;
}

async function metricsOf(replica: Replica): Promise<string> {
  return fetch(`http://127.0.0.1:${replica.port}/q/metrics`).then((r) => r.text(), () => '');
}

function metricValue(text: string, name: string, labels = ''): number {
  const line = new RegExp(`^${name}${labels.replace(/[{}"]/g, (c) => `\\${c}`)} ([0-9.e+-]+)$`, 'm').exec(text);
  return Number(line?.[1] ?? 0);
}

interface RunResult {
  replicas: number; round: number; seconds: number; eventsPerSecond: number; normalizerCpuPer1000: number; openSearchCpuPer1000: number;
  phases: Record<string, number>; load: number;
}

async function resetNormalizerState(prefix: string): Promise<OpenSearchNormalizer> {
  const gate = new OpenSearchNormalizer({ client, prefix, holder: 'bench-gate' });
  const n = gate.names;
  await client.transport.request({ method: 'DELETE', path: `/${[n.workflowInstances, n.taskExecutions, n.ingestErrors, n.normalizerState, n.eventStore].join(',')}`, querystring: { ignore_unavailable: 'true' } });
  await gate.setup();
  await gate.recordRulesIfFresh(); // an empty store: this release's rules, so no replica waits for a re-normalization
  await client.transport.request({ method: 'PUT', path: `/${n.normalizerState}/_doc/${LEGACY_LEASE_ID}`, querystring: { refresh: 'true' }, body: { kind: 'lease', holder: 'bench-gate', expires_at_ms: Date.now() + 3_600_000 } });
  return gate;
}

async function oneRun(prefix: string, count: number, roundNo: number, events: number): Promise<RunResult> {
  const gate = await resetNormalizerState(prefix);
  const replicas: Replica[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const process = startNodeScript(NORMALIZER_MAIN, {
        OPENSEARCH_HOST: url.hostname, OPENSEARCH_PORT: url.port || '9200', WI_OPENSEARCH_INDEX_PREFIX: prefix, NORMALIZER_HTTP_PORT: String(port),
        NORMALIZER_RETENTION_INTERVAL_MS: '0', LOG_LEVEL: 'warn',
      }, { defaultWaitMs: 120_000, killAfterMs: (argv.timeout + 300) * 1000 });
      replicas.push({ process, port });
    }
    // Every replica up and heartbeating behind the gate.
    for (;;) {
      await client.transport.request({ method: 'POST', path: `/${gate.names.normalizerState}/_refresh` });
      const members = await client.transport.request({ method: 'POST', path: `/${gate.names.normalizerState}/_count`, body: { query: { term: { kind: 'member' } } } });
      if ((members.body as { count: number }).count >= count) break;
      for (const r of replicas) if (r.process.child.exitCode !== null) throw new Error(`a replica exited:\n${r.process.output()}`);
      await sleep(200);
    }
    const cpuBefore = replicas.map((r) => processCpuSeconds(r.process.child.pid!));
    const nodeBefore = await nodeCpuSeconds();
    const started = performance.now();
    await client.transport.request({ method: 'DELETE', path: `/${gate.names.normalizerState}/_doc/${LEGACY_LEASE_ID}` });
    const deadline = started + argv.timeout * 1000;
    let texts: string[] = [];
    for (;;) {
      texts = await Promise.all(replicas.map(metricsOf));
      const counted = texts.reduce((sum, t) => sum + metricValue(t, 'workflow_index_normalizer_raw_events_total'), 0);
      if (counted >= events) break;
      if (performance.now() > deadline) throw new Error(`the replicas counted ${counted} of ${events} events within ${argv.timeout} s`);
      await sleep(100);
    }
    const seconds = (performance.now() - started) / 1000;
    const normalizerCpu = replicas.reduce((sum, r, i) => sum + processCpuSeconds(r.process.child.pid!) - cpuBefore[i]!, 0);
    const nodeCpu = (await nodeCpuSeconds()) - nodeBefore;
    const phases = Object.fromEntries(PHASES.map((p) => [p, round(texts.reduce((sum, t) => sum + metricValue(t, 'workflow_index_normalizer_phase_seconds_total', `{phase="${p}"}`), 0))]));
    await client.transport.request({ method: 'POST', path: `/${gate.names.workflowInstances}/_refresh` });
    const normalized = ((await client.transport.request({ method: 'GET', path: `/${gate.names.workflowInstances}/_count` })).body as { count: number }).count;
    if (normalized !== argv.instances) throw new Error(`expected ${argv.instances} normalized instances, found ${normalized}`);
    return {
      replicas: count, round: roundNo, seconds: round(seconds), eventsPerSecond: Math.round(events / seconds),
      normalizerCpuPer1000: round((normalizerCpu / events) * 1000, 3), openSearchCpuPer1000: round((nodeCpu / events) * 1000, 3), phases, load: round(loadavg()[0]!, 1),
    };
  } finally {
    for (const r of replicas) if (r.process.child.exitCode === null) r.process.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.process.exited));
  }
}

async function main(): Promise<void> {
  const prefix = `wi-bench-replicas-${randomBytes(4).toString('hex')}-`;
  const counts = argv.replicas.split(',').map((s) => Number(s.trim())).filter((n) => n > 0);
  const info = (await client.info()).body as { version: { number: string } };
  try {
    await applyRawSchema(client, { prefix });
    const generated = generateEventStream(argv.instances, 'r-');
    const base = Date.now();
    const lines = generated.map((e, i) => ({ line: JSON.stringify(e), recordTimeMs: base + Math.floor(i / 100) }));
    for (let i = 0; i < lines.length; i += 2000) await writeEventLines(client, lines.slice(i, i + 2000), prefix);
    await client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh` });
    console.log(`OpenSearch ${info.version.number} at ${argv.url}; ${argv.instances} instances, ${lines.length} raw events; replicas ${counts.join(', ')} alternating, ${argv.rounds} rounds; ${new Date().toISOString()}`);
    const runs: RunResult[] = [];
    for (let r = 1; r <= argv.rounds; r++) {
      let floor: RunResult | undefined;
      for (const count of counts) {
        const run = await oneRun(prefix, count, r, lines.length);
        floor ??= run;
        runs.push(run);
        const phaseText = PHASES.map((p) => `${p} ${run.phases[p]} s`).join(', ');
        console.log(`round ${r}, ${count} replica(s): ${run.eventsPerSecond} events/s (${run.seconds} s), ratio to 1 replica ${round(run.eventsPerSecond / floor.eventsPerSecond, 3)}; ` +
          `CPU per 1,000 events: replicas ${run.normalizerCpuPer1000} s, OpenSearch ${run.openSearchCpuPer1000} s; phases (summed over replicas) ${phaseText}; load ${run.load}`);
      }
    }
    console.log(JSON.stringify({ backend: 'opensearch', events: lines.length, instances: argv.instances, runs }));
  } finally {
    await client.transport.request({ method: 'DELETE', path: `/${prefix}*`, querystring: { allow_no_indices: 'true', expand_wildcards: 'all' } }, { ignore: [404] });
    await client.transport.request({ method: 'DELETE', path: `/_index_template/${prefix}*` }, { ignore: [404] });
    await client.transport.request({ method: 'DELETE', path: `/_ingest/pipeline/${prefix}*` }, { ignore: [404] });
    await client.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:normalizer-replicas failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
