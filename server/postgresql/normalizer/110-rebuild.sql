-- ------------------------------------------------------------------------------------------------
-- rebuild_normalized: recomputes everything the normalizer derives. The migrator runs it, in the same transaction
-- as the schema change, whenever the normalizer's definitions change, so an upgrade never serves rows computed by
-- older rules (no manual step). Raw inserts wait for it (the lock below); readers keep reading the old rows until
-- it commits.
--
-- What it replays, in this order (each in first-delivery order: the workflow table's rows, then the task table's):
--  1. the event store (048-event-store.sql): every event ever accepted, once per identity, including those whose
--     raw rows retention has deleted. Both of its tables are set aside first (temporary tables of their documents),
--     emptied and refilled by the replay under the new rules: task_events, whose parsed fields the new rules may
--     read differently, and workflow_index.events, whose identity hash the new rules may compute differently (rules
--     version 2 reads payload numbers canonically), so a changed identity leaves no row under the old one.
--  2. the raw rows still there, for what the store cannot hold: rejected events (the new rules may accept them,
--     and ingest_errors is rebuilt from them) and fields the old rules did not read. Accepted ones are duplicates
--     of stored events and change nothing.
-- So deleting raw events never changes a rebuilt row. Runs deleted by instance retention stay deleted
-- (pruned_instances is kept). Returns the number of events replayed (store plus raw).
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.rebuild_normalized(p_batch_size INTEGER DEFAULT 5000) RETURNS BIGINT
LANGUAGE plpgsql VOLATILE
SET search_path = workflow_index, pg_catalog, pg_temp
SET enable_seqscan = off
SET enable_mergejoin = off
SET enable_hashjoin = off
SET jit = off  -- as for the triggers (090-triggers.sql): batches of p_batch_size events must not JIT-compile
SET plan_cache_mode = force_generic_plan  -- as for the triggers (090-triggers.sql): no batch re-plans its statements
AS $$
DECLARE
  v_table TEXT;
  v_store TEXT;
  last_id BIGINT;
  ids BIGINT[];
  datas JSON[];
  docs JSONB[];
  total BIGINT := 0;
BEGIN
  LOCK TABLE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw IN SHARE ROW EXCLUSIVE MODE;
  DROP TABLE IF EXISTS pg_temp.stored_task_events;
  CREATE TEMPORARY TABLE stored_task_events ON COMMIT DROP AS
    SELECT t.raw_table, t.raw_id, t.document FROM task_events t;
  CREATE INDEX ON pg_temp.stored_task_events (raw_table, raw_id);
  ANALYZE pg_temp.stored_task_events;
  DROP TABLE IF EXISTS pg_temp.stored_workflow_events;
  CREATE TEMPORARY TABLE stored_workflow_events ON COMMIT DROP AS
    SELECT e.raw_table, e.raw_id, e.document FROM events e;
  CREATE INDEX ON pg_temp.stored_workflow_events (raw_table, raw_id);
  ANALYZE pg_temp.stored_workflow_events;
  TRUNCATE task_executions, task_events, events, workflow_instances, ingest_errors;

  FOREACH v_table IN ARRAY ARRAY['workflow_events_raw', 'task_events_raw'] LOOP
    -- 1. The store as set aside, by the index on (raw_table, raw_id): workflow events, then task events.
    FOREACH v_store IN ARRAY ARRAY['pg_temp.stored_workflow_events', 'pg_temp.stored_task_events'] LOOP
      last_id := 0;
      LOOP
        EXECUTE format('SELECT array_agg(e.raw_id ORDER BY e.raw_id), array_agg(e.document ORDER BY e.raw_id)
                        FROM (SELECT s.raw_id, s.document FROM %s s
                              WHERE s.raw_table = $1 AND s.raw_id > $2 ORDER BY s.raw_id LIMIT $3) e', v_store)
          INTO ids, docs USING v_table, last_id, p_batch_size;
        EXIT WHEN ids IS NULL;
        PERFORM apply_events(v_table, ids, docs);
        total := total + cardinality(ids);
        last_id := ids[cardinality(ids)];
      END LOOP;
    END LOOP;
  END LOOP;
  DROP TABLE pg_temp.stored_task_events;
  DROP TABLE pg_temp.stored_workflow_events;

  -- 2. The raw rows retention has not deleted yet.
  FOREACH v_table IN ARRAY ARRAY['workflow_events_raw', 'task_events_raw'] LOOP
    last_id := 0;
    LOOP
      EXECUTE format('SELECT array_agg(r.id ORDER BY r.id), array_agg(r.data ORDER BY r.id)
                      FROM (SELECT id, data FROM workflow_raw.%I WHERE id > $1 ORDER BY id LIMIT $2) r', v_table)
        INTO ids, datas USING last_id, p_batch_size;
      EXIT WHEN ids IS NULL;
      PERFORM normalize_raw_rows(v_table, ids, datas);
      total := total + cardinality(ids);
      last_id := ids[cardinality(ids)];
    END LOOP;
  END LOOP;
  RETURN total;
END
$$;
