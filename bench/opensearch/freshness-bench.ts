// Freshness and throughput of the OpenSearch normalizer on a real node (not a test: figures only).
//   freshness: a workflow.started event sent as one Fluent Bit bulk request → its instance document found by a
//   search of the normalized index (what the GraphQL reader does), with the normalizer running as in production
//   (1 s cycle, no forced refreshes); p50/p99 over --samples events.
//   throughput: --copies × the reference fixtures (80 events, 8 instances each copy) plus one 2,000-iteration loop,
//   bulk-written first, then normalized from scratch in one pass: raw events per second.
// Usage: node --conditions=source --import tsx bench/opensearch/freshness-bench.ts [--samples 40] [--copies 125]
//   [--loop 2000] [--runs 3]
// The node: WI_TEST_OPENSEARCH_URL (default http://127.0.0.1:9200). Everything lives under a random prefix, removed
// at the end. The last line printed is one JSON object with the figures.
import { Client } from '@opensearch-project/opensearch';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { applyRawSchema } from '@workflow-index/opensearch/admin';
import { type FluentBitRecord, writeEventLines } from '@workflow-index/opensearch/admin';
import { OpenSearchNormalizer } from '@workflow-index/opensearch/admin';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '40' }, copies: { type: 'string', default: '125' }, loop: { type: 'string', default: '2000' }, runs: { type: 'string', default: '3' } } });
const RUNS = Number(values.runs);
const SAMPLES = Number(values.samples);
const COPIES = Number(values.copies);
const LOOP_ITEMS = Number(values.loop);
const URL_ = process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200';
const client = new Client({ node: URL_ });
const reference = readFileSync(fileURLToPath(new URL('../../fixtures/quarkus-flow-events.jsonl', import.meta.url)), 'utf8').split('\n').filter((l) => l.trim() !== '');
const referenceIds = [...new Set(reference.map((l) => (JSON.parse(l) as { instanceId: string }).instanceId))];

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function drop(prefix: string): Promise<void> {
  await client.transport.request({ method: 'DELETE', path: `/${prefix}*`, querystring: { allow_no_indices: 'true', expand_wildcards: 'all' } }, { ignore: [404] });
  await client.transport.request({ method: 'DELETE', path: `/_index_template/${prefix}*` }, { ignore: [404] });
  await client.transport.request({ method: 'DELETE', path: `/_ingest/pipeline/${prefix}*` }, { ignore: [404] });
}

function startedLine(instanceId: string, epochSeconds: number): string {
  return `{"instanceId":"${instanceId}","eventType":"io.serverlessworkflow.workflow.started.v1","timestamp":${epochSeconds},"startTime":${epochSeconds},"workflowNamespace":"bench","workflowName":"freshness","workflowVersion":"1.0.0","status":"RUNNING","input":{"n":1}}`;
}

async function freshness(prefix: string): Promise<number[]> {
  await applyRawSchema(client, { prefix });
  const normalizer = new OpenSearchNormalizer({ client, prefix, holder: 'bench-freshness' });
  await normalizer.setup();
  const controller = new AbortController();
  const running = normalizer.run(controller.signal);
  const latencies: number[] = [];
  try {
    for (let i = 0; i < SAMPLES; i++) {
      const id = `fresh-${i}-${randomBytes(3).toString('hex')}`;
      const sent = Date.now();
      const result = await writeEventLines(client, [{ line: startedLine(id, sent / 1000), recordTimeMs: sent }], prefix);
      if (result.errors) throw new Error(`bulk failed: ${JSON.stringify(result.items)}`);
      for (;;) {
        const response = await client.transport.request({ method: 'POST', path: `/${normalizer.names.workflowInstances}/_search`, body: { size: 1, query: { term: { id } } } }, { ignore: [404] });
        const total = (response.body as { hits?: { total?: { value: number } } }).hits?.total?.value ?? 0;
        if (total > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      latencies.push(Date.now() - sent);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400)));
    }
  } finally {
    controller.abort();
    await running;
  }
  return latencies;
}

