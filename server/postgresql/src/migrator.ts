// Versioned, forward-only migrations: files `NNNN_name.sql` applied in order, each in its own transaction,
// recorded with a checksum in workflow_index.schema_migrations, under an advisory lock so two init jobs
// cannot race. A changed, already-applied file is an error that names it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientBase } from 'pg';

/** The migration files shipped with this module (server/postgresql/migrations). */
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');

const LOCK_KEY = 7_461_905_211; // arbitrary, constant: "workflow-index migrate"
const HISTORY_TABLE = 'workflow_index.schema_migrations';

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
    if (!m) continue; // applied by a newer release: fine, forward-only
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
}

export async function migrationStatus(client: ClientBase, migrations: readonly Migration[] = loadMigrations()): Promise<MigrationStatus> {
  const applied = await readApplied(client);
  verify(applied, migrations);
  const done = new Set(applied.map((a) => a.version));
  return { applied, pending: migrations.filter((m) => !done.has(m.version)) };
}

export interface MigrateOptions {
  readonly dryRun?: boolean;
  readonly migrations?: readonly Migration[];
  readonly onStep?: (step: MigrationStepResult) => void;
}

/** Applies pending migrations in order under the advisory lock; returns one result per migration file. */
export async function migrate(client: ClientBase, options: MigrateOptions = {}): Promise<MigrationStepResult[]> {
  const migrations = options.migrations ?? loadMigrations();
  const results: MigrationStepResult[] = [];
  const report = (step: MigrationStepResult): void => {
    results.push(step);
    options.onStep?.(step);
  };
  if (options.dryRun) {
    const status = await migrationStatus(client, migrations);
    const pending = new Set(status.pending.map((m) => m.version));
    for (const m of migrations) {
      report(pending.has(m.version) ? { version: m.version, name: m.name, status: 'pending', sql: m.sql } : { version: m.version, name: m.name, status: 'skipped' });
    }
    return results;
  }
  await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
  try {
    await ensureHistory(client);
    const applied = await readApplied(client);
    verify(applied, migrations);
    const done = new Set(applied.map((a) => a.version));
    for (const m of migrations) {
      if (done.has(m.version)) {
        report({ version: m.version, name: m.name, status: 'skipped' });
        continue;
      }
      const started = performance.now();
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        const durationMs = Math.round(performance.now() - started);
        await client.query(`INSERT INTO ${HISTORY_TABLE} (version, name, checksum, execution_ms) VALUES ($1, $2, $3, $4)`, [m.version, m.name, m.checksum, durationMs]);
        await client.query('COMMIT');
        report({ version: m.version, name: m.name, status: 'applied', durationMs });
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        const message = error instanceof Error ? error.message : String(error);
        throw new MigrationError(`migration ${m.file} failed: ${message}`, { cause: error });
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
  }
  return results;
}
