// The reference: the same event lines written into a test PostgreSQL database the way Fluent Bit's pgsql output
// writes them (its re-print of each line, the record time key first, one statement per flush and table), and the
// normalized rows read back in the shape of the OpenSearch documents (opensearch-state.ts), so the two backends compare
// field by field.
import { fluentBitInsertStatementForTexts, rawTableFor, TASK_EVENTS_TABLE, withRecordTimeFirst } from '@workflow-index/postgresql';
import type { TestDatabase } from '@workflow-index/postgresql/testing';
import type { ComparableExecution, ComparableInstance, ComparableState } from '@workflow-index/opensearch/testing';
import { fluentBitJson } from '@workflow-index/events';

export interface Delivery {
  readonly line: string;
  readonly recordTimeMs: number;
}

/** Writes deliveries as Fluent Bit flushes of `flushSize` records (per table), as the forwarder login would. */
export async function writeToPostgreSQL(db: TestDatabase, deliveries: readonly Delivery[], flushSize = 50): Promise<void> {
  for (let i = 0; i < deliveries.length; i += flushSize) {
    const byTable = new Map<string, string[]>();
    for (const d of deliveries.slice(i, i + flushSize)) {
      let eventType = '';
      try {
        const parsed = JSON.parse(d.line) as { eventType?: unknown };
        if (typeof parsed.eventType === 'string') eventType = parsed.eventType;
      } catch {
        // routed by default
      }
      const table = rawTableFor(eventType);
      const texts = byTable.get(table) ?? [];
      texts.push(withRecordTimeFirst(fluentBitJson(d.line), d.recordTimeMs / 1000));
      byTable.set(table, texts);
    }
    for (const [table, texts] of byTable) {
      const statement = fluentBitInsertStatementForTexts(table, table === TASK_EVENTS_TABLE ? 'workflow.task' : 'workflow.instance', texts);
      const client = await db.pool.connect();
      try {
        await client.query('SET search_path = workflow_raw');
        await client.query(statement);
      } finally {
        await client.query('RESET search_path').catch(() => undefined);
        client.release();
      }
    }
  }
}

const ts = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const errorColumns = 'error_type, error_title, error_detail, error_status, error_instance';

interface ErrorRow { error_type: string | null; error_title: string | null; error_detail: string | null; error_status: number | null; error_instance: string | null }
function errorOf(r: ErrorRow): ComparableInstance['error'] {
  if (r.error_type === null && r.error_title === null && r.error_detail === null && r.error_status === null && r.error_instance === null) return null;
  return { type: r.error_type, title: r.error_title, detail: r.error_detail, status: r.error_status, instance: r.error_instance };
}

export async function postgresqlState(db: TestDatabase): Promise<ComparableState> {
  const instances = await db.pool.query<ErrorRow & Omit<ComparableInstance, 'error'>>(
    `SELECT id, name, namespace, version, status, ${ts('start_time')} AS start_time, ${ts('end_time')} AS end_time,
            ${ts('last_update')} AS last_update, nullif(input, 'null'::jsonb)::text AS input_json,
            nullif(output, 'null'::jsonb)::text AS output_json, ${errorColumns}, started_event_time IS NULL AS placeholder
     FROM workflow_index.workflow_instances ORDER BY id COLLATE "C"`);
  const executions = await db.pool.query<ErrorRow & Omit<ComparableExecution, 'error'>>(
    `SELECT t.id, t.instance_id, t.task_position, t.task_name, t.status, ${ts('t.start_time')} AS start_time, ${ts('t.end_time')} AS end_time,
            nullif(t.input, 'null'::jsonb)::text AS input_json, nullif(t.output, 'null'::jsonb)::text AS output_json,
            t.error_type, t.error_title, t.error_detail, t.error_status, t.error_instance, t.execution_index,
            i.started_event_time IS NULL AS placeholder
     FROM workflow_index.task_executions t JOIN workflow_index.workflow_instances i ON i.id = t.instance_id ORDER BY t.id COLLATE "C"`);
  const errors = await db.pool.query<{ reason: string }>('SELECT reason FROM workflow_index.ingest_errors ORDER BY reason COLLATE "C"');
  return {
    instances: instances.rows.map(({ error_type, error_title, error_detail, error_status, error_instance, ...rest }) => ({ ...rest, error: errorOf({ error_type, error_title, error_detail, error_status, error_instance }) })),
    executions: executions.rows.map(({ error_type, error_title, error_detail, error_status, error_instance, ...rest }) => ({ ...rest, error: errorOf({ error_type, error_title, error_detail, error_status, error_instance }) })),
    ingestErrors: errors.rows.length,
    ingestErrorReasons: errors.rows.map((r) => r.reason),
  };
}
