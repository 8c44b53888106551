-- ------------------------------------------------------------------------------------------------
-- rebuild_normalized: recomputes everything the normalizer derives. The migrator runs it, in the same transaction
-- as the schema change, whenever the normalizer's definitions change, so an upgrade never serves rows computed by
-- older rules (no manual step). Raw inserts wait for it (the lock below); readers keep reading the old rows until
-- it commits.
--
-- What it replays, in this order (each in first-delivery order: the workflow table's rows, then the task table's):
--  1. the event store (048-event-store.sql): every event ever accepted, once per identity, including those whose
--     raw rows retention has deleted. The store itself is rebuilt too (the new rules may identify events
--     differently), so it is copied aside first.
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
AS $$
DECLARE
  v_table TEXT;
  last_id BIGINT;
  ids BIGINT[];
  datas JSON[];
  docs JSONB[];
  total BIGINT := 0;
BEGIN
  LOCK TABLE workflow_raw.workflow_events_raw, workflow_raw.task_events_raw IN SHARE ROW EXCLUSIVE MODE;
  CREATE TEMP TABLE rebuild_stored_events ON COMMIT DROP AS
    SELECT row_number() OVER (ORDER BY e.raw_table <> 'workflow_events_raw', e.raw_table, e.raw_id) AS seq,
           e.raw_table, e.raw_id, e.document
    FROM events e;
  CREATE INDEX ON pg_temp.rebuild_stored_events (seq);
  ANALYZE pg_temp.rebuild_stored_events;
  TRUNCATE task_executions, task_events, workflow_instances, ingest_errors, events;

  -- 1. The store, in batches of one raw table each (apply_events records the table with each stored event).
  last_id := 0;
  LOOP
    SELECT (array_agg(s.raw_table))[1] INTO v_table
    FROM (SELECT r.raw_table FROM pg_temp.rebuild_stored_events r WHERE r.seq > last_id ORDER BY r.seq LIMIT 1) s;
    EXIT WHEN v_table IS NULL;
    SELECT array_agg(r.raw_id ORDER BY r.seq), array_agg(r.document ORDER BY r.seq), max(r.seq)
    INTO ids, docs, last_id
    FROM (SELECT * FROM pg_temp.rebuild_stored_events r
          WHERE r.seq > last_id AND r.raw_table = v_table ORDER BY r.seq LIMIT p_batch_size) r;
    PERFORM apply_events(v_table, ids, docs);
    total := total + cardinality(ids);
  END LOOP;
  DROP TABLE pg_temp.rebuild_stored_events;

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
