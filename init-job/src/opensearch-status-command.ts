// `status --backend opensearch`: whether every object `opensearch-setup` manages is up to date (the same comparison
// as its dry run), how many documents the indices hold, and the normalizer: its status document (holder, jobs,
// lag as it last measured it), its checkpoint, and how many raw events arrived after that checkpoint.
import type { Client } from '@opensearch-project/opensearch';
import { normalizedIndexNames } from '@workflow-index/opensearch';
import { readCheckpoint, readStatus, type NormalizerStatus } from '@workflow-index/opensearch';
import { rawIndexPattern, TASK_RAW_PREFIX, WORKFLOW_RAW_PREFIX } from '@workflow-index/opensearch';
import { NORMALIZER_JOBS } from '@workflow-index/opensearch';
import { type RetentionRule, readRetentionRule } from '@workflow-index/opensearch';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openOpenSearch, scrub } from './opensearch-connection.js';
import { applyOpenSearchObjects, type ObjectAction, type ObjectKind } from './opensearch-objects.js';

export interface OpenSearchStatusArgs {
  readonly waitTimeout: number;
  readonly json: boolean;
}

export type ObjectState = 'up to date' | 'missing' | 'outdated';

const STATE_OF: Record<ObjectAction, ObjectState> = { created: 'missing', updated: 'outdated', unchanged: 'up to date' };

export interface ObjectStatus {
  readonly kind: ObjectKind;
  readonly name: string;
  readonly state: ObjectState;
  /** Indices only: documents searchable now. */
  readonly documents?: number;
}

export interface NormalizerReport {
  /** The normalizer's own status document; null before setup registered the jobs. */
  readonly status: NormalizerStatus | null;
  /** Ingest time (epoch ms) up to which raw events are normalized; 0 before the first cycle. */
  readonly checkpointMs: number;
  /** Raw events ingested after the checkpoint: not normalized yet (the normalizer re-reads a short overlap too). */
  readonly rawEventsAfterCheckpoint: number;
  /** How long ago the normalizer last published its status; null when it never did. */
  readonly statusAgeMs: number | null;
  /** The stored retention rule; null when setup has not created it (the normalizer then applies the defaults). */
  readonly retentionRule: RetentionRule | null;
  /** Why the stored rule cannot be read (an operator's edit broke it); null when it can. */
  readonly retentionRuleError: string | null;
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
  let retentionRule: RetentionRule | null = null;
  let retentionRuleError: string | null = null;
  try {
    retentionRule = exists ? ((await readRetentionRule(client, stateIndex)) ?? null) : null;
  } catch (error) {
    retentionRuleError = (error as Error).message;
  }
  return { status, checkpointMs, rawEventsAfterCheckpoint, statusAgeMs, retentionRule, retentionRuleError };
}

