// Demo data of development mode: an event log written through the same path as `init-job ingest` (the Fluent Bit
// statement into the raw tables, normalized by the triggers), once, into a database that has no data yet —
// so a restart neither duplicates nor overwrites what is there. The built-in demo (the reference stream) is placed
// just before the start (demoEventLines: the same shape every start); any other file is loaded as it is.
import { Readable } from 'node:stream';
import { demoBaseMs, demoEventLinesOf } from '@workflow-index/events';
import { ingestEventLogs } from './event-log-ingest.js';
import type { IngestSummary, SqlExecutor } from './event-log-ingest.js';

export type DemoLoadResult =
  | { readonly status: 'loaded'; readonly summary: IngestSummary; readonly baseMs: number }
  | { readonly status: 'skipped'; readonly reason: string };

export async function loadDemoEventsIfEmpty(db: SqlExecutor, file: string, baseMs: number = demoBaseMs()): Promise<DemoLoadResult> {
  const existing = await db.query(
    `SELECT EXISTS (SELECT 1 FROM workflow_index.workflow_instances) OR EXISTS (SELECT 1 FROM workflow_index.task_executions) AS has_data`,
  );
  if ((existing.rows[0] as { has_data: boolean } | undefined)?.has_data === true) {
    return { status: 'skipped', reason: 'the database already holds workflow data' };
  }
  const lines = demoEventLinesOf(file, baseMs);
  const stream = Readable.from(lines.map((line) => `${line}\n`));
  return { status: 'loaded', summary: await ingestEventLogs(db, [{ name: file, stream }]), baseMs };
}
