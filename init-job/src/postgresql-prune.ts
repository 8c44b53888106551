// `prune` on PostgreSQL. (Work in progress: the deletes land together with the permanent event store, so that
// deleting raw events can never change a served row.)
import { EXIT_FAILURE, type CliOutput } from './cli-output.js';
import { openDatabase, type ConnectionArgs } from './database-connection.js';
import type { PruneSettings } from './prune-command.js';

export async function runPostgresPrune(
  connection: ConnectionArgs & { readonly waitTimeout: number },
  settings: PruneSettings | null,
  problems: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  out: CliOutput,
): Promise<number> {
  const opened = await openDatabase(env, connection, out, problems);
  if (!opened.ok) return opened.exitCode;
  await opened.client.end().catch(() => undefined);
  out.log(`error: prune --backend postgresql is not available in this build yet (${settings?.dryRun === true ? 'dry run' : 'prune'})`);
  return EXIT_FAILURE;
}
