// Raw retention: the daily raw indices are an inbox (the normalizer keeps every accepted event in its event store),
// so a raw index is deleted once it is older than the horizon — by its creation time (`index.creation_date`), not the
// date in its name, since Fluent Bit names indices by record time and a backfill writes into old-named indices — and
// only when the normalizer has processed every document in it: its newest `wi.ingest_time` is before the checkpoint
// minus the overlap the normalizer re-reads.
//
// Deleting is done so that a write racing with it is never lost: the index is first blocked for writes (waiting for
// the writes already in flight, blockWrites), refreshed and checked again; a document that arrived meanwhile keeps it
// (the block is lifted). A write refused by the block is retried by Fluent Bit (retries without limit) and lands in a
// new index of that name, created by the template.
import type { Client } from '@opensearch-project/opensearch';
import { TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX, rawIndexPattern } from '../raw-index-templates.js';

const DAY_MS = 86_400_000;
/** The overlap assumed when the checkpoint does not say (the normalizer's default). */
export const DEFAULT_OVERLAP_MS = 10_000;

export interface RawIndexState {
  readonly index: string;
  readonly createdAtMs: number;
  readonly documents: number;
  /** Newest `wi.ingest_time` (epoch ms) in the index; null when it holds no document. */
  readonly newestIngestMs: number | null;
  /** `index.blocks.write` is set (by a retention pass that stopped between its block and its delete). */
  readonly writeBlocked?: boolean;
}

export type RawIndexAction = 'delete' | 'keep';

export interface RawIndexDecision extends RawIndexState {
  readonly action: RawIndexAction;
  readonly reason: string;
}

export interface RawRetentionOptions {
  readonly prefix: string;
  readonly retentionDays: number;
  /** The normalizer's checkpoint (epoch ms): raw events ingested before `checkpointMs − overlapMs` are normalized. */
  readonly checkpointMs: number;
  readonly overlapMs: number;
  readonly nowMs?: number;
}

export interface RawRetentionResult {
  readonly decisions: RawIndexDecision[];
  /** Indices actually deleted (none in a dry run). */
  readonly deleted: RawIndexDecision[];
}

function rawPatterns(prefix: string): string {
  return `${rawIndexPattern(WORKFLOW_RAW_PREFIX, prefix)},${rawIndexPattern(TASK_RAW_PREFIX, prefix)}`;
}

const LENIENT = { allow_no_indices: 'true', ignore_unavailable: 'true', expand_wildcards: 'open' };

async function newestIngestTimes(client: Client, indices: string): Promise<Map<string, { documents: number; newest: number | null }>> {
  const response = await client.transport.request({
    method: 'POST',
    path: `/${indices}/_search`,
    querystring: LENIENT,
    body: { size: 0, track_total_hits: false, aggs: { by_index: { terms: { field: '_index', size: 10_000 }, aggs: { newest: { max: { field: 'wi.ingest_time' } } } } } },
  });
  const buckets = (response.body as { aggregations?: { by_index?: { buckets: { key: string; doc_count: number; newest: { value: number | null } }[] } } }).aggregations?.by_index?.buckets ?? [];
  return new Map(buckets.map((b) => [b.key, { documents: b.doc_count, newest: b.newest.value }]));
}

/** Every raw index with its creation time, document count and newest ingest time (refreshed first). */
export async function rawIndexStates(client: Client, prefix: string): Promise<RawIndexState[]> {
  const patterns = rawPatterns(prefix);
  await client.transport.request({ method: 'POST', path: `/${patterns}/_refresh`, querystring: LENIENT });
  const settings = await client.transport.request({ method: 'GET', path: `/${patterns}/_settings/index.creation_date,index.blocks.write`, querystring: LENIENT });
  const created = Object.entries(settings.body as Record<string, { settings: { index: { creation_date: string; blocks?: { write?: string } } } }>);
  const newest = await newestIngestTimes(client, patterns);
  return created
    .map(([index, s]) => ({
      index,
      createdAtMs: Number(s.settings.index.creation_date),
      documents: newest.get(index)?.documents ?? 0,
      newestIngestMs: newest.get(index)?.newest ?? null,
      writeBlocked: s.settings.index.blocks?.write === 'true',
    }))
    .sort((a, b) => a.createdAtMs - b.createdAtMs || a.index.localeCompare(b.index));
}

/** The processed point: raw events ingested before it are normalized. */
export function processedBefore(checkpointMs: number, overlapMs: number): number {
  return checkpointMs - overlapMs;
}

