// `status`: the PostgreSQL module's status (postgresqlStatus: migrations, normalizer definitions, ingestion figures,
// the schema this release needs) as lines, or as one JSON object with --json. A database migrated by a newer release
// is an error (exit 1): this release's init job and server refuse it; so is a migration changed after it was applied.
import { postgresqlStatus } from '@workflow-index/postgresql/admin';
import { BACKEND_OPTION, CONNECTION_ENV_HELP, EXIT_HELP, OPENSEARCH_ENV_HELP, withConnectionOptions, type CommandDefinition } from './cli-options.js';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openDatabase, type ConnectionArgs } from './database-connection.js';
import { migrationLabel } from './migrate-command.js';
import { runOpenSearchStatus } from './opensearch-status-command.js';

export interface StatusArgs extends ConnectionArgs {
  readonly waitTimeout: number;
  readonly json: boolean;
}

export async function runStatus(args: StatusArgs, env: Readonly<Record<string, string | undefined>>, out: CliOutput): Promise<number> {
  const opened = await openDatabase(env, args, out);
  if (!opened.ok) return opened.exitCode;
  const client = opened.client;
  try {
    const { applied, pending, changed, notShipped, normalizerUpToDate, ingest: stats, schema } = await postgresqlStatus(client);
    if (args.json) {
      out.out(
        JSON.stringify({
          applied: applied.map((a) => ({ version: a.version, name: a.name, appliedAt: a.appliedAt.toISOString(), executionMs: a.executionMs })),
          pending: pending.map((m) => ({ version: m.version, name: m.name })),
          changed: changed.map((a) => ({ version: a.version, name: a.name })),
          normalizerUpToDate,
          ingest: stats,
          schema,
        }),
      );
    } else {
      for (const a of applied) {
        const mark = changed.includes(a) ? 'CHANGED' : notShipped.includes(a) ? 'applied (newer release)' : 'applied';
        out.out(`${mark} ${migrationLabel(a)} at ${a.appliedAt.toISOString()} (${a.executionMs} ms)`);
      }
      for (const m of pending) out.out(`pending ${migrationLabel(m)}`);
      out.out(`${applied.length} applied, ${pending.length} pending`);
      out.out(`normalizer definitions: ${normalizerUpToDate ? 'up to date' : 'outdated (run migrate: it rebuilds every normalized row)'}`);
      if (stats) {
        out.out(
          `ingest: ${stats.workflowRawEvents + stats.taskRawEvents} raw events (${stats.workflowRawEvents} workflow, ${stats.taskRawEvents} task), ` +
            `${stats.ingestErrors} ingest errors, ${stats.instances} instances (${stats.placeholderInstances} placeholders), ` +
            `${stats.taskExecutions} task executions, newest event ${stats.newestEventTime ?? 'none'}`,
        );
      }
      out.out(`schema: ${schema.status === 'current' ? `version ${schema.needed} of release ${schema.release}, as this release needs` : schema.reason}`);
    }
    if (schema.status === 'newer') {
      out.log(`error: ${schema.reason}: this release's init job and server refuse this database`);
      return EXIT_FAILURE;
    }
    if (changed.length > 0) {
      for (const a of changed) out.log(`error: migration ${migrationLabel(a)} was changed after it was applied; add a new migration instead`);
      return EXIT_FAILURE;
    }
    return EXIT_OK;
  } catch (error) {
    out.log(`error: ${reasonOf(error)}`);
    return EXIT_FAILURE;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export const statusCommand: CommandDefinition = (parser, context) =>
  parser.command(
    'status',
    'List applied and pending migrations (and ingestion figures once migrated); --backend opensearch: the OpenSearch objects, the normalization jobs, checkpoint and lag',
    (y) =>
      withConnectionOptions(y)
        .option('backend', BACKEND_OPTION)
        .option('json', { type: 'boolean', default: false, describe: 'Print one JSON object instead of lines' })
        .epilogue(`${CONNECTION_ENV_HELP}\n\n${OPENSEARCH_ENV_HELP}\n\n${EXIT_HELP}`),
    async (args) => {
      if (args.backend === 'opensearch') {
        context.finish(await runOpenSearchStatus({ waitTimeout: args.waitTimeout, json: args.json === true }, context.env, context.out));
        return;
      }
      context.finish(await runStatus({ ...args, json: args.json === true }, context.env, context.out));
    },
  );
