// `migrate` (and `plan` = `migrate --dry-run`): wait for the database, apply pending migrations under the
// migrator's advisory lock, then create or update the optional login roles.
import { migrate, MigrationError, type MigrationStepResult, type NormalizerResult } from '@workflow-index/postgresql/admin';
import { applyLoginRoles, loginRoleStatements, resolveLoginRoles, type LoginRoleFlags } from '@workflow-index/postgresql/admin';
import { CONNECTION_ENV_HELP, EXIT_HELP, LOGIN_ROLE_ENV_HELP, withConnectionOptions, withLoginRoleOptions, type CommandDefinition } from './cli-options.js';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openDatabase, type ConnectionArgs } from './database-connection.js';

export interface MigrateArgs extends ConnectionArgs, LoginRoleFlags {
  readonly dryRun: boolean;
  readonly waitTimeout: number;
}

export function migrationLabel(step: { readonly version: number; readonly name: string }): string {
  return `${String(step.version).padStart(4, '0')}_${step.name}`;
}

function stepLine(step: MigrationStepResult): string {
  switch (step.status) {
    case 'applied':
      return `applied ${migrationLabel(step)} (${step.durationMs} ms)`;
    case 'skipped':
      return `skipped ${migrationLabel(step)} (already applied)`;
    case 'pending':
      return `pending ${migrationLabel(step)}`;
  }
}

function normalizerLine(result: NormalizerResult): string {
  switch (result.status) {
    case 'applied':
      return `applied normalizer definitions (${result.files} files, ${result.rebuiltEvents} raw events re-normalized, ${result.durationMs} ms)`;
    case 'skipped':
      return 'skipped normalizer definitions (unchanged)';
    case 'pending':
      return 'pending normalizer definitions (every normalized row is rebuilt from the raw events)';
  }
}

export async function runMigrate(args: MigrateArgs, env: Readonly<Record<string, string | undefined>>, out: CliOutput): Promise<number> {
  const roles = resolveLoginRoles(env, args);
  const opened = await openDatabase(env, args, out, roles.problems);
  if (!opened.ok) return opened.exitCode;
  const client = opened.client;
  try {
    if (args.dryRun) {
      out.log('dry run: printing the SQL that would run; nothing is executed');
      const seen: { normalizer: NormalizerResult } = { normalizer: { status: 'skipped' } };
      const steps = await migrate(client, { dryRun: true, onNormalizer: (r) => (seen.normalizer = r) });
      const { normalizer } = seen;
      for (const step of steps) {
        if (step.status === 'pending') {
          out.out(`-- ${stepLine(step)}`);
          out.out(step.sql.trimEnd());
          out.out('');
        } else {
          out.out(`-- ${stepLine(step)}`);
        }
      }
      out.out(`-- ${normalizerLine(normalizer)}`);
      if (normalizer.status === 'pending') {
        out.out(normalizer.sql.trimEnd());
        out.out('');
      }
      const pending = steps.filter((s) => s.status === 'pending').length;
      if (roles.roles.length > 0) {
        out.out('-- login roles (created when missing, otherwise updated; passwords shown as ***):');
        for (const role of roles.roles) for (const sql of loginRoleStatements(role, false, { redact: true })) out.out(`--   ${sql};`);
      }
      out.log(`dry run: ${pending} pending migration${pending === 1 ? '' : 's'}${roles.roles.length > 0 ? `, ${roles.roles.length} login role(s)` : ''}; nothing was changed`);
      return EXIT_OK;
    }
    const steps = await migrate(client, { onStep: (step) => out.out(stepLine(step)), onNormalizer: (r) => out.out(normalizerLine(r)) });
    const applied = steps.filter((s) => s.status === 'applied').length;
    const latest = steps.at(-1);
    out.log(`schema is at ${latest ? migrationLabel(latest) : 'no migration'} (${applied} applied now, ${steps.length - applied} already applied)`);
    const results = await applyLoginRoles(client, roles.roles);
    for (const r of results) {
      out.out(`login role ${r.username} ${r.action}: member of ${r.group}${r.kind === 'forwarder' ? ', search_path workflow_raw' : ''}`);
    }
    return EXIT_OK;
  } catch (error) {
    out.log(`error: ${error instanceof MigrationError ? error.message : reasonOf(error)}`);
    return EXIT_FAILURE;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The arguments of runMigrate from the flags of migrate or plan. */
export function migrateArgs(args: ConnectionArgs & LoginRoleFlags & { readonly waitTimeout: number }, dryRun: boolean): MigrateArgs {
  return {
    databaseUrl: args.databaseUrl,
    databaseUsername: args.databaseUsername,
    databasePassword: args.databasePassword,
    readerUsername: args.readerUsername,
    readerPassword: args.readerPassword,
    forwarderUsername: args.forwarderUsername,
    forwarderPassword: args.forwarderPassword,
    prunerUsername: args.prunerUsername,
    prunerPassword: args.prunerPassword,
    waitTimeout: args.waitTimeout,
    dryRun,
  };
}

export const migrateCommand: CommandDefinition = (parser, context) =>
  parser.command(
    'migrate',
    'Wait for the database, apply pending migrations, then create or update the login roles',
    (y) =>
      withLoginRoleOptions(withConnectionOptions(y))
        .option('dry-run', { type: 'boolean', default: false, describe: 'Print the SQL that would run, change nothing' })
        .epilogue(`${CONNECTION_ENV_HELP}\n\n${LOGIN_ROLE_ENV_HELP}\n\n${EXIT_HELP}`),
    async (args) => context.finish(await runMigrate(migrateArgs(args, args.dryRun === true), context.env, context.out)),
  );
