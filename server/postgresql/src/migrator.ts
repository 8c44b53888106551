// Versioned, forward-only migrations: files `NNNN_name.sql` applied in order, recorded with a checksum in
// workflow_index.schema_migrations, under an advisory lock so two init jobs cannot race. A changed,
// already-applied file is an error that names it.
//
// The normalizer (functions and triggers, one rule per file in server/postgresql/normalizer/) is not a migration:
// its definitions are idempotent, recorded in workflow_index.normalizer_definitions with their fingerprint
// (normalizer-fingerprint.ts: comments and whitespace do not count) and the rules version of the folder
// (normalizer/RULES_VERSION), and applied after the migrations in the same transaction. Definitions whose fingerprint
// changed are re-applied; every normalized row is rebuilt from the event store and the raw rows only when the rules
// version differs from the recorded one (or either has none). So a comment costs nothing, a faster function with
// the same results costs no rebuild, a release that changes a rule never serves rows the old rule computed, and a
// concurrent Fluent Bit flush sees either the old schema or the new one, never a mix. That every rule change bumps
// the version is checked by a test (server/postgresql/test/normalizer-rules-version.test.ts).
//
// Downgrades are refused before anything changes (schema-version.ts has the rule): a database with migrations
// this release does not ship, with normalizer definitions a newer release applied, or with rows a newer rules
// version computed, stays as it is. The release
// that applied the definitions is recorded with them, and the reader group may read both history tables, so the
// server and its wait-for-schema init container can tell which schema they face.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientBase } from 'pg';
import { definitionsFingerprint } from './normalizer-fingerprint.js';
import { compareSchema, NORMALIZER_HISTORY_TABLE, readSchemaState, SCHEMA_HISTORY_TABLE } from './schema-version.js';
import type { AppliedNormalizer, RequiredSchema } from './schema-version.js';

/** The migration files shipped with this module (server/postgresql/migrations). */
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');
/** The normalizer definitions shipped with this module (server/postgresql/normalizer). */
export const NORMALIZER_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'normalizer');

const LOCK_KEY = 7_461_905_211; // arbitrary, constant: "workflow-index migrate"
const HISTORY_TABLE = SCHEMA_HISTORY_TABLE;
const NORMALIZER_TABLE = NORMALIZER_HISTORY_TABLE;

/** The version of this release (the package version of @workflow-index/postgresql; package.json sits beside src/ and dist/). */
export const THIS_RELEASE: string = (JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8')) as { version: string }).version;

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly file: string;
  readonly sql: string;
  readonly checksum: string;
}

export interface AppliedMigration {
  readonly version: number;
  readonly name: string;
  readonly checksum: string;
  readonly appliedAt: Date;
  readonly executionMs: number;
}

export type MigrationStepResult =
  | { readonly version: number; readonly name: string; readonly status: 'applied'; readonly durationMs: number }
  | { readonly version: number; readonly name: string; readonly status: 'skipped' }
  | { readonly version: number; readonly name: string; readonly status: 'pending'; readonly sql: string }; // dry run

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => {
      const match = /^(\d+)_([\w-]+)\.sql$/.exec(file);
      if (!match) throw new MigrationError(`migration file ${file} does not match NNNN_name.sql`);
      const sql = readFileSync(join(dir, file), 'utf8');
      return { version: Number(match[1]), name: match[2] ?? file, file, sql, checksum: sha256(sql) };
    })
    .sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]?.version === migrations[i - 1]?.version) {
      throw new MigrationError(`two migration files share version ${migrations[i]?.version}`);
    }
  }
  return migrations;
}

export interface NormalizerDefinitions {
  readonly files: readonly { readonly file: string; readonly sql: string }[];
  /** The definitions' fingerprint (normalizer-fingerprint.ts), recorded in the database. */
  readonly checksum: string;
  /** The rules version of the folder (its RULES_VERSION file); absent for definitions that name none. */
  readonly rulesVersion?: number;
}

/** The file beside the definitions that holds their rules version. */
export const RULES_VERSION_FILE = 'RULES_VERSION';

/**
 * The normalizer definition files (`NNN-name.sql`) in order, with their fingerprint and the folder's rules version
 * (none when the folder has no RULES_VERSION file, as a copy of a release from before versions).
 */
export function loadNormalizer(dir: string = NORMALIZER_DIR): NormalizerDefinitions {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => {
      if (!/^\d{3}-[\w-]+\.sql$/.test(file)) throw new MigrationError(`normalizer file ${file} does not match NNN-name.sql`);
      return { file, sql: readFileSync(join(dir, file), 'utf8') };
    });
  const rulesVersion = readRulesVersion(dir);
  return { files, checksum: definitionsFingerprint(files), ...(rulesVersion === null ? {} : { rulesVersion }) };
}

