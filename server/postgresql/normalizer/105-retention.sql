-- ------------------------------------------------------------------------------------------------
-- Retention (`init-job prune`): bounded batches, each one short transaction, run as the owner (SECURITY DEFINER)
-- so that the prune login needs EXECUTE on these three functions and nothing else (workflow_index_pruner).
--
-- Raw events go by their record time (`time`, what Fluent Bit's Timestamp_Key holds, BRIN-indexed), not by when
-- the row was inserted (not stored): a raw row is normalized, and its event kept in the event store, in the
-- transaction that inserts it, so deleting it at any time loses nothing a served row needs; the record time is
-- what an operator reading raw rows sees and searches by. Rows without a record time are kept. On raw tables
-- partitioned by day, whole days go by partition (104-raw-partitions.sql) and the rows deleted here are those of
-- the DEFAULT partition (and of the table an install had before partitions).
-- The ingest errors of a deleted raw row go with it (a rebuild could not re-record them either).
--
-- Finished runs (COMPLETED, FAULTED, CANCELLED; never RUNNING or SUSPENDED) go by their end time, with their task
-- executions and stored events (task events in task_events, workflow events in events); each leaves a row in pruned_instances, so a late event for
-- it is ignored instead of bringing part of it back. A run a flush is writing at that moment is skipped (SKIP
-- LOCKED) and goes with a later batch or run.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.prune_raw_batch(p_table TEXT, p_horizon TIMESTAMPTZ, p_after_id BIGINT, p_limit INTEGER)
RETURNS TABLE (deleted BIGINT, ingest_errors BIGINT, last_id BIGINT)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $$
DECLARE
  sources TEXT;
  deletes TEXT;
  gone TEXT;
BEGIN
  IF p_table NOT IN ('workflow_events_raw', 'task_events_raw') THEN
    RAISE EXCEPTION 'unknown raw table %', p_table USING ERRCODE = 'invalid_parameter_value';
  END IF;
  -- Walk the id index from where the last batch stopped: one pass over the rows in all, whatever the horizon. On a
  -- partitioned table, over the relations pruned row by row (raw_row_pruned); its day partitions go whole.
  SELECT string_agg(format('SELECT id, time FROM %s', rel), ' UNION ALL '),
         string_agg(format('%s AS (DELETE FROM %s r WHERE r.id IN (SELECT v.id FROM victims v) RETURNING r.id)', 'gone' || n, rel), ', '),
         string_agg(format('SELECT id FROM %s', 'gone' || n), ' UNION ALL ')
    INTO sources, deletes, gone
    FROM raw_row_pruned(p_table) WITH ORDINALITY AS r(rel, n);
  IF sources IS NULL THEN
    RETURN QUERY SELECT 0::BIGINT, 0::BIGINT, NULL::BIGINT;
    RETURN;
  END IF;
  RETURN QUERY EXECUTE format(
    'WITH victims AS MATERIALIZED (
       SELECT r.id FROM (%2$s) r WHERE r.id > $1 AND r.time < $2 ORDER BY r.id LIMIT $3
     ), %3$s, gone AS (%4$s), errors AS (
       DELETE FROM workflow_index.ingest_errors e WHERE e.raw_table = %1$L AND e.raw_id IN (SELECT g.id FROM gone g) RETURNING 1
     )
     SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM errors), (SELECT max(v.id) FROM victims v)', p_table, sources, deletes, gone)
    USING p_after_id, p_horizon, p_limit;
END
$$;

