-- ------------------------------------------------------------------------------------------------
-- apply_events: normalizes a set of raw events (one Fluent Bit flush) with a few set-based statements.
-- If any statement raises, the set is split in halves and each half retried in its own subtransaction, down
-- to the single event, which is then recorded in ingest_errors: a bad event never blocks the good ones.
-- Conditions a retry can cure (deadlock, serialization failure, cancellation, shutdown) propagate instead,
-- so the writer retries the whole flush.
--
-- Every instance field is a commutative, idempotent merge: the value of the greatest event under a fixed order
-- (time first, then the event's content), folded within the flush and then against the stored row. Ties at equal
-- time are broken by content, never by arrival, so any re-delivery in any order gives the same row.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.apply_events(p_table TEXT, p_ids BIGINT[], p_data JSONB[]) RETURNS VOID
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  n INTEGER := coalesce(cardinality(p_ids), 0);
  half INTEGER;
  t_iids TEXT[];
  t_pos TEXT[];
  started_iids TEXT[];
  stored_elsewhere BOOLEAN;
BEGIN
  IF n = 0 THEN
    RETURN;
  END IF;
  BEGIN
    -- 1. Parse once; record rejected events; keep accepted workflow events in the event store (048); merge workflow
    --    events; store task events (deduplicated): task_events is the task events' store, each event stored once.
    WITH parsed AS MATERIALIZED (
      -- A run deleted by instance retention stays deleted: its late events are ignored (pruned_instances).
      SELECT p.*, EXISTS (SELECT 1 FROM pruned_instances t WHERE t.id = p.instance_id) AS pruned
      FROM parse_events(p_ids, p_data) p
    ), accepted AS NOT MATERIALIZED (
      SELECT * FROM parsed p WHERE p.reason IS NULL AND NOT p.pruned
    ), identified AS (
      -- The identity reads payload numbers canonically (045-event-identity.sql): an event Fluent Bit re-printed is
      -- the event `init-job ingest` delivered.
      -- What the merge (wf) and the store (kept) read, and nothing more: fresh is sorted and materialized.
      SELECT a.instance_id, a.raw_id, a.action, a.ts, a.namespace, a.name, a.version, a.status, a.terminal, a.rank,
             a.start_time, a.end_time, a.input_rank, a.input, a.has_output, a.output, a.has_error, a.error_type,
             a.error_title, a.error_detail, a.error_status, a.error_instance, stored_event_document(a.document) AS stored_document,
             hashtextextended(jsonb_build_array('workflow', a.action, epoch_us(a.ts), a.namespace, a.name, a.version, a.status,
                      a.terminal, a.rank, epoch_us(a.start_time), epoch_us(a.end_time), a.input_rank, a.identity_input,
                      a.has_output, a.identity_output, a.has_error, a.error_type, a.error_title, a.error_detail,
                      a.error_status, a.error_instance)::TEXT, 0)
               AS identity_hash
      FROM accepted a
      WHERE a.kind = 'workflow'
    ), fresh AS MATERIALIZED (
      -- The workflow events this flush stores: one per identity not stored yet, its first delivery (the first raw id
      -- of the flush). A re-delivery, by any path and in any spelling of its numbers, is already stored and changes
      -- nothing: only these are merged, so the served payload is the first delivery's text and never switches.
      SELECT DISTINCT ON (i.instance_id, i.identity_hash) i.*
      FROM identified i
      WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.instance_id = i.instance_id AND e.identity_hash = i.identity_hash)
      ORDER BY i.instance_id, i.identity_hash, i.raw_id
    ), kept AS (
      -- A flush committed since this statement's snapshot may have stored one of them: then fewer are kept than
      -- fresh, and the flush is retried (below), where that event is a re-delivery.
      INSERT INTO events AS e (instance_id, identity_hash, kind, raw_table, raw_id, document)
      SELECT f.instance_id, f.identity_hash, 'workflow', p_table, f.raw_id, f.stored_document
      FROM fresh f
      ON CONFLICT (instance_id, identity_hash) DO NOTHING
      RETURNING 1
    ), rejected AS (
      INSERT INTO ingest_errors (raw_table, raw_id, instance_id, event_type, reason)
      SELECT p_table, raw_id, left(instance_id, 255), left(event_type, 255), reason FROM parsed WHERE reason IS NOT NULL
    ), wf AS (
      -- Within the flush, fold each instance's newly stored events (fresh) into one row with the same rules as the
      -- upsert below.
      SELECT p.instance_id AS id,
        (array_agg(p.namespace ORDER BY p.ts, coalesce(p.namespace, ''), coalesce(p.name, ''), coalesce(p.version, ''), p.start_time) FILTER (WHERE p.action = 'started'))[1] AS namespace,
        (array_agg(p.name ORDER BY p.ts, coalesce(p.namespace, ''), coalesce(p.name, ''), coalesce(p.version, ''), p.start_time) FILTER (WHERE p.action = 'started'))[1] AS name,
        (array_agg(p.version ORDER BY p.ts, coalesce(p.namespace, ''), coalesce(p.name, ''), coalesce(p.version, ''), p.start_time) FILTER (WHERE p.action = 'started'))[1] AS version,
        (array_agg(p.start_time ORDER BY p.ts, coalesce(p.namespace, ''), coalesce(p.name, ''), coalesce(p.version, ''), p.start_time) FILTER (WHERE p.action = 'started'))[1] AS start_time,
        min(p.ts) FILTER (WHERE p.action = 'started') AS started_event_time,
        (array_agg(p.status ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC, p.end_time DESC))[1] AS status,
        (array_agg(p.terminal ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC, p.end_time DESC))[1] AS status_terminal,
        (array_agg(p.ts ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC, p.end_time DESC))[1] AS status_event_time,
        (array_agg(p.rank ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC, p.end_time DESC))[1] AS status_rank,
        (array_agg(CASE WHEN p.terminal THEN p.end_time END ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC, p.end_time DESC))[1] AS end_time,
        max(p.ts) AS last_update,
        coalesce(max(p.input_rank), 0) AS input_rank,
        (array_agg(p.input ORDER BY p.input_rank DESC, p.ts DESC, coalesce(p.input, 'null'::JSONB) DESC) FILTER (WHERE p.input_rank > 0))[1] AS input,
        (array_agg(p.ts ORDER BY p.input_rank DESC, p.ts DESC, coalesce(p.input, 'null'::JSONB) DESC) FILTER (WHERE p.input_rank > 0))[1] AS input_event_time,
        (array_agg(p.output ORDER BY p.ts DESC, coalesce(p.output, 'null'::JSONB) DESC) FILTER (WHERE p.has_output))[1] AS output,
        max(p.ts) FILTER (WHERE p.has_output) AS output_event_time,
        (array_agg(p.error_type ORDER BY p.ts DESC, coalesce(p.error_type, '') DESC, coalesce(p.error_title, '') DESC, coalesce(p.error_detail, '') DESC, coalesce(p.error_status, -1) DESC, coalesce(p.error_instance, '') DESC) FILTER (WHERE p.has_error))[1] AS error_type,
        (array_agg(p.error_title ORDER BY p.ts DESC, coalesce(p.error_type, '') DESC, coalesce(p.error_title, '') DESC, coalesce(p.error_detail, '') DESC, coalesce(p.error_status, -1) DESC, coalesce(p.error_instance, '') DESC) FILTER (WHERE p.has_error))[1] AS error_title,
        (array_agg(p.error_detail ORDER BY p.ts DESC, coalesce(p.error_type, '') DESC, coalesce(p.error_title, '') DESC, coalesce(p.error_detail, '') DESC, coalesce(p.error_status, -1) DESC, coalesce(p.error_instance, '') DESC) FILTER (WHERE p.has_error))[1] AS error_detail,
        (array_agg(p.error_status ORDER BY p.ts DESC, coalesce(p.error_type, '') DESC, coalesce(p.error_title, '') DESC, coalesce(p.error_detail, '') DESC, coalesce(p.error_status, -1) DESC, coalesce(p.error_instance, '') DESC) FILTER (WHERE p.has_error))[1] AS error_status,
        (array_agg(p.error_instance ORDER BY p.ts DESC, coalesce(p.error_type, '') DESC, coalesce(p.error_title, '') DESC, coalesce(p.error_detail, '') DESC, coalesce(p.error_status, -1) DESC, coalesce(p.error_instance, '') DESC) FILTER (WHERE p.has_error))[1] AS error_instance,
        max(p.ts) FILTER (WHERE p.has_error) AS error_event_time
      FROM fresh p
      GROUP BY p.instance_id
    ), upserted AS (
      INSERT INTO workflow_instances AS w (
        id, namespace, name, version, status, start_time, end_time, last_update, input, output,
        error_type, error_title, error_detail, error_status, error_instance,
        started_event_time, status_terminal, status_event_time, status_rank,
        input_rank, input_event_time, output_event_time, error_event_time)
      SELECT id, namespace, name, version, status, start_time, end_time, last_update, input, output,
        error_type, error_title, error_detail, error_status, error_instance,
        started_event_time, status_terminal, status_event_time, status_rank,
        input_rank, input_event_time, output_event_time, error_event_time
      FROM wf
      ORDER BY id  -- a fixed lock order across concurrent writers
      ON CONFLICT (id) DO UPDATE SET
        -- identity and start: from the earliest workflow.started
        (namespace, name, version, start_time, started_event_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.namespace ELSE w.namespace END,
                  CASE WHEN pick THEN EXCLUDED.name ELSE w.name END,
                  CASE WHEN pick THEN EXCLUDED.version ELSE w.version END,
                  CASE WHEN pick THEN EXCLUDED.start_time ELSE w.start_time END,
                  CASE WHEN pick THEN EXCLUDED.started_event_time ELSE w.started_event_time END
           FROM (SELECT EXCLUDED.started_event_time IS NOT NULL
                    AND (w.started_event_time IS NULL
                         OR (EXCLUDED.started_event_time, coalesce(EXCLUDED.namespace, ''), coalesce(EXCLUDED.name, ''),
                             coalesce(EXCLUDED.version, ''), EXCLUDED.start_time)
                          < (w.started_event_time, coalesce(w.namespace, ''), coalesce(w.name, ''),
                             coalesce(w.version, ''), w.start_time)) AS pick) s),
        -- status: the newest terminal event if any, else the newest event; end only with a terminal status
        (status, status_terminal, status_event_time, status_rank, end_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.status ELSE w.status END,
                  CASE WHEN pick THEN EXCLUDED.status_terminal ELSE w.status_terminal END,
                  CASE WHEN pick THEN EXCLUDED.status_event_time ELSE w.status_event_time END,
                  CASE WHEN pick THEN EXCLUDED.status_rank ELSE w.status_rank END,
                  CASE WHEN pick THEN EXCLUDED.end_time ELSE w.end_time END
           FROM (SELECT (EXCLUDED.status_terminal, EXCLUDED.status_event_time, EXCLUDED.status_rank, coalesce(EXCLUDED.end_time, '-infinity'))
                      > (w.status_terminal, w.status_event_time, w.status_rank, coalesce(w.end_time, '-infinity')) AS pick) s),
        last_update = greatest(w.last_update, EXCLUDED.last_update),
        -- input: workflow.started's, else workflow.faulted's (newest)
        (input, input_rank, input_event_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.input ELSE w.input END,
                  CASE WHEN pick THEN EXCLUDED.input_rank ELSE w.input_rank END,
                  CASE WHEN pick THEN EXCLUDED.input_event_time ELSE w.input_event_time END
           FROM (SELECT EXCLUDED.input_rank > 0
                    AND (EXCLUDED.input_rank, EXCLUDED.input_event_time, coalesce(EXCLUDED.input, 'null'::JSONB))
                      > (w.input_rank, coalesce(w.input_event_time, '-infinity'), coalesce(w.input, 'null'::JSONB)) AS pick) s),
        (output, output_event_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.output ELSE w.output END,
                  CASE WHEN pick THEN EXCLUDED.output_event_time ELSE w.output_event_time END
           FROM (SELECT (EXCLUDED.output_event_time, coalesce(EXCLUDED.output, 'null'::JSONB))
                      > (coalesce(w.output_event_time, '-infinity'), coalesce(w.output, 'null'::JSONB)) AS pick) s),
        (error_type, error_title, error_detail, error_status, error_instance, error_event_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.error_type ELSE w.error_type END,
                  CASE WHEN pick THEN EXCLUDED.error_title ELSE w.error_title END,
                  CASE WHEN pick THEN EXCLUDED.error_detail ELSE w.error_detail END,
                  CASE WHEN pick THEN EXCLUDED.error_status ELSE w.error_status END,
                  CASE WHEN pick THEN EXCLUDED.error_instance ELSE w.error_instance END,
                  CASE WHEN pick THEN EXCLUDED.error_event_time ELSE w.error_event_time END
           FROM (SELECT (EXCLUDED.error_event_time, coalesce(EXCLUDED.error_type, ''), coalesce(EXCLUDED.error_title, ''),
                         coalesce(EXCLUDED.error_detail, ''), coalesce(EXCLUDED.error_status, -1), coalesce(EXCLUDED.error_instance, ''))
                      > (coalesce(w.error_event_time, '-infinity'), coalesce(w.error_type, ''), coalesce(w.error_title, ''),
                         coalesce(w.error_detail, ''), coalesce(w.error_status, -1), coalesce(w.error_instance, '')) AS pick) s),
        updated_at = now()
    ), placeholders AS (
      -- An instance known only from task events gets a placeholder row (not served until workflow.started),
      -- so placeholders are counted from one partial index. Its status bookkeeping loses to any workflow event.
      -- One pass in id order takes every run's lock, new and existing alike: DO UPDATE … WHERE false updates
      -- nothing but locks the existing row (DO NOTHING would not). Inserting new runs first and locking existing
      -- ones later (step 2) deadlocked against a workflow flush upserting the same runs in id order: the task
      -- flush held its new placeholder X and waited for an existing W < X that the workflow flush held, which
      -- waited for X (40P01, seen with Fluent Bit's two concurrent outputs).
      INSERT INTO workflow_instances AS w (id, status, status_terminal, status_event_time, status_rank)
      SELECT DISTINCT p.instance_id, 'RUNNING', false, '-infinity'::TIMESTAMPTZ, 0::SMALLINT
      FROM accepted p
      WHERE p.kind = 'task'
        AND NOT EXISTS (SELECT 1 FROM wf WHERE wf.id = p.instance_id)
      ORDER BY 1  -- the same lock order as the upsert above, across concurrent writers
      ON CONFLICT (id) DO UPDATE SET status = w.status WHERE false
    ), stored AS (
      -- task_events is also the task events' store (048-event-store.sql): the first delivery of each identity, its
      -- payloads and document as delivered, its raw table and id. One row per identity within the flush: the first
      -- raw id.
      INSERT INTO task_events (instance_id, task_position, event_time, event_kind, task_name, status, at_time,
                               has_input, input, has_output, output, has_error,
                               error_type, error_title, error_detail, error_status, error_instance, raw_id, content_hash,
                               raw_table, document)
      SELECT DISTINCT ON (p.instance_id, p.task_position, p.ts, p.action, p.content_hash)
             p.instance_id, p.task_position, p.ts, p.action, p.task_name, p.task_status, p.at_time,
             p.input IS NOT NULL, p.input, p.has_output, p.output, p.has_error,
             p.error_type, p.error_title, p.error_detail, p.error_status, p.error_instance,
             p.raw_id, p.content_hash, p_table, stored_event_document(p.document)
      FROM accepted p
      WHERE p.kind = 'task'
      ORDER BY p.instance_id, p.task_position, p.ts, p.action, p.content_hash, p.raw_id
      -- The same event delivered again is already stored and changes nothing (045-event-identity.sql), also when a
      -- writer printed its numbers differently (99.98999999999999 for 99.99): the first delivery's spelling stays.
      ON CONFLICT (instance_id, task_position, event_time, event_kind, content_hash) DO NOTHING
      RETURNING task_events.instance_id, task_events.task_position
    )
    SELECT array_agg(s.instance_id ORDER BY s.instance_id, s.task_position), array_agg(s.task_position ORDER BY s.instance_id, s.task_position),
           (SELECT array_agg(wf.id ORDER BY wf.id) FROM wf WHERE wf.started_event_time IS NOT NULL),
           (SELECT count(*) FROM kept) <> (SELECT count(*) FROM fresh)
    INTO t_iids, t_pos, started_iids, stored_elsewhere
    FROM (SELECT DISTINCT stored.instance_id, stored.task_position FROM stored) s;
    IF stored_elsewhere THEN
      -- A concurrent flush stored a workflow event this one merged as new (fresh, above): retried whole by the writer,
      -- it is then a re-delivery, so the run serves the first delivery's payload text.
      RAISE EXCEPTION 'a concurrent flush stored the same workflow event: retry the flush' USING ERRCODE = 'serialization_failure';
    END IF;

    -- The runs that got a workflow.started: their task rows take the run's fields (075-task-run-fields.sql).
    IF started_iids IS NOT NULL THEN
      PERFORM task_run_fields_follow_runs(started_iids);
    END IF;

    IF t_iids IS NOT NULL THEN
      -- 2. Recomputation is serialized per instance by its row lock, which statement 1 took in id order for every
      --    instance of the flush (the upsert, or the placeholders' DO UPDATE … WHERE false): no deadlock between
      --    writers. Row locks, not advisory locks: no other login can take them (the reader has no UPDATE privilege,
      --    so no SELECT … FOR UPDATE/SHARE), and lock_timeout (090-triggers.sql) bounds the wait. Each statement below
      --    takes its own snapshot, after those locks were granted, so it sees every event a concurrent writer
      --    committed at these positions.

      -- 3. Recompute the executions of every touched position from all its stored events.
      -- Per-key index lookups, then a TID scan: plan shapes that do not depend on statistics. (With statistics
      -- from an emptier table, the planner flattens a join and drives it from a full index scan instead.)
      DELETE FROM task_executions
      WHERE ctid = ANY (ARRAY(SELECT x.ctid FROM unnest(t_iids, t_pos) AS a(i, p)
                              CROSS JOIN LATERAL (SELECT t.ctid FROM task_executions t
                                                  WHERE t.instance_id = a.i AND t.task_position = a.p
                                                  OFFSET 0) x));  -- OFFSET 0: not flattened, evaluated per key

      INSERT INTO task_executions (id, instance_id, task_position, task_name, status, start_time, end_time, input, output,
                                   error_type, error_title, error_detail, error_status, error_instance, execution_index,
                                   workflow_namespace, workflow_name, workflow_version)
      SELECT x.base || CASE WHEN x.execution_index = 1 THEN ''
                            ELSE '@' || (extract(epoch FROM coalesce(x.start_time, x.end_time)) * 1000000)::NUMERIC(20, 0)::TEXT
                                 || CASE WHEN x.dup > 1 THEN '#' || x.execution_index ELSE '' END END,
             x.instance_id, x.task_position, x.task_name, x.status, x.start_time, x.end_time, x.input, x.output,
             x.error_type, x.error_title, x.error_detail, x.error_status, x.error_instance, x.execution_index,
             r.namespace, r.name, r.version  -- the run's fields, as its locked row holds them (075-task-run-fields.sql)
      FROM (
        SELECT y.*, row_number() OVER (PARTITION BY y.instance_id, y.task_position, coalesce(y.start_time, y.end_time)
                                       ORDER BY y.execution_index) AS dup
        FROM (
          SELECT z.*, execution_id_base(z.instance_id, z.task_position) AS base,  -- 072-execution-ids.sql
                 row_number() OVER (PARTITION BY z.instance_id, z.task_position ORDER BY z.first_seq)::INTEGER AS execution_index
          FROM task_position_executions(t_iids, t_pos) z
        ) y
      ) x
      CROSS JOIN LATERAL (SELECT w.namespace, w.name, w.version FROM workflow_instances w
                          WHERE w.id = x.instance_id OFFSET 0) r;  -- per-key lookups of the locked runs
    END IF;
  EXCEPTION
    WHEN deadlock_detected OR serialization_failure OR query_canceled OR lock_not_available
         OR admin_shutdown OR crash_shutdown OR cannot_connect_now OR insufficient_resources OR disk_full
         OR out_of_memory THEN
      RAISE;
    WHEN OTHERS THEN
      IF n = 1 THEN
        INSERT INTO ingest_errors (raw_table, raw_id, instance_id, event_type, reason)
        VALUES (p_table, p_ids[1],
                CASE WHEN jsonb_typeof(p_data[1]) = 'object' THEN left(p_data[1] ->> 'instanceId', 255) END,
                CASE WHEN jsonb_typeof(p_data[1]) = 'object' THEN left(p_data[1] ->> 'eventType', 255) END,
                format('normalizer error %s: %s', SQLSTATE, SQLERRM));
      ELSE
        half := n / 2;
        PERFORM apply_events(p_table, p_ids[1:half], p_data[1:half]);
        PERFORM apply_events(p_table, p_ids[half + 1:n], p_data[half + 1:n]);
      END IF;
  END;
END
$$;

