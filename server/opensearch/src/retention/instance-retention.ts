// Instance retention (off unless INSTANCE_RETENTION_DAYS / the retention rule sets it): finished runs (COMPLETED,
// FAULTED, CANCELLED) that ended before the horizon are deleted with their task executions and stored events, in
// batches. A run that is still RUNNING or SUSPENDED (and a placeholder, which is RUNNING) is never deleted.
//
// A late event for a deleted run is not applied: a tombstone (event-store.ts) stays in the event store, and the
// normalizer records such an event in the ingest-errors index instead of serving a partial copy of the run rebuilt
// from that one event. Tombstones are tiny and kept. The normalized documents are deleted with the greatest external
// version, so a normalizer cycle that read the run just before it was deleted cannot write it back.
import type { Client } from '@opensearch-project/opensearch';
import { tombstoneDocument, tombstoneId } from '../event-store.js';
import type { NormalizedIndexNames } from '../normalized-indices.js';
import { type BulkLine, existingExecutionIds, sendBulk } from '../normalizer-recompute.js';

const DAY_MS = 86_400_000;
export const FINISHED_STATUSES = ['COMPLETED', 'FAULTED', 'CANCELLED'] as const;
// Greater than every ingest-time version the normalizer writes, exact in JSON.
const FINAL_VERSION = Number.MAX_SAFE_INTEGER;

export interface InstanceRetentionOptions {
  readonly names: NormalizedIndexNames;
  readonly retentionDays: number;
  readonly batchSize: number;
  readonly dryRun?: boolean;
  readonly nowMs?: number;
}

export interface WorkflowCount {
  readonly namespace: string | null;
  readonly name: string | null;
  readonly instances: number;
  readonly executions: number;
  readonly storedEvents: number;
}

export interface InstanceRetentionResult {
  readonly horizonMs: number;
  readonly instances: number;
  readonly executions: number;
  readonly storedEvents: number;
  /** Per workflow (namespace, name), in code-point order. */
  readonly byWorkflow: WorkflowCount[];
}

interface Expired {
  readonly id: string;
  readonly namespace: string | null;
  readonly name: string | null;
}

async function expiredPage(client: Client, index: string, horizonUs: number, size: number, after: unknown[] | undefined): Promise<{ runs: Expired[]; last: unknown[] | undefined }> {
  const body: Record<string, unknown> = {
    size,
    _source: ['namespace', 'name'],
    track_total_hits: false,
    query: { bool: { filter: [{ terms: { status: FINISHED_STATUSES } }, { range: { end_time_us: { lt: horizonUs } } }] } },
    sort: [{ id: 'asc' }],
  };
  if (after) body['search_after'] = after;
  const response = await client.transport.request({ method: 'POST', path: `/${index}/_search`, querystring: { ignore_unavailable: 'true', allow_no_indices: 'true' }, body });
  const hits = (response.body as { hits: { hits: { _id: string; sort: unknown[]; _source: { namespace: string | null; name: string | null } }[] } }).hits.hits;
  return { runs: hits.map((h) => ({ id: h._id, namespace: h._source.namespace ?? null, name: h._source.name ?? null })), last: hits.length === size ? hits[hits.length - 1]!.sort : undefined };
}

async function countByInstance(client: Client, index: string, instanceIds: readonly string[], exclude?: Record<string, unknown>): Promise<Map<string, number>> {
  const response = await client.transport.request({
    method: 'POST',
    path: `/${index}/_search`,
    querystring: { ignore_unavailable: 'true', allow_no_indices: 'true' },
    body: {
      size: 0,
      track_total_hits: false,
      query: { bool: { filter: [{ terms: { instance_id: instanceIds } }], must_not: exclude ? [exclude] : [] } },
      aggs: { by: { terms: { field: 'instance_id', size: instanceIds.length } } },
    },
  });
  const buckets = (response.body as { aggregations?: { by: { buckets: { key: string; doc_count: number }[] } } }).aggregations?.by.buckets ?? [];
  return new Map(buckets.map((b) => [b.key, b.doc_count]));
}

/** Deletes (or, with dryRun, counts) the finished runs that ended before the horizon. */
export async function applyInstanceRetention(client: Client, options: InstanceRetentionOptions): Promise<InstanceRetentionResult> {
  const { names } = options;
  const nowMs = options.nowMs ?? Date.now();
  const horizonMs = nowMs - options.retentionDays * DAY_MS;
  const byWorkflow = new Map<string, { namespace: string | null; name: string | null; instances: number; executions: number; storedEvents: number }>();
  let after: unknown[] | undefined;
  let instances = 0;
  let executions = 0;
  let storedEvents = 0;
  for (;;) {
    const { runs, last } = await expiredPage(client, names.workflowInstances, horizonMs * 1000, options.batchSize, after);
    if (runs.length > 0) {
      const ids = runs.map((r) => r.id);
      const executionCounts = await countByInstance(client, names.taskExecutions, ids, { term: { superseded: true } });
      const eventCounts = await countByInstance(client, names.eventStore, ids, { term: { kind: 'pruned' } });
      for (const run of runs) {
        const key = JSON.stringify([run.namespace, run.name]);
        const w = byWorkflow.get(key) ?? { namespace: run.namespace, name: run.name, instances: 0, executions: 0, storedEvents: 0 };
        w.instances++;
        w.executions += executionCounts.get(run.id) ?? 0;
        w.storedEvents += eventCounts.get(run.id) ?? 0;
        byWorkflow.set(key, w);
        instances++;
        executions += executionCounts.get(run.id) ?? 0;
        storedEvents += eventCounts.get(run.id) ?? 0;
      }
      if (!options.dryRun) await deleteRuns(client, names, ids, nowMs);
    }
    if (last === undefined) break;
    after = last;
  }
  const sorted = [...byWorkflow.values()].sort((a, b) => Buffer.compare(Buffer.from(JSON.stringify([a.namespace, a.name])), Buffer.from(JSON.stringify([b.namespace, b.name]))));
  return { horizonMs, instances, executions, storedEvents, byWorkflow: sorted };
}

/** Tombstones first (a late event from now on is not applied), then stored events, executions and the runs. */
async function deleteRuns(client: Client, names: NormalizedIndexNames, ids: readonly string[], nowMs: number): Promise<void> {
  const tombstones: BulkLine[] = ids.map((id) => ({ action: { index: { _index: names.eventStore, _id: tombstoneId(id) } }, document: tombstoneDocument(id, nowMs) }));
  const refused = await sendBulk(client, tombstones, true);
  if (refused.length > 0) throw new Error(`writing retention tombstones failed: ${refused[0]!.reason}`);
  await client.transport.request({
    method: 'POST',
    path: `/${names.eventStore}/_delete_by_query`,
    querystring: { conflicts: 'proceed', refresh: 'true', slices: 'auto' },
    body: { query: { bool: { filter: [{ terms: { instance_id: ids } }], must_not: [{ term: { kind: 'pruned' } }] } } },
  });
  const deletes: BulkLine[] = [];
  for (const executionId of (await existingExecutionIds(client, names.taskExecutions, ids)).keys()) {
    deletes.push({ action: { delete: { _index: names.taskExecutions, _id: executionId, version: FINAL_VERSION, version_type: 'external_gte' } } });
  }
  for (const id of ids) deletes.push({ action: { delete: { _index: names.workflowInstances, _id: id, version: FINAL_VERSION, version_type: 'external_gte' } } });
  const failed = await sendBulk(client, deletes, true);
  if (failed.length > 0) throw new Error(`deleting expired runs failed: ${failed[0]!.reason}`);
}
