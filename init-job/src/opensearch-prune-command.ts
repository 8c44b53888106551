// `prune --backend opensearch [--dry-run]`: one retention pass now (the OpenSearch module's pruneOpenSearch, the pass
// the normalizer runs periodically). The horizons are the stored retention rule's, except where a flag or the
// environment sets one (RAW_EVENTS_RETENTION_DAYS, INSTANCE_RETENTION_DAYS). Prints one line per raw index and per
// workflow, then a summary; --dry-run deletes nothing.
import { INSTANCE_RETENTION_ENV, pruneOpenSearch, RAW_RETENTION_ENV, type RetentionOverrides, type RetentionRunResult } from '@workflow-index/opensearch/admin';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openOpenSearch, scrub } from './opensearch-connection.js';
import type { PruneFlags, PruneSettings } from './prune-command.js';

const explicit = (env: Readonly<Record<string, string | undefined>>, name: string): boolean => (env[name]?.trim() ?? '') !== '';

/** The horizons a flag or the environment sets explicitly; the others stay the stored rule's. */
export function retentionOverrides(flags: Pick<PruneFlags, 'rawRetentionDays' | 'instanceRetentionDays'>, settings: PruneSettings, env: Readonly<Record<string, string | undefined>>): RetentionOverrides {
  return {
    ...(flags.rawRetentionDays !== undefined || explicit(env, RAW_RETENTION_ENV) ? { raw: settings.rawRetentionDays } : {}),
    ...(flags.instanceRetentionDays !== undefined || explicit(env, INSTANCE_RETENTION_ENV) ? { instance: settings.instanceRetentionDays } : {}),
  };
}

export function pruneLines(result: RetentionRunResult, dryRun: boolean): string[] {
  const lines: string[] = [];
  for (const d of result.raw.decisions) {
    const verdict = d.action === 'delete' ? (dryRun ? 'would be deleted' : 'deleted') : 'kept';
    lines.push(`raw index ${d.index}: ${verdict}, ${d.documents} event${d.documents === 1 ? '' : 's'} (${d.reason})`);
  }
  const gone = dryRun ? result.raw.decisions.filter((d) => d.action === 'delete') : result.raw.deleted;
  const events = gone.reduce((s, d) => s + d.documents, 0);
  lines.push(`raw events: ${gone.length} indices with ${events} events ${dryRun ? 'would be deleted' : 'deleted'} (older than ${result.rule.raw_events_retention_days} days by creation time, every event normalized)`);
  const runs = result.instances;
  if (runs === null) {
    lines.push('finished runs: kept (instance retention is off)');
  } else {
    for (const w of runs.byWorkflow) {
      lines.push(`workflow ${w.namespace ?? '(no namespace)'}/${w.name ?? '(no name)'}: ${w.instances} finished runs, ${w.executions} task executions, ${w.storedEvents} stored events`);
    }
    lines.push(
      `finished runs that ended before ${new Date(runs.horizonMs).toISOString()}: ${runs.instances} runs, ${runs.executions} task executions, ${runs.storedEvents} stored events ` +
        `${dryRun ? 'would be deleted' : 'deleted'} (RUNNING and SUSPENDED runs are never deleted)`,
    );
  }
  return lines;
}

export async function runOpenSearchPrune(flags: PruneFlags, settings: PruneSettings, env: Readonly<Record<string, string | undefined>>, out: CliOutput): Promise<number> {
  const opened = await openOpenSearch(env, { waitTimeout: settings.waitTimeout }, out);
  if (!opened.ok) return opened.exitCode;
  const { client, target } = opened;
  try {
    const result = await pruneOpenSearch(client, {
      prefix: target.prefix,
      overrides: retentionOverrides(flags, settings, env),
      dryRun: settings.dryRun,
      batchSize: settings.batchSize,
      onRule: () => {
        if (settings.dryRun) out.log('dry run: nothing is deleted');
      },
    });
    for (const line of pruneLines(result, settings.dryRun)) out.out(line);
    out.log(settings.dryRun ? 'dry run done; nothing was deleted' : 'prune done');
    return EXIT_OK;
  } catch (error) {
    out.log(`error: ${scrub(reasonOf(error), target.settings.password)}`);
    return EXIT_FAILURE;
  } finally {
    await client.close().catch(() => undefined);
  }
}
