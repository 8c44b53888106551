// `npm run normalize:opensearch`: the production normalizer process (the continuous jobs workflow-instance-transform
// and task-execution-transform), configured by the environment. It serves its own /q/metrics and /q/health on
// NORMALIZER_HTTP_PORT (default 9464), stops on SIGTERM/SIGINT after releasing its slots, and otherwise never stops.
// Several may run (replicas): they split the runs by instance id (normalizer-slots.ts); how many is the bundle's
// choice (NORMALIZER_REPLICAS, the StatefulSet's replicas), not read here: each replica counts the live ones.
//   OPENSEARCH_* (see opensearch-connection-settings.ts), NORMALIZER_INTERVAL_MS (1000), NORMALIZER_OVERLAP_MS
//   (10000), NORMALIZER_LATE_WINDOW_MS (120000, at least the overlap: how far behind its checkpoint a cycle counts raw
//   events per second to find writes that became searchable late, normalizer-late-arrivals.ts), NORMALIZER_LEASE_TTL_MS (20000: a dead replica's slots are taken over within it plus the interval, the
//   30 s of CONTRACT §10), NORMALIZER_BATCH_SIZE (200), LOG_LEVEL (info),
//   NORMALIZER_RETENTION_INTERVAL_MS (3600000; 0: retention only by `init-job prune`): how often the retention rule
//   (retention/retention-rule.ts) is applied. NORMALIZER_MAX_BACKOFF_MS (30000): the longest pause between retries
//   of a failing cycle (the pause doubles from NORMALIZER_INTERVAL_MS), i.e. how long after an outage ends it may
//   take to resume. NORMALIZER_RENORMALIZE_SLICE_MS (1000): after a rules change, how long the background
//   re-normalization (normalizer-renormalize.ts) may run after each cycle. NORMALIZER_RENORMALIZE_EVENT_BUDGET (20000):
//   the stored events one of its pages may hold (at least one instance a page). NORMALIZER_CYCLE_EVENT_BUDGET (20000):
//   the stored and new events one batch of a cycle may hold (at least one instance a batch; normalizer-batches.ts).
//   WI_OPENSEARCH_INDEX_PREFIX: a prefix for every index name, for tests and benchmarks on a shared node only.
import { createServer } from 'node:http';
import { collectDefaultMetrics } from 'prom-client';
import { pino } from 'pino';
import { OpenSearchNormalizer } from './normalizer-job.js';
import { DEFAULT_LATE_WINDOW_MS } from './normalizer-late-arrivals.js';
import { createNormalizerMetrics } from './normalizer-metrics.js';
import { TAKEOVER_TARGET_MS, takeoverBoundMs } from './normalizer-slots.js';
import { openSearchClient, openSearchConnectionSettings } from './opensearch-connection-settings.js';

function intSetting(name: string, fallback: number, problems: string[], min = 1): number {
  const text = process.env[name]?.trim();
  if (!text) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) problems.push(`${name} must be ${min === 0 ? 'a whole number ≥ 0' : 'a positive integer'}, got ${JSON.stringify(text)}`);
  return n;
}

async function main(): Promise<void> {
  const logger = pino({ level: process.env['LOG_LEVEL'] ?? 'info', base: { service: 'workflow-index-normalizer' }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label: string) => ({ level: label }) } });
  const { settings, problems } = openSearchConnectionSettings(process.env);
  const options = {
    intervalMs: intSetting('NORMALIZER_INTERVAL_MS', 1000, problems),
    overlapMs: intSetting('NORMALIZER_OVERLAP_MS', 10_000, problems),
    lateWindowMs: intSetting('NORMALIZER_LATE_WINDOW_MS', DEFAULT_LATE_WINDOW_MS, problems),
    leaseTtlMs: intSetting('NORMALIZER_LEASE_TTL_MS', 20_000, problems),
    batchSize: intSetting('NORMALIZER_BATCH_SIZE', 200, problems),
    retentionIntervalMs: intSetting('NORMALIZER_RETENTION_INTERVAL_MS', 3_600_000, problems, 0),
    maxBackoffMs: intSetting('NORMALIZER_MAX_BACKOFF_MS', 30_000, problems),
    renormalizeSliceMs: intSetting('NORMALIZER_RENORMALIZE_SLICE_MS', 1000, problems),
    renormalizeEventBudget: intSetting('NORMALIZER_RENORMALIZE_EVENT_BUDGET', 20_000, problems),
    cycleEventBudget: intSetting('NORMALIZER_CYCLE_EVENT_BUDGET', 20_000, problems),
  };
  // A slice finishes its page before it stops, and the lease is renewed only between cycles: a slice near the lease's
  // lifetime would let a standby take over while this process still writes.
  if (options.renormalizeSliceMs > options.leaseTtlMs / 3) {
    problems.push(`NORMALIZER_RENORMALIZE_SLICE_MS (${options.renormalizeSliceMs}) must be at most a third of NORMALIZER_LEASE_TTL_MS (${options.leaseTtlMs})`);
  }
  // The audit covers what the overlap does not; a shorter window would let raw retention keep less than it re-reads.
  if (options.lateWindowMs < options.overlapMs) {
    problems.push(`NORMALIZER_LATE_WINDOW_MS (${options.lateWindowMs}) must be at least NORMALIZER_OVERLAP_MS (${options.overlapMs})`);
  }
  const port = intSetting('NORMALIZER_HTTP_PORT', 9464, problems);
  const takeoverMs = takeoverBoundMs(options.leaseTtlMs, options.intervalMs);
  if (settings === null || problems.length > 0) {
    for (const problem of problems) logger.error(problem);
    process.exitCode = 2;
    return;
  }
  const metrics = createNormalizerMetrics();
  collectDefaultMetrics({ register: metrics.registry });
  const normalizer = new OpenSearchNormalizer({
    client: openSearchClient(settings),
    prefix: process.env['WI_OPENSEARCH_INDEX_PREFIX'] ?? '',
    ...options,
    metrics,
    logger: { info: (message, fields) => logger.info(fields ?? {}, message), warn: (message, fields) => logger.warn(fields ?? {}, message) },
  });
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/q/metrics') {
      void metrics.registry.metrics().then((text) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType });
        response.end(text);
      });
      return;
    }
    if (path === '/q/health/live' || path === '/q/health/ready' || path === '/q/health') {
      // Ready while cycles succeed (or while standing by); a failing normalizer keeps retrying but says so.
      const up = path === '/q/health/live' || normalizer.healthy;
      response.writeHead(up ? 200 : 503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: up ? 'UP' : 'DOWN', checks: [{ name: 'normalizer', status: up ? 'UP' : 'DOWN' }] }));
      return;
    }
    response.writeHead(404).end();
  });
  const controller = new AbortController();
  server.on('error', (error) => {
    logger.error({ error: error.message, port }, 'the metrics and health endpoint cannot listen; stopping');
    process.exitCode = 1;
    controller.abort();
  });
  server.listen(port);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => controller.abort());
  if (takeoverMs > TAKEOVER_TARGET_MS) logger.warn({ takeoverMs }, 'NORMALIZER_LEASE_TTL_MS + NORMALIZER_INTERVAL_MS exceed 30 s: a dead replica\'s runs wait longer than that to be taken over');
  logger.info({ node: settings.node, holder: normalizer.holder, port, takeoverMs, ...options }, 'normalizer starting (jobs workflow-instance-transform, task-execution-transform)');
  await normalizer.run(controller.signal);
  server.close();
  logger.info('normalizer stopped');
}

await main();