/** The rules version in `dir`'s RULES_VERSION file (`--` comment lines and one positive integer), or null without one. */
export function readRulesVersion(dir: string = NORMALIZER_DIR): number | null {
  const path = join(dir, RULES_VERSION_FILE);
  if (!existsSync(path)) return null;
  const lines = readFileSync(path, 'utf8').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('--'));
  const version = lines.length === 1 && /^[1-9]\d{0,8}$/.test(lines[0]!) ? Number(lines[0]) : null;
  if (version === null) throw new MigrationError(`${path}: expected one line with the rules version (a positive integer) besides -- comments`);
  return version;
}

export type NormalizerResult =
  /** Definitions re-applied; `rebuilt`: every normalized row was rebuilt (the rules version changed). */
  | { readonly status: 'applied'; readonly files: number; readonly rebuilt: boolean; readonly rebuiltEvents: number; readonly durationMs: number }
  | { readonly status: 'skipped' }
  | { readonly status: 'pending'; readonly sql: string; readonly rebuild: boolean }; // dry run

/** What this release needs of a database: its migrations and its normalizer definitions. */
export function requiredSchema(
  migrations: readonly Migration[] = loadMigrations(),
  normalizer: NormalizerDefinitions = loadNormalizer(),
  release: string = THIS_RELEASE,
): RequiredSchema {
  return { versions: migrations.map((m) => m.version), normalizerChecksum: normalizer.checksum, normalizerRulesVersion: normalizer.rulesVersion ?? null, release };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function ensureHistory(client: ClientBase): Promise<void> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS workflow_index`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${HISTORY_TABLE} (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    execution_ms INTEGER NOT NULL)`);
  await client.query(`CREATE TABLE IF NOT EXISTS ${NORMALIZER_TABLE} (
    singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
    checksum TEXT NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    rebuilt_events BIGINT NOT NULL,
    execution_ms INTEGER NOT NULL)`);
  // Added since the table was created; older rows (and older migrators) leave them NULL: an older release, and rows
  // computed by rules of no recorded version.
  const columns = await client.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = 'workflow_index' AND table_name = 'normalizer_definitions'`,
  );
  const have = new Set(columns.rows.map((r) => r.column_name));
  if (!have.has('release')) await client.query(`ALTER TABLE ${NORMALIZER_TABLE} ADD COLUMN release TEXT`);
  if (!have.has('rules_version')) await client.query(`ALTER TABLE ${NORMALIZER_TABLE} ADD COLUMN rules_version INTEGER`);
}

/** The reader group may read the history, so servers can check the schema version before they serve. */
async function grantHistoryToReaders(client: ClientBase): Promise<void> {
  const res = await client.query<{ missing: boolean | null }>(
    `SELECT CASE WHEN to_regrole('workflow_index_reader') IS NULL THEN NULL
       ELSE NOT (has_table_privilege('workflow_index_reader', '${HISTORY_TABLE}', 'SELECT')
             AND has_table_privilege('workflow_index_reader', '${NORMALIZER_TABLE}', 'SELECT')) END AS missing`,
  );
  if (res.rows[0]?.missing === true) await client.query(`GRANT SELECT ON ${HISTORY_TABLE}, ${NORMALIZER_TABLE} TO workflow_index_reader`);
}

/**
 * Today's and the next days' partitions of the raw tables (normalizer/104-raw-partitions.sql), so a fresh install
 * has them before Fluent Bit's first flush; `init-job prune` keeps creating them daily. Nothing where the
 * definitions do not provide it (a bare set, as in tests of older releases) or nothing is missing.
 */
async function createRawPartitions(client: ClientBase): Promise<void> {
  const res = await client.query<{ f: string | null }>(`SELECT to_regprocedure('workflow_index.create_raw_partitions(integer)')::text AS f`);
  if (res.rows[0]?.f != null) await client.query('SELECT count(*) FROM workflow_index.create_raw_partitions()');
}

/** Throws (changing nothing) when the database was migrated by a newer release than the one given. */
async function refuseDowngrade(client: ClientBase, required: RequiredSchema): Promise<void> {
  const verdict = compareSchema(required, await readSchemaState(client));
  if (verdict.status === 'newer') {
    throw new MigrationError(`${verdict.reason}: nothing was changed; run the init job of the release that migrated this database, or a newer one`);
  }
}

/** Whether the database runs the normalizer definitions of this release, and its rows were computed by its rules. */
export async function normalizerUpToDate(client: ClientBase, normalizer: NormalizerDefinitions = loadNormalizer()): Promise<boolean> {
  return normalizerPlan(await appliedNormalizer(client), normalizer).upToDate;
}

interface NormalizerPlan {
  readonly upToDate: boolean;
  /** The definitions differ from the applied ones: re-apply them. */
  readonly definitionsChanged: boolean;
  /** The rows were computed by other rules (or rules of no recorded version): rebuild them. */
  readonly rebuild: boolean;
}

/** What applying `normalizer` to a database that applied `applied` takes (the module comment says why). */
function normalizerPlan(applied: AppliedNormalizer | null, normalizer: NormalizerDefinitions): NormalizerPlan {
  const release = normalizer.rulesVersion ?? null;
  const recorded = applied?.rulesVersion ?? null;
  const definitionsChanged = applied?.checksum !== normalizer.checksum;
  const sameRules = recorded !== null && recorded === release;
  const rebuild = !sameRules && (definitionsChanged || recorded !== release);
  return { upToDate: !definitionsChanged && recorded === release, definitionsChanged, rebuild };
}

async function appliedNormalizer(client: ClientBase): Promise<AppliedNormalizer | null> {
  const state = await readSchemaState(client);
  return state.readable ? state.normalizer : null;
}

export async function readApplied(client: ClientBase): Promise<AppliedMigration[]> {
  const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('${HISTORY_TABLE}')::text AS t`);
  if (!exists.rows[0]?.t) return [];
  const res = await client.query<{ version: number; name: string; checksum: string; applied_at: Date; execution_ms: number }>(
    `SELECT version, name, checksum, applied_at, execution_ms FROM ${HISTORY_TABLE} ORDER BY version`,
  );
  return res.rows.map((r) => ({ version: r.version, name: r.name, checksum: r.checksum, appliedAt: r.applied_at, executionMs: r.execution_ms }));
}

