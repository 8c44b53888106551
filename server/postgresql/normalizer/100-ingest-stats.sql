-- ------------------------------------------------------------------------------------------------
-- Ingestion health for the read-only server role (which cannot read raw tables directly), cheap enough for
-- every metrics scrape at any table size: raw counts from the identity high-water marks (exact unless rows were
-- deleted), placeholders from a partial index, totals exact below 100,000 rows and estimated above.
-- Retention (105-retention.sql) may empty a raw table or ingest_errors (a week without events, or without errors):
-- the count is then the identity sequence's last value, so it does not fall back to 0 and jump when the next row
-- arrives (the error count is a Prometheus counter: such a jump would read as a burst of errors).
-- search_path has only pg_catalog: the forwarder may create objects in workflow_raw, and nothing it creates may
-- stand in for a function this SECURITY DEFINER body calls (every name here is schema-qualified).
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.ingest_stats() RETURNS TABLE (
  workflow_raw_events BIGINT, task_raw_events BIGINT, ingest_errors BIGINT, newest_event_time TIMESTAMPTZ,
  placeholder_instances BIGINT, instances BIGINT, task_executions BIGINT)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  WITH estimates AS (
    SELECT (SELECT reltuples FROM pg_class WHERE oid = 'workflow_index.workflow_instances'::regclass) AS instances,
           (SELECT reltuples FROM pg_class WHERE oid = 'workflow_index.task_executions'::regclass) AS tasks
  ), placeholders AS (
    SELECT count(*) AS n FROM workflow_index.workflow_instances WHERE started_event_time IS NULL
  )
  SELECT coalesce((SELECT max(id) FROM workflow_raw.workflow_events_raw), pg_sequence_last_value(pg_get_serial_sequence('workflow_raw.workflow_events_raw', 'id')::regclass), 0),
         coalesce((SELECT max(id) FROM workflow_raw.task_events_raw), pg_sequence_last_value(pg_get_serial_sequence('workflow_raw.task_events_raw', 'id')::regclass), 0),
         coalesce((SELECT max(id) FROM workflow_index.ingest_errors), pg_sequence_last_value(pg_get_serial_sequence('workflow_index.ingest_errors', 'id')::regclass), 0),
         (SELECT max(last_update) FROM workflow_index.workflow_instances),
         placeholders.n,
         CASE WHEN estimates.instances < 100000
              THEN (SELECT count(*) FROM workflow_index.workflow_instances) - placeholders.n
              ELSE estimates.instances::BIGINT - placeholders.n END,
         CASE WHEN estimates.tasks < 100000
              THEN (SELECT count(*) FROM workflow_index.task_executions)
              ELSE estimates.tasks::BIGINT END
  FROM estimates, placeholders
$$;

