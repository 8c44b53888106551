// `plan`: what `migrate` would do (the SQL of the pending migrations, same as `migrate --dry-run`), or with
// `--backend opensearch` what `opensearch-setup` would do (same as `opensearch-setup --dry-run`). Changes nothing.
import { BACKEND_OPTION, CONNECTION_ENV_HELP, EXIT_HELP, LOGIN_ROLE_ENV_HELP, OPENSEARCH_ENV_HELP, withConnectionOptions, withLoginRoleOptions, type CommandDefinition } from './cli-options.js';
import { migrateArgs, runMigrate } from './migrate-command.js';
import { runOpenSearchSetup } from './opensearch-setup-command.js';

export const planCommand: CommandDefinition = (parser, context) =>
  parser.command(
    'plan',
    'Print the SQL of the pending migrations without running it (same as migrate --dry-run); --backend opensearch: what opensearch-setup would do',
    (y) =>
      withLoginRoleOptions(withConnectionOptions(y))
        .option('backend', BACKEND_OPTION)
        .epilogue(`${CONNECTION_ENV_HELP}\n\n${LOGIN_ROLE_ENV_HELP}\n\n${OPENSEARCH_ENV_HELP}\n\n${EXIT_HELP}`),
    async (args) => {
      if (args.backend === 'opensearch') {
        context.finish(await runOpenSearchSetup({ dryRun: true, waitTimeout: args.waitTimeout }, context.env, context.out));
        return;
      }
      context.finish(await runMigrate(migrateArgs(args, true), context.env, context.out));
    },
  );