/** Checks applied history against the files: a changed applied file is an error naming it. */
function verify(applied: readonly AppliedMigration[], migrations: readonly Migration[]): void {
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  for (const a of applied) {
    const m = byVersion.get(a.version);
    if (!m) continue; // applied by a newer release: reported by migrationStatus, refused by migrate
    if (m.checksum !== a.checksum) {
      throw new MigrationError(
        `migration ${m.file} was changed after it was applied (checksum ${a.checksum.slice(0, 12)} in the database, ${m.checksum.slice(0, 12)} on disk); add a new migration instead of editing an applied one`,
      );
    }
  }
}

export interface MigrationStatus {
  readonly applied: readonly AppliedMigration[];
  readonly pending: readonly Migration[];
  /** Whether the database runs the normalizer definitions of this release, and its rows were computed by its rules. */
  readonly normalizerUpToDate: boolean;
  /** Whether migrating rebuilds every normalized row (the rules version differs from the recorded one). */
  readonly normalizerRebuild: boolean;
  /** Why this release must not migrate (nor serve) this database, when a newer release migrated it; else null. */
  readonly downgrade: string | null;
}

export async function migrationStatus(
  client: ClientBase,
  migrations: readonly Migration[] = loadMigrations(),
  normalizer: NormalizerDefinitions = loadNormalizer(),
  release: string = THIS_RELEASE,
): Promise<MigrationStatus> {
  const applied = await readApplied(client);
  verify(applied, migrations);
  const done = new Set(applied.map((a) => a.version));
  const state = await readSchemaState(client);
  const verdict = compareSchema(requiredSchema(migrations, normalizer, release), state);
  const plan = normalizerPlan(state.readable ? state.normalizer : null, normalizer);
  return {
    applied,
    pending: migrations.filter((m) => !done.has(m.version)),
    normalizerUpToDate: plan.upToDate,
    normalizerRebuild: plan.rebuild,
    downgrade: verdict.status === 'newer' ? verdict.reason : null,
  };
}

export interface MigrateOptions {
  readonly dryRun?: boolean;
  readonly migrations?: readonly Migration[];
  readonly normalizer?: NormalizerDefinitions;
  /** The release these files belong to (default: this one); recorded with the normalizer definitions. */
  readonly release?: string;
  readonly onStep?: (step: MigrationStepResult) => void;
  /** Called once with what happened to the normalizer definitions (after the migration steps). */
  readonly onNormalizer?: (result: NormalizerResult) => void;
}

