// What the normalizer's late-arrival audit costs a cycle on a real node (not a test: figures only), against listing
// every raw id of the same window (what a NORMALIZER_OVERLAP_MS as long as the late window would do each cycle).
// --docs raw documents (wi.ingest_time and wi.instance_id only, indexed without the pipeline) are spread evenly over
// the default late window behind now; then, --runs times each: the audit's count per second of the window behind the
// overlap (one date_histogram), the listing of the ids of that window (search_after pages of 5,000, docvalues), and
// the listing of the 10 s overlap a cycle makes anyway. Time per request as the client sees it and the response bytes.
// Usage: node --conditions=source --import tsx bench/opensearch/late-audit-bench.ts [--docs 100000] [--runs 15]
// The node: WI_TEST_OPENSEARCH_URL (default http://127.0.0.1:9200). Everything lives under a random prefix, removed at
// the end. The last line printed is one JSON object with the figures.
import { Client } from '@opensearch-project/opensearch';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DEFAULT_LATE_WINDOW_MS, applyRawSchema, countPerBucket, rawIndices, scanIngestedSince } from '@workflow-index/opensearch/admin';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '100000' }, runs: { type: 'string', default: '15' } } });
const DOCS = Number(values.docs);
const RUNS = Number(values.runs);
const OVERLAP_MS = 10_000;
const URL_ = process.env['WI_TEST_OPENSEARCH_URL'] ?? 'http://127.0.0.1:9200';
const client = new Client({ node: URL_ });
const prefix = `wi-bench-late-${randomBytes(4).toString('hex')}-`;

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p90 = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(0.9 * xs.length) - 1)]!;

async function fill(nowMs: number): Promise<void> {
  const index = `${prefix}workflow-instance-events-raw-2026.11.29`;
  for (let i = 0; i < DOCS; i += 10_000) {
    const lines: string[] = [];
    for (let j = i; j < Math.min(DOCS, i + 10_000); j++) {
      const stamp = nowMs - DEFAULT_LATE_WINDOW_MS + Math.floor((j * DEFAULT_LATE_WINDOW_MS) / DOCS);
      lines.push(JSON.stringify({ create: { _index: index } }), JSON.stringify({ wi: { ingest_time: new Date(stamp).toISOString(), instance_id: `run-${j % 5000}` } }));
    }
    const response = await client.transport.request({ method: 'POST', path: '/_bulk', querystring: { pipeline: '_none' }, bulkBody: lines.join('\n') + '\n' });
    if ((response.body as { errors: boolean }).errors) throw new Error('the bulk refused documents');
  }
  await client.transport.request({ method: 'POST', path: `/${prefix}*/_refresh` });
}

/** Response bytes of one search body as the node sends it. */
async function bytesOf(body: unknown): Promise<number> {
  const response = await fetch(`${URL_}/${rawIndices(prefix)}/_search?ignore_unavailable=true&allow_no_indices=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await response.arrayBuffer()).byteLength;
}

async function timed(work: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const started = performance.now();
    await work();
    ms.push(performance.now() - started);
  }
  return ms;
}

async function main(): Promise<void> {
  const nowMs = Date.now();
  await applyRawSchema(client, { prefix });
  try {
    await fill(nowMs);
    const highWater = nowMs;
    const from = highWater - DEFAULT_LATE_WINDOW_MS;
    const to = highWater - OVERLAP_MS;
    const counts = await countPerBucket(client, prefix, from, to);
    const window = await scanIngestedSince(client, prefix, from, to);
    const overlap = await scanIngestedSince(client, prefix, to);
    const auditMs = await timed(() => countPerBucket(client, prefix, from, to));
    const listMs = await timed(() => scanIngestedSince(client, prefix, from, to));
    const overlapMs = await timed(() => scanIngestedSince(client, prefix, to));
    const range = (lt?: number) => ({ range: { 'wi.ingest_time': { gte: lt === undefined ? to : from, ...(lt === undefined ? {} : { lt }), format: 'epoch_millis' } } });
    const auditBytes = await bytesOf({ size: 0, track_total_hits: false, query: range(to), aggs: { late: { date_histogram: { field: 'wi.ingest_time', fixed_interval: '1000ms', min_doc_count: 1 } } } });
    const page = (query: unknown) => ({ size: 5000, _source: false, track_total_hits: false, query, sort: [{ 'wi.ingest_time': 'asc' }, { _id: 'asc' }], docvalue_fields: [{ field: 'wi.ingest_time', format: 'epoch_millis' }, { field: 'wi.instance_id' }] });
    const pageBytes = await bytesOf(page(range(to)));
    const figures = {
      docs: DOCS,
      windowMs: DEFAULT_LATE_WINDOW_MS,
      auditedDocs: [...counts.values()].reduce((a, b) => a + b, 0),
      auditBuckets: counts.size,
      listedIdsInWindow: window.length,
      listedIdsInOverlap: overlap.length,
      auditMs: { median: median(auditMs), p90: p90(auditMs) },
      auditBytes,
      listWindowMs: { median: median(listMs), p90: p90(listMs) },
      // One page of 5,000 ids, times the pages the window takes.
      listWindowBytes: Math.round(pageBytes * (window.length / 5000)),
      listOverlapMs: { median: median(overlapMs), p90: p90(overlapMs) },
    };
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    console.log(`late-window audit at ${DOCS} raw documents over ${DEFAULT_LATE_WINDOW_MS / 1000} s (load ${load}): count per second ${figures.auditMs.median.toFixed(1)} ms median (p90 ${figures.auditMs.p90.toFixed(1)}), ${auditBytes} bytes; listing the window's ${window.length} ids ${figures.listWindowMs.median.toFixed(0)} ms median, ~${figures.listWindowBytes} bytes; listing the overlap's ${overlap.length} ids ${figures.listOverlapMs.median.toFixed(0)} ms`);
    console.log(JSON.stringify({ ...figures, load: Number(load) }));
  } finally {
    await client.transport.request({ method: 'DELETE', path: `/${prefix}*`, querystring: { allow_no_indices: 'true', expand_wildcards: 'all' } }, { ignore: [404] });
    await client.transport.request({ method: 'DELETE', path: `/_index_template/${prefix}*` }, { ignore: [404] });
    await client.transport.request({ method: 'DELETE', path: `/_ingest/pipeline/${prefix}*` }, { ignore: [404] });
    await client.close();
  }
}

await main();