export function decide(state: RawIndexState, options: RawRetentionOptions): RawIndexDecision {
  const nowMs = options.nowMs ?? Date.now();
  const horizon = nowMs - options.retentionDays * DAY_MS;
  if (state.createdAtMs >= horizon) {
    return { ...state, action: 'keep', reason: `created ${new Date(state.createdAtMs).toISOString()}, within the ${options.retentionDays}-day horizon` };
  }
  const safe = processedBefore(options.checkpointMs, options.overlapMs);
  if (state.newestIngestMs !== null && state.newestIngestMs >= safe) {
    return { ...state, action: 'keep', reason: `holds events the normalizer has not processed yet (newest ingested ${new Date(state.newestIngestMs).toISOString()}, checkpoint ${new Date(options.checkpointMs).toISOString()})` };
  }
  return { ...state, action: 'delete', reason: `created ${new Date(state.createdAtMs).toISOString()}, older than ${options.retentionDays} days, every event normalized` };
}

async function setWriteBlock(client: Client, index: string, blocked: boolean): Promise<void> {
  await client.transport.request({ method: 'PUT', path: `/${encodeURIComponent(index)}/_settings`, body: { index: { 'blocks.write': blocked ? true : null } } });
}

/** How long writes already past the block check may take to land when the block cannot wait for them itself. */
const IN_FLIGHT_WRITES_MS = 1000;

/**
 * Blocks writes and returns once no write that got past the block check is still in flight. Setting
 * `index.blocks.write` through the settings API does not wait for those: a Fluent Bit bulk that passed the check just
 * before the block was indexed after the re-check's refresh, answered 201 (so never retried) and deleted with the index
 * (retention.test.ts "keeps writing": two task events lost, about once in a dozen runs on a loaded node). The
 * add-index-block API (`PUT /<index>/_block/write`) sets the same setting and then waits for every shard's operations
 * in flight. A user without its permission (`indices:admin/block/add`, not in the roles of earlier releases) gets the
 * settings block and a pause for the writes in flight instead.
 */
async function blockWrites(client: Client, index: string): Promise<void> {
  const response = await client.transport.request({ method: 'PUT', path: `/${encodeURIComponent(index)}/_block/write` }, { ignore: [403] });
  if (response.statusCode === 403) {
    await setWriteBlock(client, index, true);
    await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_WRITES_MS));
    return;
  }
  const body = response.body as { acknowledged?: boolean; shards_acknowledged?: boolean };
  if (body.acknowledged !== true || body.shards_acknowledged !== true) {
    throw new Error(`blocking writes to ${index} was not acknowledged by every shard: ${JSON.stringify(response.body).slice(0, 500)}`);
  }
}

/** Blocks writes, re-checks, deletes; a document that arrived meanwhile keeps the index (returned as kept). */
async function deleteSafely(client: Client, decision: RawIndexDecision, options: RawRetentionOptions): Promise<RawIndexDecision> {
  const { index } = decision;
  try {
    await blockWrites(client, index);
  } catch (error) {
    // A block that was set but not confirmed must not stay: Fluent Bit would retry into it for ever.
    await setWriteBlock(client, index, false).catch(() => undefined);
    throw error;
  }
  try {
    await client.transport.request({ method: 'POST', path: `/${encodeURIComponent(index)}/_refresh` });
    const now = (await newestIngestTimes(client, encodeURIComponent(index))).get(index);
    const again = decide({ ...decision, documents: now?.documents ?? 0, newestIngestMs: now?.newest ?? null }, options);
    if (again.action === 'keep') {
      await setWriteBlock(client, index, false);
      return again;
    }
    await client.transport.request({ method: 'DELETE', path: `/${encodeURIComponent(index)}` }, { ignore: [404] });
    return again;
  } catch (error) {
    await setWriteBlock(client, index, false).catch(() => undefined);
    throw error;
  }
}

/** Decides every raw index and, unless `dryRun`, deletes the ones that go. */
export async function applyRawRetention(client: Client, options: RawRetentionOptions & { dryRun?: boolean }): Promise<RawRetentionResult> {
  const decisions = (await rawIndexStates(client, options.prefix)).map((s) => decide(s, options));
  if (options.dryRun) return { decisions, deleted: [] };
  const deleted: RawIndexDecision[] = [];
  const final: RawIndexDecision[] = [];
  for (const decision of decisions) {
    if (decision.action !== 'delete') {
      // A pass that stopped between its write block and its delete left the block: Fluent Bit would retry for ever.
      if (decision.writeBlocked === true && decision.createdAtMs < (options.nowMs ?? Date.now()) - options.retentionDays * DAY_MS) await setWriteBlock(client, decision.index, false);
      final.push(decision);
      continue;
    }
    const outcome = await deleteSafely(client, decision, options);
    final.push(outcome);
    if (outcome.action === 'delete') deleted.push(outcome);
  }
  return { decisions: final, deleted };
}