CREATE OR REPLACE FUNCTION workflow_index.prune_instances_batch(p_horizon TIMESTAMPTZ, p_limit INTEGER)
RETURNS TABLE (namespace TEXT, name TEXT, version TEXT, instances BIGINT, task_executions BIGINT, stored_events BIGINT)
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $$
  WITH victims AS MATERIALIZED (
    SELECT w.id, w.namespace, w.name, w.version, w.end_time
    FROM workflow_instances w
    WHERE w.status_terminal AND w.status IN ('COMPLETED', 'FAULTED', 'CANCELLED') AND w.end_time < p_horizon
    ORDER BY w.end_time, w.id
    LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  ), tombstones AS (
    INSERT INTO pruned_instances AS t (id, end_time)
    SELECT v.id, v.end_time FROM victims v ORDER BY v.id
    ON CONFLICT (id) DO UPDATE SET end_time = EXCLUDED.end_time, pruned_at = now()
  ), tasks AS (
    DELETE FROM task_executions t WHERE t.instance_id IN (SELECT v.id FROM victims v) RETURNING t.instance_id
  ), stored_task_events AS (
    DELETE FROM task_events t WHERE t.instance_id IN (SELECT v.id FROM victims v) RETURNING t.instance_id
  ), stored_workflow_events AS (
    DELETE FROM events e WHERE e.instance_id IN (SELECT v.id FROM victims v) RETURNING e.instance_id
  ), stored AS (
    SELECT instance_id FROM stored_task_events UNION ALL SELECT instance_id FROM stored_workflow_events
  ), runs AS (
    DELETE FROM workflow_instances w WHERE w.id IN (SELECT v.id FROM victims v) RETURNING w.id
  ), per_instance AS (
    SELECT v.id, v.namespace, v.name, v.version,
           coalesce(t.n, 0) AS task_executions, coalesce(s.n, 0) AS stored_events
    FROM victims v
    JOIN runs r ON r.id = v.id
    LEFT JOIN (SELECT tasks.instance_id, count(*) AS n FROM tasks GROUP BY 1) t ON t.instance_id = v.id
    LEFT JOIN (SELECT stored.instance_id, count(*) AS n FROM stored GROUP BY 1) s ON s.instance_id = v.id
  )
  SELECT p.namespace, p.name, p.version, count(*), sum(p.task_executions)::BIGINT, sum(p.stored_events)::BIGINT
  FROM per_instance p
  GROUP BY p.namespace, p.name, p.version
$$;

-- What a prune with these horizons would delete now, per workflow (NULL name: raw events of no known run).
-- Read-only; `init-job prune --dry-run` prints it.
CREATE OR REPLACE FUNCTION workflow_index.prune_preview(p_raw_horizon TIMESTAMPTZ, p_instance_horizon TIMESTAMPTZ)
RETURNS TABLE (namespace TEXT, name TEXT, version TEXT, workflow_raw_events BIGINT, task_raw_events BIGINT,
               instances BIGINT, task_executions BIGINT, stored_events BIGINT)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
AS $$
  WITH raw AS (
    SELECT r.data ->> 'instanceId' AS instance_id, 1 AS wf, 0 AS task
    FROM workflow_raw.workflow_events_raw r
    WHERE r.time < p_raw_horizon
      AND (r.time < raw_partition_horizon(p_raw_horizon) OR r.tableoid IN (SELECT raw_row_pruned('workflow_events_raw')))
    UNION ALL
    SELECT r.data ->> 'instanceId', 0, 1
    FROM workflow_raw.task_events_raw r
    WHERE r.time < p_raw_horizon
      AND (r.time < raw_partition_horizon(p_raw_horizon) OR r.tableoid IN (SELECT raw_row_pruned('task_events_raw')))
  ), raw_per_instance AS (
    SELECT raw.instance_id, sum(raw.wf) AS wf, sum(raw.task) AS task FROM raw GROUP BY raw.instance_id
  ), victims AS (
    SELECT w.id FROM workflow_instances w
    WHERE p_instance_horizon IS NOT NULL AND w.status_terminal AND w.status IN ('COMPLETED', 'FAULTED', 'CANCELLED')
      AND w.end_time < p_instance_horizon
  ), per_instance AS (
    SELECT coalesce(r.instance_id, v.id) AS instance_id, coalesce(r.wf, 0) AS wf, coalesce(r.task, 0) AS task,
           v.id IS NOT NULL AS pruned
    FROM raw_per_instance r FULL JOIN victims v ON v.id = r.instance_id
  )
  SELECT w.namespace, w.name, w.version, sum(p.wf)::BIGINT, sum(p.task)::BIGINT,
         count(*) FILTER (WHERE p.pruned),
         coalesce(sum((SELECT count(*) FROM task_executions t WHERE t.instance_id = p.instance_id)) FILTER (WHERE p.pruned), 0)::BIGINT,
         coalesce(sum((SELECT count(*) FROM events e WHERE e.instance_id = p.instance_id)
                      + (SELECT count(*) FROM task_events t WHERE t.instance_id = p.instance_id)) FILTER (WHERE p.pruned), 0)::BIGINT
  FROM per_instance p
  LEFT JOIN workflow_instances w ON w.id = p.instance_id
  GROUP BY w.namespace, w.name, w.version
$$;
