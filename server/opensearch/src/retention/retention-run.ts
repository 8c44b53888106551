// One retention pass: raw indices by the rule's horizon (never one the normalizer has not processed), then, when the
// rule sets it, finished runs. The normalizer runs it periodically under its lease; `init-job prune --backend
// opensearch` runs it on demand (with --dry-run it only counts).
import type { Client } from '@opensearch-project/opensearch';
import type { NormalizedIndexNames } from '../normalized-indices.js';
import { readCheckpoint, settlingMs } from '../normalizer-checkpoint.js';
import { type InstanceRetentionResult, applyInstanceRetention } from './instance-retention.js';
import { DEFAULT_OVERLAP_MS, type RawRetentionResult, applyRawRetention } from './raw-retention.js';
import type { RetentionRule } from './retention-rule.js';

export interface RetentionRunOptions {
  readonly prefix: string;
  readonly names: NormalizedIndexNames;
  readonly rule: RetentionRule;
  readonly dryRun?: boolean;
  readonly batchSize?: number;
  readonly nowMs?: number;
  /** The checkpoint to trust (the normalizer passes its own); default: the stored one. */
  readonly checkpoint?: { readonly highWaterMs: number; readonly overlapMs?: number; readonly lateWindowMs?: number };
}

export interface RetentionRunResult {
  readonly rule: RetentionRule;
  readonly checkpointMs: number;
  readonly raw: RawRetentionResult;
  /** null when instance retention is off. */
  readonly instances: InstanceRetentionResult | null;
}

export async function runRetention(client: Client, options: RetentionRunOptions): Promise<RetentionRunResult> {
  const checkpoint = options.checkpoint ?? (await readCheckpoint(client, options.names.normalizerState));
  const nowMs = options.nowMs ?? Date.now();
  const raw = await applyRawRetention(client, {
    prefix: options.prefix,
    retentionDays: options.rule.raw_events_retention_days,
    checkpointMs: checkpoint.highWaterMs,
    // Raw events inside the late window may still arrive and be normalized (normalizer-late-arrivals.ts).
    overlapMs: settlingMs(checkpoint, DEFAULT_OVERLAP_MS),
    nowMs,
    dryRun: options.dryRun ?? false,
  });
  const days = options.rule.instance_retention_days;
  const instances = days === null ? null : await applyInstanceRetention(client, { names: options.names, retentionDays: days, batchSize: options.batchSize ?? 1000, dryRun: options.dryRun ?? false, nowMs });
  return { rule: options.rule, checkpointMs: checkpoint.highWaterMs, raw, instances };
}