function iso(ms: number | null | undefined): string {
  return ms === null || ms === undefined || ms === 0 ? 'never' : new Date(ms).toISOString();
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function normalizerLines(report: NormalizerReport): string[] {
  const { status } = report;
  const lines: string[] = [];
  if (status === null) {
    lines.push('normalizer: no status document (run opensearch-setup)');
  } else {
    for (const name of NORMALIZER_JOBS) {
      const job = status.jobs[name];
      if (job === undefined) {
        lines.push(`normalization job ${name}: not registered (run opensearch-setup)`);
        continue;
      }
      lines.push(
        `normalization job ${name}: ${job.state}, ${job.documents_written} documents written, ${job.documents_deleted} deleted, ` +
          `last cycle ${job.last_cycle_ms === null ? 'never' : `${job.last_cycle_ms} ms`}, last success ${iso(job.last_success_at_ms)}` +
          (job.last_error === null ? '' : `, last error: ${job.last_error}`),
      );
    }
    lines.push(
      status.holder === ''
        ? 'normalizer: registered by opensearch-setup, no normalizer has run a cycle yet (is `normalize:opensearch` deployed?)'
        : `normalizer: held by ${status.holder}, status published ${iso(status.updated_at_ms)} (${seconds(report.statusAgeMs ?? 0)} ago), ` +
            `lag ${status.lag_ms === null ? 'unknown' : seconds(status.lag_ms)}, ${status.raw_events_processed} raw events processed, ` +
            `${status.raw_events_rejected} rejected, ${status.failed_cycles} failed cycles`,
    );
  }
  if (status?.renormalization !== undefined) lines.push(renormalizationLine(status.renormalization));
  lines.push(`checkpoint: ${iso(report.checkpointMs)}, ${report.rawEventsAfterCheckpoint} raw events ingested after it`);
  lines.push(...retentionLines(report));
  return lines;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** The re-normalization after a rules change, as the normalizer last published it (normalizer-renormalize.ts). */
export function renormalizationLine(r: NonNullable<NormalizerStatus['renormalization']>): string {
  const skipped = r.instances_skipped ?? 0;
  const tail = (skipped > 0 ? `, ${count(skipped)} skipped (see the ingest errors normalizer/<instance id>)` : '') + (r.last_error === null ? '' : `, last error: ${r.last_error}`);
  if (r.state === 'done') {
    const walk = r.finished_at_ms === null || r.instances_done === 0 ? '' : `, last walk finished ${iso(r.finished_at_ms)} over ${count(r.instances_done)} instances`;
    return `re-normalization: done (rules ${r.rules_version ?? r.current_version})${walk}${tail}`;
  }
  if (r.state === 'running') {
    const of = r.instances_estimated === null ? '' : ` of ~${count(r.instances_estimated)}`;
    return `re-normalization: running (rules ${r.rules_version ?? '?'} → ${r.current_version}), ${count(r.instances_done)}${of} instances${tail}`;
  }
  return `re-normalization: unknown (rules ? → ${r.current_version})${tail}`;
}

function retentionLines(report: NormalizerReport): string[] {
  const rule = report.retentionRule;
  const lines = [
    report.retentionRuleError !== null
      ? `retention rule: unreadable (${report.retentionRuleError}); run opensearch-setup to rewrite it`
      : rule === null
        ? 'retention rule: none stored (run opensearch-setup); the normalizer applies the defaults (raw indices 7 days, finished runs kept)'
        : `retention rule: raw indices deleted ${rule.raw_events_retention_days} days after creation once normalized; finished runs ` +
          (rule.instance_retention_days === null ? 'kept' : `deleted ${rule.instance_retention_days} days after they ended`),
  ];
  const run = report.status?.retention;
  lines.push(
    run === undefined
      ? 'retention: no pass yet (the normalizer runs one after its first cycle, then every NORMALIZER_RETENTION_INTERVAL_MS)'
      : `retention: last pass ${iso(run.last_run_at_ms)}, ${run.raw_indices_deleted} raw indices deleted, ${run.raw_indices_waiting} older ones waiting for the normalizer, ` +
          `${run.instances_deleted} finished runs deleted${run.last_error === null ? '' : `, last error: ${run.last_error}`}`,
  );
  return lines;
}

export async function runOpenSearchStatus(args: OpenSearchStatusArgs, env: Readonly<Record<string, string | undefined>>, out: CliOutput): Promise<number> {
  const opened = await openOpenSearch(env, args, out);
  if (!opened.ok) return opened.exitCode;
  const { client, target } = opened;
  try {
    const compared = await applyOpenSearchObjects(client, { prefix: target.prefix, dryRun: true });
    const objects: ObjectStatus[] = [];
    for (const o of compared) {
      const state = STATE_OF[o.action];
      objects.push(o.kind === 'index' && state !== 'missing' ? { kind: o.kind, name: o.name, state, documents: await countDocuments(client, o.name) } : { kind: o.kind, name: o.name, state });
    }
    const normalizer = await readNormalizerReport(client, target.prefix);
    const missing = objects.filter((o) => o.state === 'missing').length;
    const outdated = objects.filter((o) => o.state === 'outdated').length;
    if (args.json) {
      out.out(JSON.stringify({ objects, upToDate: missing + outdated === 0, normalizer }));
    } else {
      // The jobs get their own lines below, with what the normalizer says about them.
      for (const o of objects.filter((x) => x.kind !== 'normalization job')) out.out(`${o.kind} ${o.name}: ${o.state}${o.documents === undefined ? '' : ` (${o.documents} document${o.documents === 1 ? '' : 's'})`}`);
      for (const line of normalizerLines(normalizer)) out.out(line);
      out.out(missing + outdated === 0 ? 'objects: all up to date' : `objects: ${missing} missing, ${outdated} outdated (run opensearch-setup)`);
    }
    return EXIT_OK;
  } catch (error) {
    out.log(`error: ${scrub(reasonOf(error), target.settings.password)}`);
    return EXIT_FAILURE;
  } finally {
    await client.close().catch(() => undefined);
  }
}
