// `status`: applied and pending migrations, plus the ingestion figures when the schema exists, and whether the
// database has the schema this release needs (what the server's readiness and wait-for-schema check). A database
// migrated by a newer release is an error: this release's init job and server refuse it.
import type pg from 'pg';
import { loadMigrations, normalizerUpToDate as readNormalizerUpToDate, readApplied, requiredSchema } from '@workflow-index/postgresql';
import { compareSchema, readSchemaState, schemaVersionOf } from '@workflow-index/postgresql';
import { EXIT_FAILURE, EXIT_OK, reasonOf, type CliOutput } from './cli-output.js';
import { openDatabase, type ConnectionArgs } from './database-connection.js';
import { migrationLabel } from './migrate-command.js';

export interface StatusArgs extends ConnectionArgs {
  readonly waitTimeout: number;
  readonly json: boolean;
}

interface IngestStats {
  readonly workflowRawEvents: number;
  readonly taskRawEvents: number;
  readonly ingestErrors: number;
  readonly instances: number;
  readonly placeholderInstances: number;
  readonly taskExecutions: number;
  readonly newestEventTime: string | null;
}

async function ingestStats(client: pg.Client): Promise<IngestStats | null> {
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

export async function runStatus(args: StatusArgs, env: Readonly<Record<string, string | undefined>>, out: CliOutput): Promise<number> {
  const opened = await openDatabase(env, args, out);
  if (!opened.ok) return opened.exitCode;
  const client = opened.client;
  try {
    const migrations = loadMigrations();
    const applied = await readApplied(client);
    const onDisk = new Map(migrations.map((m) => [m.version, m]));
    const appliedVersions = new Set(applied.map((a) => a.version));
    const pending = migrations.filter((m) => !appliedVersions.has(m.version));
    const changed = applied.filter((a) => {
      const file = onDisk.get(a.version);
      return file !== undefined && file.checksum !== a.checksum;
    });
    const stats = applied.length > 0 ? await ingestStats(client) : null;
    const normalizerUpToDate = await readNormalizerUpToDate(client);
    const required = requiredSchema(migrations);
    const verdict = compareSchema(required, await readSchemaState(client));
    const schema = {
      needed: schemaVersionOf(required),
      release: required.release,
      status: verdict.status,
      ...(verdict.status === 'current' ? {} : { reason: verdict.reason }),
    };

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
        const mark = changed.includes(a) ? 'CHANGED' : onDisk.has(a.version) ? 'applied' : 'applied (newer release)';
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
      out.out(`schema: ${verdict.status === 'current' ? `version ${schema.needed} of release ${schema.release}, as this release needs` : verdict.reason}`);
    }
    if (verdict.status === 'newer') {
      out.log(`error: ${verdict.reason}: this release's init job and server refuse this database`);
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
