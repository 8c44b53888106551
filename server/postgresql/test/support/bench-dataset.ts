// The bench dataset (testkit bench-dataset.ts) on PostgreSQL, for bench:query and the plan and bounded-work tests:
// instances and task executions written by bulk SQL straight into the normalized tables (they measure queries, not
// ingestion), then VACUUM ANALYZE.
import type pg from 'pg';
import { BASE_TIME, CUSTOMERS, NAMESPACES, SPAN_SECONDS, TASK_NAMES } from '@workflow-index/testkit';

// Status (g % 20) and namespace ((g / 20) % 10) are independent, so every status × namespace page is populated.
// One run in 50 has an input.coupon (the JSON exists filter of bench:query has a key to find).
// Durations (d): 1.5 to 4.5 s spread over the runs, and a slow tail of 1 % taking 30 to 60 s (the duration filters and
// `orderBy: {duration: DESC}` of bench:query have a selective range to find).
const GENERATE_INSTANCES = `
INSERT INTO workflow_index.workflow_instances (
  id, namespace, name, version, status, start_time, end_time, last_update, input, output,
  error_type, error_title, error_detail, error_status, error_instance,
  started_event_time, status_terminal, status_event_time, status_rank, input_rank, input_event_time, output_event_time, error_event_time)
SELECT id, ns, nm, '1.' || (g % 3) || '.0', st, t0, CASE WHEN st <> 'RUNNING' THEN t0 + d END, t0 + d,
       jsonb_build_object('orderId', 'ORD-' || g, 'customer', jsonb_build_object('id', 'C-' || (g % ${CUSTOMERS}), 'tier', CASE WHEN g % 3 = 0 THEN 'gold' ELSE 'std' END),
                          'amount', (g % 1000) + 0.5, 'items', jsonb_build_array(jsonb_build_object('sku', 'SKU-' || (g % 97), 'qty', g % 5 + 1)))
         || CASE WHEN g % 50 = 0 THEN jsonb_build_object('coupon', 'SPRING-' || (g % 7)) ELSE '{}'::jsonb END,
       CASE WHEN st = 'COMPLETED' THEN jsonb_build_object('ok', true, 'total', g % 1000) END,
       CASE WHEN st = 'FAULTED' THEN 'https://serverlessworkflow.io/spec/1.0.0/errors/communication' END,
       CASE WHEN st = 'FAULTED' THEN 'Service Unavailable' END, NULL, CASE WHEN st = 'FAULTED' THEN 503 END, CASE WHEN st = 'FAULTED' THEN 'do/3/charge' END,
       t0, st <> 'RUNNING', t0 + d, 1, 2, t0, CASE WHEN st = 'COMPLETED' THEN t0 + d END, CASE WHEN st = 'FAULTED' THEN t0 + d END
FROM (SELECT g, 'bench-' || lpad(g::text, 8, '0') AS id,
             'com.acme.ns' || ((g / 20) % ${NAMESPACES}) AS ns, 'flow-' || (g % 17) AS nm,
             CASE WHEN g % 20 < 14 THEN 'COMPLETED' WHEN g % 20 < 17 THEN 'RUNNING' WHEN g % 20 < 19 THEN 'FAULTED' ELSE 'CANCELLED' END AS st,
             to_timestamp($2::float8 / 1000) + (g::float8 * $3::float8 / $1::float8) * interval '1 second' + (g % 997) * interval '1 microsecond' AS t0,
             CASE WHEN g % 100 = 7 THEN interval '30 seconds' + (g % 997) * interval '30 milliseconds'
                  ELSE interval '1500 milliseconds' + ((g::int8 * 7919) % 3000) * interval '1 millisecond' END AS d
      FROM generate_series(1, $1::int) AS g) s`;

// A FAULTED run faults at one task, the position ((g / 200) % tasks per run): every task name faults in some runs
// (about 1 % of the runs each with 10 tasks), independently of status and namespace.
const GENERATE_TASKS = `
INSERT INTO workflow_index.task_executions (id, instance_id, task_position, task_name, status, start_time, end_time, input, output, execution_index,
                                            workflow_namespace, workflow_name, workflow_version)
SELECT i.id || ':do/' || k || '/' || tn, i.id, 'do/' || k || '/' || tn, tn,
       CASE WHEN i.status = 'FAULTED' AND k = (substr(i.id, 7)::int / 200) % $1::int THEN 'FAULTED' WHEN i.status = 'RUNNING' AND k = $1::int - 1 THEN 'RUNNING' ELSE 'COMPLETED' END,
       i.start_time + k * interval '150 milliseconds',
       CASE WHEN i.status = 'RUNNING' AND k = $1::int - 1 THEN NULL ELSE i.start_time + k * interval '150 milliseconds' + interval '100 milliseconds' END,
       jsonb_build_object('step', k), jsonb_build_object('done', true), 1,
       i.namespace, i.name, i.version  -- the run's fields, as the normalizer writes them (075-task-run-fields.sql)
FROM workflow_index.workflow_instances i
CROSS JOIN LATERAL (SELECT k, ($2::text[])[k % cardinality($2::text[]) + 1] AS tn FROM generate_series(0, $1::int - 1) AS k) t`;

const DATASET_TABLES = ['workflow_instances', 'task_executions'];

/**
 * Writes `instances` instances with `tasksPerInstance` task executions each and analyzes both tables. The secondary
 * indexes are dropped while the rows are written and built again afterwards from their own definitions (a bulk
 * build is several times faster than maintaining a dozen indexes row by row: 1,000,000 runs × 10 tasks in minutes).
 */
export async function generateDataset(client: pg.ClientBase, instances: number, tasksPerInstance: number): Promise<void> {
  const indexes = await client.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = 'workflow_index' AND t.relname = ANY($1::text[]) AND NOT i.indisprimary AND NOT i.indisunique
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [DATASET_TABLES],
  );
  await client.query('SET maintenance_work_mem = \'256MB\'');
  for (const index of indexes.rows) await client.query(`DROP INDEX ${index.name}`);
  try {
    await client.query(GENERATE_INSTANCES, [instances, BASE_TIME, SPAN_SECONDS]);
    await client.query(GENERATE_TASKS, [tasksPerInstance, TASK_NAMES]);
  } finally {
    for (const index of indexes.rows) await client.query(index.definition);
    await client.query('RESET maintenance_work_mem');
  }
  await client.query('VACUUM ANALYZE workflow_index.workflow_instances');
  await client.query('VACUUM ANALYZE workflow_index.task_executions');
}

/** One SQL statement a reader issued: its text and bind values. */
export interface RecordedStatement { readonly text: string; readonly values: readonly unknown[] }

/** Makes every client of the pool report the parameterized statements it runs to `record` (the bench's floors and
 * the plan test replay exactly the reader's SQL). */
export function recordStatements(pool: pg.Pool, record: (statement: RecordedStatement) => void, options: { plainText?: boolean } = {}): void {
  pool.on('connect', (client) => {
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as { text?: unknown; values?: unknown[] } | string;
      if (typeof first === 'object' && typeof first.text === 'string') record({ text: first.text, values: first.values ?? [] });
      // Plain-text statements too (BEGIN, SET LOCAL, COMMIT of a count): the floor replays the same round trips.
      else if (options.plainText === true && typeof first === 'string') record({ text: first, values: Array.isArray(args[1]) ? (args[1] as unknown[]) : [] });
      return original(...args);
    };
  });
}
