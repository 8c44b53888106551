// `prune --backend opensearch [--dry-run]`: one retention pass now (server/opensearch retention/retention-run.ts), the
// same one the normalizer runs periodically. The horizons are the stored retention rule's, except where a flag or the
// environment sets one (RAW_EVENTS_RETENTION_DAYS, INSTANCE_RETENTION_DAYS); raw indices are judged by creation time
// and never deleted before the normalizer processed them; finished runs go with their executions and stored events.
// Prints one line per raw index and per workflow, then a summary; --dry-run deletes nothing.
import type { Client } from '@opensearch-project/opensearch';
import { normalizedIndexNames } from '@workflow-index/opensearch';
import { DEFAULT_RETENTION_RULE, INSTANCE_RETENTION_ENV, RAW_RETENTION_ENV, type RetentionRule, readRetentionRule } from '@workflow-index/opensearch';
import { type RetentionRunResult, runRetention } from '@workflow-index/opensearch';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openOpenSearch, scrub } from './opensearch-connection.js';
import type { PruneFlags, PruneSettings } from './prune-command.js';

const explicit = (env: Readonly<Record<string, string | undefined>>, name: string): boolean => (env[name]?.trim() ?? '') !== '';

/** The stored rule with the horizons a flag or the environment sets explicitly. */
export async function effectiveRule(client: Client, stateIndex: string, flags: Pick<PruneFlags, 'rawRetentionDays' | 'instanceRetentionDays'>, settings: PruneSettings, env: Readonly<Record<string, string | undefined>>): Promise<RetentionRule> {
  const stored = (await readRetentionRule(client, stateIndex)) ?? DEFAULT_RETENTION_RULE;
  return {
    raw_events_retention_days: flags.rawRetentionDays !== undefined || explicit(env, RAW_RETENTION_ENV) ? settings.rawRetentionDays : stored.raw_events_retention_days,
    instance_retention_days: flags.instanceRetentionDays !== undefined || explicit(env, INSTANCE_RETENTION_ENV) ? settings.instanceRetentionDays : stored.instance_retention_days,
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
    const names = normalizedIndexNames(target.prefix);
    const rule = await effectiveRule(client, names.normalizerState, flags, settings, env);
    if (settings.dryRun) out.log('dry run: nothing is deleted');
    const result = await runRetention(client, { prefix: target.prefix, names, rule, dryRun: settings.dryRun, batchSize: settings.batchSize });
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