async function throughput(prefix: string): Promise<{ events: number; instances: number; bulkEventsPerSecond: number; normalizerEventsPerSecond: number; cycleMs: number; runs: number[] }> {
  await applyRawSchema(client, { prefix });
  const records: FluentBitRecord[] = [];
  const base = Date.UTC(2026, 4, 12, 9, 14, 3);
  for (let c = 0; c < COPIES; c++) {
    for (const line of reference) {
      let copy = line;
      for (const id of referenceIds) copy = copy.split(id).join(`${id}-${c}`);
      records.push({ line: copy, recordTimeMs: base + records.length });
    }
  }
  const loopId = `loop-${randomBytes(3).toString('hex')}`;
  let t = 1_778_577_243.5;
  records.push({ line: startedLine(loopId, t), recordTimeMs: base });
  for (let i = 0; i < LOOP_ITEMS; i++) {
    const start = (t += 0.000731);
    const end = (t += 0.000417);
    const common = `"instanceId":"${loopId}","taskPosition":"do/0/loop/for/do/0/step","taskName":"step"`;
    records.push({ line: `{${common},"eventType":"io.serverlessworkflow.task.started.v1","timestamp":${start},"startTime":${start},"status":"RUNNING","input":{"item":${i}}}`, recordTimeMs: base + i });
    records.push({ line: `{${common},"eventType":"io.serverlessworkflow.task.completed.v1","timestamp":${end},"endTime":${end},"status":"COMPLETED","output":{"item":${i},"ok":true}}`, recordTimeMs: base + i });
  }
  const bulkStart = performance.now();
  for (let i = 0; i < records.length; i += 1000) {
    const result = await writeEventLines(client, records.slice(i, i + 1000), prefix);
    if (result.errors) throw new Error('bulk failed');
  }
  const bulkSeconds = (performance.now() - bulkStart) / 1000;
  await client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh` });
  // The machine is shared: the pass is repeated from scratch (normalized and state indices dropped) and the median
  // reported with every run.
  const runs: { rate: number; ms: number; events: number; instances: number }[] = [];
  for (let run = 0; run < RUNS; run++) {
    const normalizer = new OpenSearchNormalizer({ client, prefix, holder: `bench-throughput-${run}` });
    const n = normalizer.names;
    await client.transport.request({ method: 'DELETE', path: `/${[n.workflowInstances, n.taskExecutions, n.ingestErrors, n.normalizerState, n.eventStore].join(',')}`, querystring: { ignore_unavailable: 'true' } });
    await normalizer.setup();
    if (!(await normalizer.acquire())) throw new Error('lease not acquired');
    const started = performance.now();
    const cycle = await normalizer.cycle();
    const seconds = (performance.now() - started) / 1000;
    runs.push({ rate: Math.round(cycle.newRawEvents / seconds), ms: Math.round(seconds * 1000), events: cycle.newRawEvents, instances: cycle.instances });
  }
  const sorted = [...runs].sort((a, b) => a.rate - b.rate);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return { events: median.events, instances: median.instances, bulkEventsPerSecond: Math.round(records.length / bulkSeconds), normalizerEventsPerSecond: median.rate, cycleMs: median.ms, runs: runs.map((r) => r.rate) };
}

const prefix = `wi-bench-${randomBytes(4).toString('hex')}-`;
try {
  const latencies = (await freshness(`${prefix}f-`)).sort((a, b) => a - b);
  console.log(`freshness: ${latencies.length} samples, p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies[latencies.length - 1]} ms`);
  const tp = await throughput(`${prefix}t-`);
  console.log(`throughput: ${tp.events} raw events (${tp.instances} instances, one ${LOOP_ITEMS}-iteration loop) bulk-written at ${tp.bulkEventsPerSecond} events/s, normalized from scratch in one pass: median ${tp.normalizerEventsPerSecond} events/s (${tp.cycleMs} ms; runs ${tp.runs.join(', ')} events/s)`);
  console.log(JSON.stringify({ freshnessP50Ms: percentile(latencies, 50), freshnessP99Ms: percentile(latencies, 99), freshnessSamples: latencies.length, normalizerEventsPerSecond: tp.normalizerEventsPerSecond, normalizerRuns: tp.runs, events: tp.events, instances: tp.instances, bulkEventsPerSecond: tp.bulkEventsPerSecond }));
} finally {
  await drop(prefix);
  await client.close();
}
