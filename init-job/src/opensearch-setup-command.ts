// `opensearch-setup` (and `plan --backend opensearch` = `opensearch-setup --dry-run`): wait for the cluster, then
// create or update every object of the OpenSearch backend, one line per object on stdout.
import { applyOpenSearchSetup, indexLayoutFromEnv, planOpenSearchSetup, retentionFromEnv, type SetupAction, type SetupStepResult } from '@workflow-index/opensearch/admin';
import { DEFAULT_WAIT_TIMEOUT_SECONDS, EXIT_HELP, OPENSEARCH_ENV_HELP, type CommandDefinition } from './cli-options.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, reasonOf, type CliOutput } from './cli-output.js';
import { openOpenSearch, resolveOpenSearchTarget, scrub } from './opensearch-connection.js';

export interface OpenSearchSetupArgs {
  readonly dryRun: boolean;
  readonly waitTimeout: number;
}

const DRY_RUN_WORDING: Record<SetupAction, string> = { created: 'would be created', updated: 'would be updated', unchanged: 'unchanged' };

export function objectLine(result: SetupStepResult, dryRun: boolean): string {
  const line = `${result.kind} ${result.name}: ${dryRun ? DRY_RUN_WORDING[result.action] : result.action}`;
  return result.note === undefined ? line : `${line} (note: ${result.note})`;
}

function count(results: readonly SetupStepResult[], action: SetupAction): number {
  return results.filter((r) => r.action === action).length;
}

export async function runOpenSearchSetup(args: OpenSearchSetupArgs, env: Readonly<Record<string, string | undefined>>, out: CliOutput): Promise<number> {
  const retention = retentionFromEnv(env);
  const { layout, problems: layoutProblems } = indexLayoutFromEnv(env);
  if (retention.problems.length > 0 || layoutProblems.length > 0) {
    // every problem at once: the connection's too
    out.log('configuration problems:');
    for (const p of [...resolveOpenSearchTarget(env, args.waitTimeout).problems, ...retention.problems, ...layoutProblems]) out.log(`  - ${p}`);
    return EXIT_USAGE;
  }
  const opened = await openOpenSearch(env, args, out);
  if (!opened.ok) return opened.exitCode;
  const { client, target } = opened;
  try {
    if (args.dryRun) out.log('dry run: comparing every object with the cluster; nothing is changed');
    const setup = args.dryRun ? planOpenSearchSetup : applyOpenSearchSetup;
    const results = await setup(client, {
      prefix: target.prefix,
      layout,
      retention: { ...(retention.raw === undefined ? {} : { raw: retention.raw }), ...(retention.instance === undefined ? {} : { instance: retention.instance }) },
      onStep: (step) => out.out(objectLine(step, args.dryRun)),
    });
    const summary = `${count(results, 'created')} ${args.dryRun ? 'to create' : 'created'}, ${count(results, 'updated')} ${args.dryRun ? 'to update' : 'updated'}, ${count(results, 'unchanged')} unchanged`;
    out.log(args.dryRun ? `dry run: ${summary}; nothing was changed` : `opensearch setup done: ${summary}`);
    return EXIT_OK;
  } catch (error) {
    out.log(`error: ${scrub(reasonOf(error), target.settings.password)}`);
    return EXIT_FAILURE;
  } finally {
    await client.close().catch(() => undefined);
  }
}

export const openSearchSetupCommand: CommandDefinition = (parser, context) =>
  parser.command(
    'opensearch-setup',
    'Wait for OpenSearch, then create or update the raw index templates and pipeline, the normalized indices, the normalizer state index and the normalization jobs; one line per object',
    (y) =>
      y
        .option('dry-run', { type: 'boolean', default: false, describe: 'Say what would be created or updated, change nothing (same as plan --backend opensearch)' })
        .option('wait-timeout', {
          type: 'number',
          default: DEFAULT_WAIT_TIMEOUT_SECONDS,
          describe: 'Seconds to wait for the cluster to answer (retries with exponential backoff; refused credentials fail at once)',
        })
        .epilogue(`Lines: <kind> <name>: created | updated | unchanged (dry run: would be created | would be updated | unchanged).\n\n${OPENSEARCH_ENV_HELP}\n\n${EXIT_HELP}`),
    async (args) => context.finish(await runOpenSearchSetup({ dryRun: args.dryRun === true, waitTimeout: args.waitTimeout }, context.env, context.out)),
  );
