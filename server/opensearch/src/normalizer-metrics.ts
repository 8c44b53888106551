// The normalizer's Prometheus metrics, in a registry of their own: the normalizer process exports it, and the
// server can merge it into /q/metrics (prom-client's Registry.merge) when both run in one process.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export const NORMALIZER_JOBS = ['workflow-instance-transform', 'task-execution-transform'] as const;
export type NormalizerJob = (typeof NORMALIZER_JOBS)[number];

export interface NormalizerMetrics {
  readonly registry: Registry;
  readonly cycleSeconds: Histogram;
  readonly rawEvents: Counter;
  readonly lateRawEvents: Counter;
  readonly rejectedEvents: Counter;
  readonly documents: Counter<'transform'>;
  readonly deletedDocuments: Counter<'transform'>;
  readonly failedCycles: Counter;
  readonly lagSeconds: Gauge;
  readonly checkpoint: Gauge;
  readonly active: Gauge;
  readonly slotsHeld: Gauge;
  readonly phaseSeconds: Counter<'phase'>;
  readonly consecutiveFailures: Gauge;
  readonly retentionDeleted: Counter<'kind'>;
  readonly retentionFailures: Counter;
  readonly renormalizedInstances: Counter;
  readonly renormalizationFailures: Counter;
  readonly renormalizationSkippedInstances: Counter;
  readonly rulesVersion: Gauge<'kind'>;
}

export function createNormalizerMetrics(registry = new Registry()): NormalizerMetrics {
  const registers = [registry];
  return {
    registry,
    cycleSeconds: new Histogram({
      name: 'workflow_index_normalizer_cycle_seconds',
      help: 'Duration of one normalization cycle (find touched instances, recompute, write)',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    }),
    rawEvents: new Counter({ name: 'workflow_index_normalizer_raw_events_total', help: 'Raw events normalized (each raw document counted once)', registers }),
    lateRawEvents: new Counter({ name: 'workflow_index_normalizer_late_raw_events_total', help: 'Raw events of late-window seconds whose count grew since they were listed (writes that became searchable after the overlap, and the other events of their second), sent through a cycle again', registers }),
    rejectedEvents: new Counter({ name: 'workflow_index_normalizer_rejected_events_total', help: 'Raw events recorded in the ingest-errors index', registers }),
    // Labelled `transform`, not `job`: Prometheus gives every scraped target a `job` label of its own, and a metric's
    // `job` would be renamed `exported_job` on scrape.
    documents: new Counter({ name: 'workflow_index_normalizer_documents_written_total', help: 'Normalized documents written, per transform job', labelNames: ['transform'], registers }),
    deletedDocuments: new Counter({ name: 'workflow_index_normalizer_documents_deleted_total', help: 'Execution documents withdrawn because their id disappeared (replaced by an unserved superseded marker), per transform job', labelNames: ['transform'], registers }),
    failedCycles: new Counter({ name: 'workflow_index_normalizer_failed_cycles_total', help: 'Cycles that failed and will be retried with back-off', registers }),
    lagSeconds: new Gauge({ name: 'workflow_index_normalizer_lag_seconds', help: 'How long the oldest raw event waited for the last cycle; while cycles fail, the time since the last successful one', registers }),
    checkpoint: new Gauge({ name: 'workflow_index_normalizer_checkpoint_timestamp_seconds', help: 'Ingest time up to which raw events are normalized (epoch seconds)', registers }),
    active: new Gauge({ name: 'workflow_index_normalizer_active', help: '1 while this process holds at least one slot of the runs (normalizer-lease.ts)', registers }),
    phaseSeconds: new Counter({ name: 'workflow_index_normalizer_phase_seconds_total', help: 'Time cycles spent per phase: scan (listing new raw documents), audit (counting the late window per second, listing the grown seconds), fetch (reading them and sizing batches), plan (reading stored events and executions, computing), write (fence and bulk), checkpoint; batches overlap, so the phases can add up to more than the cycles', labelNames: ['phase'], registers }),
    slotsHeld: new Gauge({ name: 'workflow_index_normalizer_slots_held', help: 'Slots of the runs (of 32, by instance id) this replica holds and normalizes', registers }),
    consecutiveFailures: new Gauge({ name: 'workflow_index_normalizer_consecutive_failures', help: 'Failed cycles since the last successful one', registers }),
    retentionDeleted: new Counter({ name: 'workflow_index_normalizer_retention_deleted_total', help: 'What retention deleted: kind="raw_index" (daily raw indices) or kind="instance" (finished runs)', labelNames: ['kind'], registers }),
    retentionFailures: new Counter({ name: 'workflow_index_normalizer_retention_failures_total', help: 'Retention passes that failed (retried at the next interval)', registers }),
    renormalizedInstances: new Counter({ name: 'workflow_index_normalizer_renormalized_instances_total', help: 'Instances of the event store the re-normalization after a rules change walked and recomputed', registers }),
    renormalizationFailures: new Counter({ name: 'workflow_index_normalizer_renormalization_failures_total', help: 'Re-normalization slices that failed (retried after the next cycle)', registers }),
    renormalizationSkippedInstances: new Counter({ name: 'workflow_index_normalizer_renormalization_skipped_instances_total', help: 'Instances the re-normalization after a rules change walked past because their recomputation kept failing for a reason of their own (recorded in the ingest errors as normalizer/<instance id>)', registers }),
    rulesVersion: new Gauge({ name: 'workflow_index_normalizer_rules_version', help: 'Normalization rules version: kind="release" this release\'s, kind="documents" the one every normalized document is written with (lower while a re-normalization runs)', labelNames: ['kind'], registers }),
  };
}
