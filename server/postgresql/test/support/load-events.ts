// Writes events into the raw tables exactly as Fluent Bit's pgsql output does: one statement per flush,
// workflow and task events routed to their own table. `batches` splits the sequence into flushes.
import type pg from 'pg';
import { fluentBitInsertStatement, rawTableFor, TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from '../../src/fluent-bit-statement.js';

import type { Event, InstanceRow, TaskRow } from '@workflow-index/testkit';

export type { Event, InstanceRow, TaskRow };

export interface Queryable {
  query(sql: string): Promise<unknown>;
}

export async function loadEvents(db: Queryable, events: readonly Event[], options: { batchSizes?: readonly number[]; qualified?: boolean } = {}): Promise<void> {
  const sizes = options.batchSizes && options.batchSizes.length > 0 ? options.batchSizes : [events.length || 1];
  let offset = 0;
  let i = 0;
  while (offset < events.length) {
    const size = Math.max(1, sizes[i % sizes.length] ?? 1);
    const batch = events.slice(offset, offset + size);
    offset += size;
    i++;
    const byTable = new Map<string, Event[]>();
    for (const event of batch) {
      const table = rawTableFor(typeof event['eventType'] === 'string' ? event['eventType'] : '');
      byTable.set(table, [...(byTable.get(table) ?? []), event]);
    }
    for (const [table, rows] of byTable) {
      const name = options.qualified === false ? table : `workflow_raw.${table}`;
      const tag = table === TASK_EVENTS_TABLE ? 'workflow.task' : table === WORKFLOW_EVENTS_TABLE ? 'workflow.instance' : table;
      await db.query(fluentBitInsertStatement(name, tag, rows));
    }
  }
}

const ts = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${col}`;

/** The normalized state of the given instances (or all), in a stable order, without bookkeeping columns. */
/** The normalized rows (of `instanceIds`); `olderSchema`: of a schema before migration 0011 (no run fields on tasks). */
export async function snapshot(pool: pg.Pool, instanceIds?: readonly string[], options: { olderSchema?: boolean } = {}): Promise<{ instances: InstanceRow[]; tasks: TaskRow[] }> {
  const where = instanceIds ? 'WHERE id = ANY($1)' : '';
  const whereTask = instanceIds ? 'WHERE instance_id = ANY($1)' : '';
  const params = instanceIds ? [instanceIds] : [];
  const instances = await pool.query<InstanceRow>(
    `SELECT id, namespace, name, version, status, ${ts('start_time')}, ${ts('end_time')}, ${ts('last_update')}, input, output,
            error_type, error_title, error_detail, error_status, error_instance, started_event_time IS NULL AS placeholder
     FROM workflow_index.workflow_instances ${where} ORDER BY id`, params);
  const tasks = await pool.query<TaskRow>(
    `SELECT id, instance_id, task_position, task_name, status, ${ts('start_time')}, ${ts('end_time')}, input, output,
            error_type, error_title, error_detail, error_status, error_instance, execution_index
            ${options.olderSchema === true ? '' : ', workflow_namespace, workflow_name, workflow_version'}
     FROM workflow_index.task_executions ${whereTask} ORDER BY id`, params);
  return { instances: instances.rows, tasks: tasks.rows };
}
