-- ------------------------------------------------------------------------------------------------
-- normalize_raw_rows: raw rows (verbatim json) to jsonb, then apply_events. The conversion of the whole flush is
-- tried at once; only when some row cannot be held by jsonb is each row converted on its own, and the rows that
-- still fail are recorded in ingest_errors with the reason (they stay in the raw table). The trigger below converts a
-- flush in one pass itself and calls this only when that fails; rebuild_normalized() replays raw rows through it.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.normalize_raw_rows(p_table TEXT, p_ids BIGINT[], p_data JSON[]) RETURNS VOID
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  docs JSONB[];
  good_ids BIGINT[];
BEGIN
  BEGIN
    docs := p_data::JSONB[];
    good_ids := p_ids;
  EXCEPTION WHEN OTHERS THEN
    WITH converted AS MATERIALIZED (
      SELECT u.id, u.o, u.d, c.doc, c.problem
      FROM unnest(p_ids, p_data) WITH ORDINALITY AS u(id, d, o)
      CROSS JOIN LATERAL workflow_index.event_jsonb(u.d) AS c
    ), rejected AS (
      INSERT INTO ingest_errors (raw_table, raw_id, instance_id, event_type, reason)
      SELECT p_table, converted.id,
             substring(converted.d::TEXT FROM '"instanceId"\s*:\s*"([^"\\]{1,255})'),
             substring(converted.d::TEXT FROM '"eventType"\s*:\s*"([^"\\]{1,255})'),
             converted.problem
      FROM converted
      WHERE converted.problem IS NOT NULL
    )
    SELECT array_agg(converted.id ORDER BY converted.o), array_agg(converted.doc ORDER BY converted.o)
    INTO good_ids, docs
    FROM converted WHERE converted.problem IS NULL;
  END;
  PERFORM apply_events(p_table, good_ids, docs);
END
$$;

-- ------------------------------------------------------------------------------------------------
-- The triggers: one call per INSERT statement (one Fluent Bit flush) over its transition table. They run as
-- the owner of the normalized tables (SECURITY DEFINER, fixed search_path): the forwarder role can only
-- insert raw rows.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.normalize_raw_batch() RETURNS TRIGGER
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
-- Every lookup the normalizer makes is a small set of keys against a large table. On a freshly created or
-- truncated database the statistics say the tables are empty, and the planner would then read whole tables or
-- indexes (sequential scans, merge and hash joins) for every flush of a large backlog: quadratic. Nested-loop
-- index lookups are right at any table size.
SET enable_seqscan = off
SET enable_mergejoin = off
SET enable_hashjoin = off
-- No JIT compilation: the estimated cost of the normalizer's statements grows with the flush (and the settings
-- above add disable_cost wherever only a disabled plan fits), so past about 8,000 events per flush the CTE statement
-- crossed jit_above_cost and every flush spent a second or more compiling: 35 % of the CPU of a 10,000-event flush
-- (docs/write-path.md). Each statement runs once per flush over rows it has just built; compiling never pays.
SET jit = off
-- Generic plans for every statement of the normalizer, at any flush size. PL/pgSQL plans each statement with the
-- flush's arrays as parameters: for the first five flushes of a session with their values (custom plans), then it
-- keeps a generic plan only if its estimated cost is not above the custom plans' average. In a session whose flushes
-- hold 20 events or more it is not, and the generic plans are kept; in one whose flushes hold a few events (what
-- Fluent Bit sends while events trickle in) the custom plans look cheaper, so every flush planned its statements
-- again, which cost more than running them (backend CPU per task flush of 5 events: 4.6 ms, 1.7 ms with this;
-- docs/write-path.md, Normalization). The plan shapes do not depend on the estimates anyway (the settings above).
SET plan_cache_mode = force_generic_plan
-- Memory for the sorts and hash aggregations of a flush: the executions' aggregation keeps an array per execution
-- and group, which at 1,000 events per flush outgrew the default 4 MB and spilled to temporary files.
SET work_mem = '32MB'
-- A flush that waits for an instance row another flush holds gives up after this and is retried by its writer
-- (lock_not_available propagates): one stuck transaction cannot wedge every flush behind it.
SET lock_timeout = '10s'
AS $$
DECLARE
  ids BIGINT[];
  datas JSON[];
  docs JSONB[];
BEGIN
  -- The flush's rows as jsonb in one pass over the transition table (no json[] array built and cast afterwards);
  -- only when some row cannot be held by jsonb does normalize_raw_rows convert row by row and record the rest.
  BEGIN
    SELECT array_agg(b.id ORDER BY b.id), array_agg(b.data::JSONB ORDER BY b.id) INTO ids, docs FROM batch b;
  EXCEPTION WHEN OTHERS THEN
    SELECT array_agg(b.id ORDER BY b.id), array_agg(b.data ORDER BY b.id) INTO ids, datas FROM batch b;
    PERFORM normalize_raw_rows(TG_TABLE_NAME, ids, datas);
    -- The ids as the ingest errors read them (a text match: some row here cannot even be read as jsonb).
    PERFORM notify_instances_changed(ARRAY(SELECT substring(b.data::TEXT FROM '"instanceId"\s*:\s*"([^"\\]{1,255})') FROM batch b));
    RETURN NULL;
  END;
  PERFORM apply_events(TG_TABLE_NAME, ids, docs);
  -- Live updates: one notification for the flush (095-live-notify.sql), sent when it commits.
  PERFORM notify_instances_changed(ARRAY(SELECT d ->> 'instanceId' FROM unnest(docs) AS d));
  RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER normalize_workflow_events AFTER INSERT ON workflow_raw.workflow_events_raw
  REFERENCING NEW TABLE AS batch FOR EACH STATEMENT EXECUTE FUNCTION workflow_index.normalize_raw_batch();
CREATE OR REPLACE TRIGGER normalize_task_events AFTER INSERT ON workflow_raw.task_events_raw
  REFERENCING NEW TABLE AS batch FOR EACH STATEMENT EXECUTE FUNCTION workflow_index.normalize_raw_batch();
