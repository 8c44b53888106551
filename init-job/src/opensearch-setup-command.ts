// `opensearch-setup` (and `plan --backend opensearch` = `opensearch-setup --dry-run`): wait for the cluster, then
// create or update every object of the OpenSearch backend, one line per object on stdout.
import { retentionFromEnv } from '@workflow-index/opensearch';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, reasonOf, type CliOutput } from './cli-output.js';
import { openOpenSearch, resolveOpenSearchTarget, scrub } from './opensearch-connection.js';
import { applyOpenSearchObjects, type ObjectAction, type ObjectResult } from './opensearch-objects.js';

export interface OpenSearchSetupArgs {
  readonly dryRun: boolean;
  readonly waitTimeout: number;
}

const DRY_RUN_WORDING: Record<ObjectAction, string> = { created: 'would be created', updated: 'would be updated', unchanged: 'unchanged' };

export function objectLine(result: ObjectResult, dryRun: boolean): string {
  return `${result.kind} ${result.name}: ${dryRun ? DRY_RUN_WORDING[result.action] : result.action}`;
}

function count(results: readonly ObjectResult[], action: ObjectAction): number {
  return results.filter((r) => r.action === action).length;
}

export async function runOpenSearchSetup(args: OpenSearchSetupArgs, env: Readonly<Record<string, string | undefined>>, out: CliOutput): Promise<number> {
  const retention = retentionFromEnv(env);
  if (retention.problems.length > 0) {
    // every problem at once: the connection's too
    out.log('configuration problems:');
    for (const p of [...resolveOpenSearchTarget(env, args.waitTimeout).problems, ...retention.problems]) out.log(`  - ${p}`);
    return EXIT_USAGE;
  }
  const opened = await openOpenSearch(env, args, out);
  if (!opened.ok) return opened.exitCode;
  const { client, target } = opened;
  try {
    if (args.dryRun) out.log('dry run: comparing every object with the cluster; nothing is changed');
    const results = await applyOpenSearchObjects(client, {
      prefix: target.prefix,
      dryRun: args.dryRun,
      retention: { ...(retention.raw === undefined ? {} : { raw: retention.raw }), ...(retention.instance === undefined ? {} : { instance: retention.instance }) },
      onResult: (result) => out.out(objectLine(result, args.dryRun)),
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
