// The status of a PostgreSQL database (`init-job status`): applied and pending migrations, applied ones whose file
// changed since, the normalizer definitions, the ingestion figures once migrated, and whether the database has the
// schema this release needs (what the server's readiness and wait-for-schema check). Reads only.
import type pg from 'pg';
import { type AppliedMigration, type Migration, loadMigrations, normalizerUpToDate, readApplied, requiredSchema } from './migrator.js';
import { type SchemaVerdict, compareSchema, readSchemaState, schemaVersionOf } from './schema-version.js';

export interface IngestStats {
  readonly workflowRawEvents: number;
  readonly taskRawEvents: number;
  readonly ingestErrors: number;
  readonly instances: number;
  readonly placeholderInstances: number;
  readonly taskExecutions: number;
  readonly newestEventTime: string | null;
}

/** The schema this release needs and how the database compares with it. */
export type SchemaStatus = { readonly needed: number; readonly release: string } & SchemaVerdict;

export interface PostgresqlStatus {
  readonly applied: readonly AppliedMigration[];
  readonly pending: readonly Migration[];
  /** Applied migrations whose file changed after they were applied. */
  readonly changed: readonly AppliedMigration[];
  /** Applied migrations this release does not ship (a newer release applied them). */
  readonly notShipped: readonly AppliedMigration[];
  readonly normalizerUpToDate: boolean;
  /** null before the first migration, or when this login may not read them. */
  readonly ingest: IngestStats | null;
  readonly schema: SchemaStatus;
}

/** The ingestion figures (`workflow_index.ingest_stats()`); null when not migrated yet or not permitted. */
export async function ingestStats(client: pg.ClientBase): Promise<IngestStats | null> {
  try {
    const res = await client.query<Record<string, string | Date | null>>('SELECT * FROM workflow_index.ingest_stats()');
    const r = res.rows[0];
    if (!r) return null;
    const newest = r['newest_event_time'];
    return {
      workflowRawEvents: Number(r['workflow_raw_events']),
      taskRawEvents: Number(r['task_raw_events']),
      ingestErrors: Number(r['ingest_errors']),
      instances: Number(r['instances']),
      placeholderInstances: Number(r['placeholder_instances']),
      taskExecutions: Number(r['task_executions']),
      newestEventTime: newest instanceof Date ? newest.toISOString() : null,
    };
  } catch {
    return null; // not migrated yet, or this role may not run it: the migration status is what was asked for
  }
}

export async function postgresqlStatus(client: pg.ClientBase, migrations: readonly Migration[] = loadMigrations()): Promise<PostgresqlStatus> {
  const applied = await readApplied(client);
  const onDisk = new Map(migrations.map((m) => [m.version, m]));
  const appliedVersions = new Set(applied.map((a) => a.version));
  const pending = migrations.filter((m) => !appliedVersions.has(m.version));
  const changed = applied.filter((a) => {
    const file = onDisk.get(a.version);
    return file !== undefined && file.checksum !== a.checksum;
  });
  const notShipped = applied.filter((a) => !onDisk.has(a.version));
  const ingest = applied.length > 0 ? await ingestStats(client) : null;
  const upToDate = await normalizerUpToDate(client);
  const required = requiredSchema(migrations);
  const verdict = compareSchema(required, await readSchemaState(client));
  const needed = schemaVersionOf(required);
  const schema: SchemaStatus = verdict.status === 'current'
    ? { needed, release: required.release, status: verdict.status }
    : { needed, release: required.release, status: verdict.status, reason: verdict.reason };
  return { applied, pending, changed, notShipped, normalizerUpToDate: upToDate, ingest, schema };
}
