// Demo data of development mode on OpenSearch: the event set `npm start` loads (demoEventLines of the events package:
// fixtures/quarkus-flow-events.jsonl placed just before the start, plus a running run), sent the way Fluent Bit's opensearch output sends it (fluent-bit-bulk.ts: daily raw indices, create actions with
// generated ids), then normalized by the running normalizer like any other event. Loaded only into a node that holds
// no raw events and no instances yet, so a restart neither duplicates nor overwrites what is there; and even then,
// re-sending would give 409 per item (the same record and time give the same id).
import type { Client } from '@opensearch-project/opensearch';
import { DEMO_REFERENCE_EVENTS, demoBaseMs, demoEventLinesOf } from '@workflow-index/events';
import { type FluentBitRecord, writeEventLines } from '../fluent-bit-bulk.js';
import { normalizedIndexNames } from '../normalized-indices.js';
import type { OpenSearchNormalizer } from '../normalizer-job.js';
import { TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX } from '../raw-index-templates.js';

/** The reference event stream; loaded re-timed (demoEventLines), any other file as it is. */
export const DEFAULT_DEMO_EVENTS = DEMO_REFERENCE_EVENTS;

/**
 * The record time a replayed line gets: the event's own `timestamp` (the CONTRACT's magnitude rule: seconds,
 * milliseconds, microseconds or nanoseconds; or an ISO string), so the demo lands in the indices of its own day
 * every time; the time it is read only when the event has no usable timestamp (the normalizer rejects it anyway).
 */
export function demoRecordTimeMs(line: string, now = Date.now()): number {
  let ts: unknown;
  try {
    ts = (JSON.parse(line) as { timestamp?: unknown }).timestamp;
  } catch {
    return now;
  }
  const n = typeof ts === 'number' ? ts : typeof ts === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(ts) ? Number(ts) : undefined;
  if (n !== undefined && Number.isFinite(n)) {
    const abs = Math.abs(n);
    return abs < 1e11 ? n * 1e3 : abs < 1e14 ? n : abs < 1e17 ? n / 1e3 : n / 1e6;
  }
  const parsed = typeof ts === 'string' ? Date.parse(ts) : Number.NaN;
  return Number.isNaN(parsed) ? now : parsed;
}

export function demoRecords(file: string, baseMs: number = demoBaseMs()): { records: FluentBitRecord[]; instanceIds: string[] } {
  const lines = demoEventLinesOf(file, baseMs);
  const ids = new Set<string>();
  for (const line of lines) {
    try {
      const id = (JSON.parse(line) as { instanceId?: unknown }).instanceId;
      if (typeof id === 'string') ids.add(id);
    } catch {
      // kept: the pipeline records it as an ingest error, as it would in production
    }
  }
  return { records: lines.map((line) => ({ line, recordTimeMs: demoRecordTimeMs(line) })), instanceIds: [...ids] };
}

async function count(client: Client, indices: string): Promise<number> {
  const response = await client.transport.request(
    { method: 'GET', path: `/${indices}/_count`, querystring: { allow_no_indices: 'true', ignore_unavailable: 'true', expand_wildcards: 'open' } },
    { ignore: [404] },
  );
  return (response.body as { count?: number }).count ?? 0;
}

export type DemoLoadResult =
  | { readonly status: 'loaded'; readonly events: number; readonly rejected: number; readonly instances: number; readonly baseMs: number }
  | { readonly status: 'skipped'; readonly reason: string };

export async function loadDemoEventsIfEmpty(client: Client, file: string, prefix = '', baseMs: number = demoBaseMs()): Promise<DemoLoadResult> {
  const raw = `${prefix}${WORKFLOW_RAW_PREFIX}-*,${prefix}${TASK_RAW_PREFIX}-*`;
  const names = normalizedIndexNames(prefix);
  if ((await count(client, raw)) > 0 || (await count(client, names.workflowInstances)) > 0) {
    return { status: 'skipped', reason: 'the node already holds workflow events' };
  }
  const { records, instanceIds } = demoRecords(file, baseMs);
  let rejected = 0;
  // Flushes of at most 500 records, as Fluent Bit's chunks would be.
  for (let i = 0; i < records.length; i += 500) {
    const result = await writeEventLines(client, records.slice(i, i + 500), prefix);
    rejected += result.items.filter((item) => item.status !== 201).length;
  }
  return { status: 'loaded', events: records.length, rejected, instances: instanceIds.length, baseMs };
}

/**
 * Resolves once the running normalizer has counted `events` raw events (every demo event normalized, not just a
 * first part of an instance's events) and the normalized indices are refreshed, so the first query a developer sends
 * sees the whole demo; or at the deadline. Returns the instances served then.
 */
export async function waitForNormalized(client: Client, normalizer: OpenSearchNormalizer, events: number, prefix: string, timeoutMs: number): Promise<{ events: number; instances: number }> {
  const names = normalizedIndexNames(prefix);
  const deadline = Date.now() + timeoutMs;
  let counted = 0;
  for (;;) {
    counted = (await normalizer.metrics.rawEvents.get()).values[0]?.value ?? 0;
    if (counted >= events || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await client.transport.request({ method: 'POST', path: `/${names.workflowInstances},${names.taskExecutions}/_refresh` });
  const served = await client.transport.request({ method: 'POST', path: `/${names.workflowInstances}/_count`, body: { query: { term: { placeholder: false } } } });
  return { events: counted, instances: (served.body as { count: number }).count };
}
