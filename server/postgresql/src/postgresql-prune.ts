// Retention on PostgreSQL (`init-job prune`): calls the retention functions of the normalizer (normalizer/
// 105-retention.sql, 104-raw-partitions.sql), one short transaction per batch or partition, so the forwarder's flushes never wait long behind it (each
// batch gives up after lock_timeout 5 s, and a run a flush is writing is skipped). Running it again deletes
// nothing more: it is idempotent, and safe to interrupt at any batch.
import type pg from 'pg';
import type { RawTable } from './event-log-ingest.js';
import { TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from './fluent-bit-statement.js';

const RAW_TABLES: readonly RawTable[] = [WORKFLOW_EVENTS_TABLE, TASK_EVENTS_TABLE];

export interface WorkflowKey {
  readonly namespace: string | null;
  readonly name: string | null;
  readonly version: string | null;
}

export interface WorkflowCounts extends WorkflowKey {
  workflowRawEvents: number;
  taskRawEvents: number;
  instances: number;
  taskExecutions: number;
  storedEvents: number;
}

export interface RawPruneResult {
  readonly deleted: Record<RawTable, number>;
  readonly ingestErrors: number;
  /** Delete transactions (row by row). */
  readonly batches: number;
  /** Day partitions dropped whole (their rows are counted in `deleted`). */
  readonly partitions: number;
}

export interface CreatedPartition {
  readonly table: RawTable;
  readonly partition: string;
  /** Rows of its day that had landed in the DEFAULT partition, moved into it. */
  readonly movedRows: number;
}

export interface InstancePruneResult {
  readonly perWorkflow: readonly WorkflowCounts[];
  readonly instances: number;
  readonly taskExecutions: number;
  readonly storedEvents: number;
  readonly batches: number;
}

/** Creates the raw tables' missing day partitions from today through `daysAhead` days ahead (none when not partitioned). */
export async function createRawPartitions(client: pg.ClientBase, daysAhead = 7): Promise<CreatedPartition[]> {
  const res = await client.query<{ raw_table: RawTable; partition_name: string; moved_rows: string }>(
    'SELECT * FROM workflow_index.create_raw_partitions($1)',
    [daysAhead],
  );
  return res.rows.map((r) => ({ table: r.raw_table, partition: r.partition_name, movedRows: Number(r.moved_rows) }));
}

/**
 * Deletes the raw rows recorded before `horizon`: on a table partitioned by day, the days wholly before the start of
 * the horizon's UTC day by dropping their partitions (each detached in a transaction of its own, then dropped), then
 * the rest row by row, `batchSize` rows per transaction, walking each table's ids once.
 */
export async function pruneRawEvents(client: pg.ClientBase, horizon: Date, batchSize: number): Promise<RawPruneResult> {
  const deleted: Record<RawTable, number> = { workflow_events_raw: 0, task_events_raw: 0 };
  let ingestErrors = 0;
  let batches = 0;
  let partitions = 0;
  for (const table of RAW_TABLES) {
    const detached = await client.query<{ name: string }>('SELECT d AS name FROM workflow_index.detach_raw_partitions($1, $2) AS d', [table, horizon]);
    for (const { name } of detached.rows) {
      const res = await client.query<{ deleted: string; ingest_errors: string }>('SELECT * FROM workflow_index.drop_raw_partition($1, $2)', [table, name]);
      partitions++;
      deleted[table] += Number(res.rows[0]?.deleted ?? 0);
      ingestErrors += Number(res.rows[0]?.ingest_errors ?? 0);
    }
    let after = 0;
    for (;;) {
      const res = await client.query<{ deleted: string; ingest_errors: string; last_id: string | null }>(
        'SELECT * FROM workflow_index.prune_raw_batch($1, $2, $3, $4)',
        [table, horizon, after, batchSize],
      );
      const row = res.rows[0];
      if (!row || row.last_id === null) break;
      batches++;
      deleted[table] += Number(row.deleted);
      ingestErrors += Number(row.ingest_errors);
      after = Number(row.last_id);
    }
  }
  return { deleted, ingestErrors, batches, partitions };
}

/** Deletes finished runs that ended before `horizon` with everything stored for them, `batchSize` runs per transaction. */
export async function pruneFinishedInstances(client: pg.ClientBase, horizon: Date, batchSize: number): Promise<InstancePruneResult> {
  const perWorkflow = new Map<string, WorkflowCounts>();
  let batches = 0;
  for (;;) {
    const res = await client.query<{ namespace: string | null; name: string | null; version: string | null; instances: string; task_executions: string; stored_events: string }>(
      'SELECT * FROM workflow_index.prune_instances_batch($1, $2)',
      [horizon, batchSize],
    );
    let runs = 0;
    for (const r of res.rows) {
      const counts = entry(perWorkflow, r);
      counts.instances += Number(r.instances);
      counts.taskExecutions += Number(r.task_executions);
      counts.storedEvents += Number(r.stored_events);
      runs += Number(r.instances);
    }
    if (runs > 0) batches++;
    // Fewer than a batch: nothing left that is not being written right now (those wait for the next run).
    if (runs < batchSize) break;
  }
  const all = [...perWorkflow.values()];
  return {
    perWorkflow: sortCounts(all),
    instances: sum(all, (c) => c.instances),
    taskExecutions: sum(all, (c) => c.taskExecutions),
    storedEvents: sum(all, (c) => c.storedEvents),
    batches,
  };
}

/** What a prune with these horizons would delete now, per workflow. Reads only. */
export async function previewPrune(client: pg.ClientBase, rawHorizon: Date, instanceHorizon: Date | null): Promise<WorkflowCounts[]> {
  const res = await client.query<{
    namespace: string | null; name: string | null; version: string | null;
    workflow_raw_events: string; task_raw_events: string; instances: string; task_executions: string; stored_events: string;
  }>('SELECT * FROM workflow_index.prune_preview($1, $2)', [rawHorizon, instanceHorizon]);
  const perWorkflow = new Map<string, WorkflowCounts>();
  for (const r of res.rows) {
    const counts = entry(perWorkflow, r);
    counts.workflowRawEvents += Number(r.workflow_raw_events);
    counts.taskRawEvents += Number(r.task_raw_events);
    counts.instances += Number(r.instances);
    counts.taskExecutions += Number(r.task_executions);
    counts.storedEvents += Number(r.stored_events);
  }
  return sortCounts([...perWorkflow.values()]);
}

function entry(map: Map<string, WorkflowCounts>, key: WorkflowKey): WorkflowCounts {
  const id = JSON.stringify([key.namespace, key.name, key.version]);
  let counts = map.get(id);
  if (!counts) {
    counts = { namespace: key.namespace, name: key.name, version: key.version, workflowRawEvents: 0, taskRawEvents: 0, instances: 0, taskExecutions: 0, storedEvents: 0 };
    map.set(id, counts);
  }
  return counts;
}

function sortCounts(all: WorkflowCounts[]): WorkflowCounts[] {
  const k = (c: WorkflowKey): string => workflowLabel(c);
  return all.sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
}

function sum(all: readonly WorkflowCounts[], f: (c: WorkflowCounts) => number): number {
  return all.reduce((n, c) => n + f(c), 0);
}

/** `namespace/name@version`; events of no known run (rejected, or for a placeholder) are "(no workflow)". */
export function workflowLabel(key: WorkflowKey): string {
  if (key.name === null) return '(no workflow)';
  return `${key.namespace ?? '(no namespace)'}/${key.name}@${key.version ?? '(no version)'}`;
}

/** Whether the database has the retention functions (an older schema has not: `init-job migrate` first). */
export async function hasPruneFunctions(client: pg.ClientBase): Promise<boolean> {
  const res = await client.query<{ f: string | null }>(`SELECT to_regprocedure('workflow_index.drop_raw_partition(text,text)')::text AS f`);
  return Boolean(res.rows[0]?.f);
}
