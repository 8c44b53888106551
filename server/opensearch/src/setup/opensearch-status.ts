// The status of an OpenSearch installation (`init-job status --backend opensearch`): whether every object setup
// manages is up to date (the comparison of planOpenSearchSetup), how many documents the indices hold, and the
// normalizer: its status document (the coordinator replica's: jobs, lag as it last measured it), the live replicas and
// their slots, the earliest slot checkpoint, how many raw events arrived after it, and the retention rule.
import type { Client } from '@opensearch-project/opensearch';
import { normalizedIndexNames } from '../normalized-indices.js';
import { type NormalizerStatus, readCheckpoint, readStatus } from '../normalizer-checkpoint.js';
import { TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX, rawIndexPattern } from '../raw-index-templates.js';
import { type RetentionRule, readRetentionRule } from '../retention/retention-rule.js';
import { type SetupAction, type SetupObjectKind, planOpenSearchSetup } from './opensearch-setup.js';

export type ObjectState = 'up to date' | 'missing' | 'outdated';

const STATE_OF: Record<SetupAction, ObjectState> = { created: 'missing', updated: 'outdated', unchanged: 'up to date' };

export interface ObjectStatus {
  readonly kind: SetupObjectKind;
  readonly name: string;
  readonly state: ObjectState;
  /** Indices only: documents searchable now. */
  readonly documents?: number;
}

export interface NormalizerReport {
  /** The normalizer's own status document; null before setup registered the jobs. */
  readonly status: NormalizerStatus | null;
  /** Ingest time (epoch ms) up to which raw events are normalized in every slot (the earliest slot checkpoint); 0
   * before the first cycle. */
  readonly checkpointMs: number;
  /** Raw events ingested after the checkpoint: not normalized yet (the normalizer re-reads a short overlap too). */
  readonly rawEventsAfterCheckpoint: number;
  /** How long ago the normalizer last published its status; null when it never did. */
  readonly statusAgeMs: number | null;
  /** The normalizer replicas with an unexpired heartbeat, by name, with the slots each holds. */
  readonly replicas: readonly ReplicaReport[];
  /** The stored retention rule; null when setup has not created it (the normalizer then applies the defaults). */
  readonly retentionRule: RetentionRule | null;
  /** Why the stored rule cannot be read (an operator's edit broke it); null when it can. */
  readonly retentionRuleError: string | null;
}

export interface ReplicaReport {
  readonly holder: string;
  readonly slots: readonly number[];
  readonly state: string | null;
}

/** The replicas whose heartbeat (normalizer-lease.ts, `member-<holder>`) has not expired at `now`. */
async function liveReplicas(client: Client, stateIndex: string, now: number): Promise<ReplicaReport[]> {
  const response = await client.transport.request({
    method: 'POST',
    path: `/${encodeURIComponent(stateIndex)}/_search`,
    body: { size: 1000, query: { bool: { filter: [{ term: { kind: 'member' } }, { range: { expires_at_ms: { gt: now } } }] } }, sort: [{ holder: 'asc' }] },
  });
  const hits = (response.body as { hits: { hits: { _source: { holder: string; slots?: number[]; state?: string } }[] } }).hits.hits;
  return hits.map((h) => ({ holder: h._source.holder, slots: h._source.slots ?? [], state: h._source.state ?? null }));
}

export interface OpenSearchStatus {
  /** Every object setup manages, in its order. */
  readonly objects: readonly ObjectStatus[];
  /** No object is missing or outdated. */
  readonly upToDate: boolean;
  readonly normalizer: NormalizerReport;
}

async function countDocuments(client: Client, indices: string, query?: Record<string, unknown>): Promise<number> {
  const response = await client.transport.request(
    {
      method: 'POST',
      path: `/${indices}/_count`,
      querystring: { allow_no_indices: 'true', ignore_unavailable: 'true' },
      body: query === undefined ? {} : { query },
    },
    { ignore: [404] },
  );
  return response.statusCode === 404 ? 0 : Number((response.body as { count?: unknown }).count ?? 0);
}

export async function readNormalizerReport(client: Client, prefix: string, now = Date.now()): Promise<NormalizerReport> {
  const stateIndex = normalizedIndexNames(prefix).normalizerState;
  const exists = (await client.transport.request({ method: 'HEAD', path: `/${encodeURIComponent(stateIndex)}` }, { ignore: [404] })).statusCode !== 404;
  const status = exists ? ((await readStatus(client, stateIndex)) ?? null) : null;
  const checkpointMs = exists ? (await readCheckpoint(client, stateIndex)).highWaterMs : 0;
  const raw = `${rawIndexPattern(WORKFLOW_RAW_PREFIX, prefix)},${rawIndexPattern(TASK_RAW_PREFIX, prefix)}`;
  const rawEventsAfterCheckpoint = await countDocuments(client, raw, { range: { 'wi.ingest_time': { gt: checkpointMs, format: 'epoch_millis' } } });
  // Setup registers the jobs with an empty holder; only a normalizer's own publication says it runs.
  const statusAgeMs = status !== null && status.holder !== '' ? Math.max(0, now - status.updated_at_ms) : null;
  const replicas = exists ? await liveReplicas(client, stateIndex, now) : [];
  let retentionRule: RetentionRule | null = null;
  let retentionRuleError: string | null = null;
  try {
    retentionRule = exists ? ((await readRetentionRule(client, stateIndex)) ?? null) : null;
  } catch (error) {
    retentionRuleError = (error as Error).message;
  }
  return { status, checkpointMs, rawEventsAfterCheckpoint, statusAgeMs, replicas, retentionRule, retentionRuleError };
}

/** Compares every object with the cluster (changing nothing), counts the indices' documents, reads the normalizer. */
export async function openSearchStatus(client: Client, prefix = ''): Promise<OpenSearchStatus> {
  const compared = await planOpenSearchSetup(client, { prefix });
  const objects: ObjectStatus[] = [];
  for (const o of compared) {
    const state = STATE_OF[o.action];
    objects.push(o.kind === 'index' && state !== 'missing' ? { kind: o.kind, name: o.name, state, documents: await countDocuments(client, o.name) } : { kind: o.kind, name: o.name, state });
  }
  const normalizer = await readNormalizerReport(client, prefix);
  const upToDate = objects.every((o) => o.state === 'up to date');
  return { objects, upToDate, normalizer };
}