/**
 * Applies pending migrations in order, then the normalizer definitions when they changed or a migration was applied
 * (with a rebuild of the normalized rows when the rules version changed), all in one transaction under the advisory
 * lock; returns one result per migration file.
 */
export async function migrate(client: ClientBase, options: MigrateOptions = {}): Promise<MigrationStepResult[]> {
  const migrations = options.migrations ?? loadMigrations();
  const normalizer = options.normalizer ?? loadNormalizer();
  const required = requiredSchema(migrations, normalizer, options.release ?? THIS_RELEASE);
  const results: MigrationStepResult[] = [];
  const report = (step: MigrationStepResult): void => {
    results.push(step);
    options.onStep?.(step);
  };
  if (options.dryRun) {
    const status = await migrationStatus(client, migrations, normalizer, required.release);
    if (status.downgrade !== null) throw new MigrationError(`${status.downgrade}: this release would change nothing`);
    const pending = new Set(status.pending.map((m) => m.version));
    for (const m of migrations) {
      report(pending.has(m.version) ? { version: m.version, name: m.name, status: 'pending', sql: m.sql } : { version: m.version, name: m.name, status: 'skipped' });
    }
    options.onNormalizer?.(
      status.normalizerUpToDate && status.pending.length === 0
        ? { status: 'skipped' }
        : { status: 'pending', sql: normalizer.files.map((f) => `-- ${f.file}\n${f.sql}`).join('\n'), rebuild: status.normalizerRebuild },
    );
    return results;
  }
  await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
  try {
    // Before ensureHistory: a refused downgrade must not even add a column.
    await refuseDowngrade(client, required);
    await ensureHistory(client);
    const applied = await readApplied(client);
    verify(applied, migrations);
    const done = new Set(applied.map((a) => a.version));
    const pending = migrations.filter((m) => !done.has(m.version));
    const plan = normalizerPlan(await appliedNormalizer(client), normalizer);
    const reports: Array<() => void> = [];
    await client.query('BEGIN');
    try {
      for (const m of migrations) {
        if (done.has(m.version)) {
          reports.push(() => report({ version: m.version, name: m.name, status: 'skipped' }));
          continue;
        }
        const started = performance.now();
        try {
          await client.query(m.sql);
        } catch (error) {
          throw new MigrationError(`migration ${m.file} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
        const durationMs = Math.round(performance.now() - started);
        await client.query(`INSERT INTO ${HISTORY_TABLE} (version, name, checksum, execution_ms) VALUES ($1, $2, $3, $4)`, [m.version, m.name, m.checksum, durationMs]);
        reports.push(() => report({ version: m.version, name: m.name, status: 'applied', durationMs }));
      }
      let normalizerResult: NormalizerResult = { status: 'skipped' };
      if (!plan.upToDate || pending.length > 0) {
        const started = performance.now();
        for (const f of normalizer.files) {
          try {
            await client.query(f.sql);
          } catch (error) {
            throw new MigrationError(`normalizer definition ${f.file} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
          }
        }
        let rebuiltEvents = 0;
        // (Only definitions that provide the rebuild can rebuild: a bare set, as in tests of older releases, cannot.)
        const canRebuild = await client.query<{ f: string | null }>(`SELECT to_regprocedure('workflow_index.rebuild_normalized(integer)')::text AS f`);
        const rebuilt = plan.rebuild && canRebuild.rows[0]?.f != null;
        if (rebuilt) {
          const res = await client.query<{ n: string }>('SELECT workflow_index.rebuild_normalized() AS n');
          rebuiltEvents = Number(res.rows[0]?.n ?? 0);
        }
        const durationMs = Math.round(performance.now() - started);
        await client.query(
          `INSERT INTO ${NORMALIZER_TABLE} (checksum, rebuilt_events, execution_ms, release, rules_version) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (singleton) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now(), rebuilt_events = EXCLUDED.rebuilt_events,
             execution_ms = EXCLUDED.execution_ms, release = EXCLUDED.release, rules_version = EXCLUDED.rules_version`,
          [normalizer.checksum, rebuiltEvents, durationMs, required.release, normalizer.rulesVersion ?? null],
        );
        if (!plan.upToDate) normalizerResult = { status: 'applied', files: normalizer.files.length, rebuilt, rebuiltEvents, durationMs };
      }
      await createRawPartitions(client);
      await grantHistoryToReaders(client);
      await client.query('COMMIT');
      for (const r of reports) r();
      options.onNormalizer?.(normalizerResult);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
  }
  return results;
}
