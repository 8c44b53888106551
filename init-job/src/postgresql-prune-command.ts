// `prune` on PostgreSQL: the PostgreSQL module's retention (createRawPartitions for the next days, pruneRawEvents,
// pruneFinishedInstances, previewPrune for --dry-run) with the settings prune-command.ts checked; prints what was (or would be) deleted, per workflow.
import type pg from 'pg';
import { createRawPartitions, hasPruneFunctions, previewPrune, pruneFinishedInstances, pruneRawEvents, workflowLabel, type WorkflowCounts } from '@workflow-index/postgresql/admin';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openDatabase, type ConnectionArgs } from './database-connection.js';
import type { PruneSettings } from './prune-command.js';

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function sum(all: readonly WorkflowCounts[], f: (c: WorkflowCounts) => number): number {
  return all.reduce((n, c) => n + f(c), 0);
}

/** --dry-run: what a prune with these horizons would delete now, in total and per workflow. */
async function printPreview(client: pg.ClientBase, settings: PruneSettings, out: CliOutput): Promise<void> {
  const preview = await previewPrune(client, settings.rawHorizon, settings.instanceHorizon);
  const withRuns = settings.instanceHorizon !== null;
  const wf = sum(preview, (c) => c.workflowRawEvents);
  const task = sum(preview, (c) => c.taskRawEvents);
  out.out(`would delete ${plural(wf + task, 'raw event')} (${wf} workflow, ${task} task)`);
  if (withRuns) {
    out.out(`would delete ${plural(sum(preview, (c) => c.instances), 'finished run')} with ${plural(sum(preview, (c) => c.taskExecutions), 'task execution')} and ${plural(sum(preview, (c) => c.storedEvents), 'stored event')}`);
  }
  for (const c of preview) {
    const parts = [`${plural(c.workflowRawEvents + c.taskRawEvents, 'raw event')} (${c.workflowRawEvents} workflow, ${c.taskRawEvents} task)`];
    if (withRuns) parts.push(`${plural(c.instances, 'run')}, ${plural(c.taskExecutions, 'task execution')}`);
    out.out(`  ${workflowLabel(c)}: ${parts.join(', ')}`);
  }
}

/** Deletes the raw events past the horizon, then (instance retention on) the finished runs; a line after each. */
async function prune(client: pg.ClientBase, settings: PruneSettings, out: CliOutput): Promise<void> {
  const created = await createRawPartitions(client);
  if (created.length > 0) {
    const moved = created.reduce((n, c) => n + c.movedRows, 0);
    out.log(`created ${plural(created.length, 'raw day partition')} (${created.map((c) => c.partition).join(', ')})${moved > 0 ? `, ${plural(moved, 'row')} moved into them` : ''}`);
  }
  const raw = await pruneRawEvents(client, settings.rawHorizon, settings.batchSize);
  const rawTotal = raw.deleted.workflow_events_raw + raw.deleted.task_events_raw;
  out.out(
    `deleted ${plural(rawTotal, 'raw event')} (${raw.deleted.workflow_events_raw} workflow, ${raw.deleted.task_events_raw} task) ` +
      `and ${plural(raw.ingestErrors, 'ingest error')} recorded for them, in ${plural(raw.batches, 'batch', 'batches')}` +
      (raw.partitions > 0 ? ` and ${plural(raw.partitions, 'dropped day partition')}` : ''),
  );
  if (settings.instanceHorizon === null) return;
  const runs = await pruneFinishedInstances(client, settings.instanceHorizon, settings.batchSize);
  out.out(
    `deleted ${plural(runs.instances, 'finished run')} with ${plural(runs.taskExecutions, 'task execution')} and ${plural(runs.storedEvents, 'stored event')}, ` +
      `in ${plural(runs.batches, 'batch', 'batches')}`,
  );
  for (const c of runs.perWorkflow) out.out(`  ${workflowLabel(c)}: ${plural(c.instances, 'run')}, ${plural(c.taskExecutions, 'task execution')}`);
}

export async function runPostgresPrune(
  connection: ConnectionArgs & { readonly waitTimeout: number },
  settings: PruneSettings | null,
  problems: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  out: CliOutput,
): Promise<number> {
  const opened = await openDatabase(env, connection, out, problems);
  if (!opened.ok) return opened.exitCode;
  const client = opened.client;
  if (!settings) return EXIT_FAILURE; // unreachable: openDatabase reports the problems with exit code 2
  try {
    if (!(await hasPruneFunctions(client))) {
      out.log('error: this database has no retention functions yet: run `init-job migrate` of this release first');
      return EXIT_FAILURE;
    }
    const rawHorizon = settings.rawHorizon.toISOString();
    const instanceHorizon = settings.instanceHorizon?.toISOString() ?? null;
    out.log(
      `prune${settings.dryRun ? ' (dry run: nothing is deleted)' : ''}: raw events recorded before ${rawHorizon} (${plural(settings.rawRetentionDays, 'day')}); ` +
        (instanceHorizon === null ? 'finished runs are kept (instance retention off)' : `finished runs that ended before ${instanceHorizon} (${plural(settings.instanceRetentionDays ?? 0, 'day')})`),
    );
    if (settings.dryRun) await printPreview(client, settings, out);
    else await prune(client, settings, out);
    return EXIT_OK;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const hint = code === '55P03' ? ' (a lock was held too long, e.g. by a rebuild; what was deleted stays deleted, run prune again later)' : '';
    out.log(`error: ${reasonOf(error)}${hint}`);
    return EXIT_FAILURE;
  } finally {
    await client.end().catch(() => undefined);
  }
}
