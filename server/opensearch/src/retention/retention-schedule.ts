// The normalizer's retention schedule: a retention pass (retention-run.ts) by the rule in the state index every
// interval, after a cycle on the replica holding the coordinator slot, trusting the earliest checkpoint of every slot. A failure is reported in the
// status document and retried at the next interval; it never fails the normalization cycle.
import type { Checkpoint, RetentionStatus } from '../normalizer-checkpoint.js';
import type { NormalizerContext } from '../normalizer-context.js';
import { openSearchErrorText } from '../opensearch-error-text.js';
import { DEFAULT_RETENTION_RULE, readRetentionRule } from './retention-rule.js';
import { type RetentionRunResult, runRetention } from './retention-run.js';

export interface RetentionScheduleSettings {
  /** Pause between passes; 0: never from this process. */
  readonly intervalMs: number;
  /** The overlap the normalizer re-reads behind its checkpoint. */
  readonly overlapMs: number;
  /** How far behind its checkpoint the normalizer audits late arrivals (raw events there are kept too). */
  readonly lateWindowMs: number;
  /** The checkpoint every slot has reached (the earliest slot checkpoint, read from the state index). */
  readonly checkpoint: () => Promise<Checkpoint>;
}

export class RetentionSchedule {
  private lastRunAt: number | null = null;
  private lastStatus: RetentionStatus | undefined;

  constructor(
    private readonly context: Pick<NormalizerContext, 'client' | 'prefix' | 'names' | 'metrics' | 'logger'>,
    private readonly settings: RetentionScheduleSettings,
  ) {}

  /** What the status document says about the last pass; undefined before the first. */
  get retentionStatus(): RetentionStatus | undefined {
    return this.lastStatus;
  }

  /** One pass by the stored rule (the default rule when none is stored); the caller holds the coordinator slot. */
  async run(nowMs = Date.now()): Promise<RetentionRunResult> {
    const { client, prefix, names, metrics } = this.context;
    const rule = (await readRetentionRule(client, names.normalizerState)) ?? DEFAULT_RETENTION_RULE;
    const checkpoint = await this.settings.checkpoint();
    const result = await runRetention(client, { prefix, names, rule, nowMs, checkpoint: { highWaterMs: checkpoint.highWaterMs, overlapMs: this.settings.overlapMs, lateWindowMs: this.settings.lateWindowMs } });
    const waiting = result.raw.decisions.filter((d) => d.action === 'keep' && d.reason.startsWith('holds events')).length;
    metrics.retentionDeleted.inc({ kind: 'raw_index' }, result.raw.deleted.length);
    metrics.retentionDeleted.inc({ kind: 'instance' }, result.instances?.instances ?? 0);
    this.lastStatus = {
      last_run_at_ms: nowMs,
      raw_events_retention_days: rule.raw_events_retention_days,
      instance_retention_days: rule.instance_retention_days,
      raw_indices_deleted: result.raw.deleted.length,
      raw_indices_waiting: waiting,
      instances_deleted: result.instances?.instances ?? 0,
      last_error: null,
    };
    return result;
  }

  /** A pass when the interval has passed since the last one. */
  async runIfDue(): Promise<void> {
    if (this.settings.intervalMs === 0) return;
    const now = Date.now();
    if (this.lastRunAt !== null && now - this.lastRunAt < this.settings.intervalMs) return;
    this.lastRunAt = now;
    try {
      const result = await this.run(now);
      if (result.raw.deleted.length > 0 || (result.instances?.instances ?? 0) > 0) {
        this.context.logger.info('retention', { rawIndicesDeleted: result.raw.deleted.map((d) => d.index), instancesDeleted: result.instances?.instances ?? 0 });
      }
    } catch (error) {
      this.context.metrics.retentionFailures.inc();
      const message = openSearchErrorText(error);
      this.lastStatus = { ...(this.lastStatus ?? { last_run_at_ms: now, raw_events_retention_days: DEFAULT_RETENTION_RULE.raw_events_retention_days, instance_retention_days: null, raw_indices_deleted: 0, raw_indices_waiting: 0, instances_deleted: 0 }), last_error: message };
      this.context.logger.warn('retention failed; retrying at the next interval', { error: message });
    }
  }
}
