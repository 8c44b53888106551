// The raw tables an ingest run writes, as the forwarder login sees them.
import { TASK_EVENTS_TABLE, WORKFLOW_EVENTS_TABLE } from './fluent-bit-statement.js';

export const RAW_SCHEMA = 'workflow_raw';

export type RawTable = typeof WORKFLOW_EVENTS_TABLE | typeof TASK_EVENTS_TABLE;

/** The tags our Fluent Bit routing gives each raw table's records. */
export const RAW_TABLE_TAGS: Readonly<Record<RawTable, string>> = {
  [WORKFLOW_EVENTS_TABLE]: 'workflow.instance',
  [TASK_EVENTS_TABLE]: 'workflow.task',
};

/** What the ingester needs from a connection: `pg.Pool`, `pg.Client` and a pool client all fit. */
export interface SqlExecutor {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}
