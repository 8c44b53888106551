// `status --backend opensearch`: the OpenSearch module's status (openSearchStatus: the objects, their documents, the
// normalizer, the retention rule) as lines, or as one JSON object with --json. Missing objects are an error (exit 1,
// as a database without the schema this release needs is for `status` on PostgreSQL): the server cannot serve from
// them; outdated ones are not (like pending migrations, opensearch-setup brings them up to date).
import { NORMALIZER_JOBS, openSearchStatus, type NormalizerReport, type NormalizerStatus } from '@workflow-index/opensearch/admin';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openOpenSearch, scrub } from './opensearch-connection.js';

export interface OpenSearchStatusArgs {
  readonly waitTimeout: number;
  readonly json: boolean;
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
  if (report.replicas.length > 0) {
    lines.push(`normalizer replicas: ${report.replicas.length} live — ${report.replicas.map((r) => `${r.holder} (${r.slots.length} of 32 slots${r.state === null ? '' : `, ${r.state}`})`).join(', ')}`);
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
    const status = await openSearchStatus(client, target.prefix);
    if (args.json) {
      out.out(JSON.stringify(status));
    } else {
      // The jobs get their own lines below, with what the normalizer says about them.
      for (const o of status.objects.filter((x) => x.kind !== 'normalization job')) out.out(`${o.kind} ${o.name}: ${o.state}${o.documents === undefined ? '' : ` (${o.documents} document${o.documents === 1 ? '' : 's'})`}`);
      for (const line of normalizerLines(status.normalizer)) out.out(line);
      const absent = status.objects.filter((o) => o.state === 'missing').length;
      const outdated = status.objects.filter((o) => o.state === 'outdated').length;
      out.out(status.upToDate ? 'objects: all up to date' : `objects: ${absent} missing, ${outdated} outdated (run opensearch-setup)`);
    }
    const missing = status.objects.filter((o) => o.state === 'missing').length;
    if (missing > 0) {
      out.log(`error: ${missing} of ${status.objects.length} OpenSearch objects missing: run opensearch-setup`);
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  } catch (error) {
    out.log(`error: ${scrub(reasonOf(error), target.settings.password)}`);
    return EXIT_FAILURE;
  } finally {
    await client.close().catch(() => undefined);
  }
}
