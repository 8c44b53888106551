-- ------------------------------------------------------------------------------------------------
-- rebuild_normalized: recomputes everything the normalizer derives from the raw tables, which keep every event
-- ever written. The migrator runs it, in the same transaction as the schema change, whenever the normalizer's
-- definitions change, so an upgrade never serves rows computed by older rules (no manual step). Raw inserts wait
-- for it (the lock below); readers keep reading the old rows until it commits.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.rebuild_normalized(p_batch_size INTEGER DEFAULT 5000) RETURNS BIGINT
LANGUAGE plpgsql VOLATILE
SET search_path = workflow_index, pg_catalog, pg_temp
SET enable_seqscan = off
SET enable_mergejoin = off
SET enable_hashjoin = off
AS $$
DECLARE
  raw_table TEXT;
  last_id BIGINT;
  ids BIGINT[];
  datas JSON[];
  total BIGINT := 0;
BEGIN
  LOCK TABLE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw IN SHARE ROW EXCLUSIVE MODE;
  TRUNCATE task_executions, task_events, workflow_instances, ingest_errors;
  FOREACH raw_table IN ARRAY ARRAY['workflow_events_raw', 'task_events_raw'] LOOP
    last_id := 0;
    LOOP
      EXECUTE format('SELECT array_agg(r.id ORDER BY r.id), array_agg(r.data ORDER BY r.id)
                      FROM (SELECT id, data FROM workflow_raw.%I WHERE id > $1 ORDER BY id LIMIT $2) r', raw_table)
        INTO ids, datas USING last_id, p_batch_size;
      EXIT WHEN ids IS NULL;
      PERFORM normalize_raw_rows(raw_table, ids, datas);
      total := total + cardinality(ids);
      last_id := ids[cardinality(ids)];
    END LOOP;
  END LOOP;
  RETURN total;
END
$$;
