-- bench:ingest --ceiling store-only, bench:trigger-cpu --b-ceiling store-only: what any delivery-proof normalizer must
-- do at least (docs/benchmarks.md, "The ceiling of a trigger normalizer"). Replaces apply_events
-- (normalizer/080-apply-events.sql) with its first statement cut down to: parse the flush, record the rejected events,
-- and keep each accepted event once in the event store (workflow events in events, task events in task_events, with
-- their keys and ON CONFLICT). No run rows, no placeholders, no executions. Never installed anywhere but a benchmark
-- database; taken from 080-apply-events.sql as it stood when written.
CREATE OR REPLACE FUNCTION workflow_index.apply_events(p_table TEXT, p_ids BIGINT[], p_data JSONB[]) RETURNS VOID
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  c BIGINT;
BEGIN
    WITH parsed AS MATERIALIZED (
      -- A run deleted by instance retention stays deleted: its late events are ignored (pruned_instances).
      SELECT p.*, EXISTS (SELECT 1 FROM pruned_instances t WHERE t.id = p.instance_id) AS pruned
      FROM parse_events(p_ids, p_data) p
    ), accepted AS NOT MATERIALIZED (
      SELECT * FROM parsed p WHERE p.reason IS NULL AND NOT p.pruned
    ), identified AS (
      SELECT a.instance_id, a.raw_id, stored_event_document(a.document) AS document,
             hashtextextended(jsonb_build_array('workflow', a.action, epoch_us(a.ts), a.namespace, a.name, a.version, a.status,
                      a.terminal, a.rank, epoch_us(a.start_time), epoch_us(a.end_time), a.input_rank, a.input, a.has_output,
                      a.output, a.has_error, a.error_type, a.error_title, a.error_detail, a.error_status, a.error_instance)::TEXT, 0)
               AS identity_hash
      FROM accepted a
      WHERE a.kind = 'workflow'
    ), kept AS (
      -- One row per identity (a re-delivery is already stored: nothing to do), the first raw id.
      INSERT INTO events AS e (instance_id, identity_hash, kind, raw_table, raw_id, document)
      SELECT DISTINCT ON (i.instance_id, i.identity_hash) i.instance_id, i.identity_hash, 'workflow', p_table, i.raw_id, i.document
      FROM identified i
      ORDER BY i.instance_id, i.identity_hash, i.raw_id
      ON CONFLICT (instance_id, identity_hash) DO NOTHING
    ), rejected AS (
      INSERT INTO ingest_errors (raw_table, raw_id, instance_id, event_type, reason)
      SELECT p_table, raw_id, left(instance_id, 255), left(event_type, 255), reason FROM parsed WHERE reason IS NOT NULL
    ), stored AS (
      -- task_events is also the task events' store (048-event-store.sql): the document as given, the raw table and
      -- id of the first delivery. One row per identity within the flush (an ON CONFLICT DO UPDATE may not touch a
      -- row twice): the greatest payload, the first raw id.
      INSERT INTO task_events (instance_id, task_position, event_time, event_kind, task_name, status, at_time,
                               has_input, input, has_output, output, has_error,
                               error_type, error_title, error_detail, error_status, error_instance, raw_id, content_hash,
                               raw_table, document)
      SELECT DISTINCT ON (p.instance_id, p.task_position, p.ts, p.action, p.content_hash)
             p.instance_id, p.task_position, p.ts, p.action, p.task_name, p.task_status, p.at_time,
             p.input IS NOT NULL, p.input, p.has_output, p.output, p.has_error,
             p.error_type, p.error_title, p.error_detail, p.error_status, p.error_instance,
             min(p.raw_id) OVER (PARTITION BY p.instance_id, p.task_position, p.ts, p.action, p.content_hash), p.content_hash,
             p_table, stored_event_document(p.document)
      FROM accepted p
      WHERE p.kind = 'task'
      ORDER BY p.instance_id, p.task_position, p.ts, p.action, p.content_hash,
               coalesce(p.input, 'null'::JSONB) DESC, coalesce(p.output, 'null'::JSONB) DESC, p.raw_id
      -- The same event delivered again is already stored and changes nothing (045-event-identity.sql). A writer that
      -- printed its numbers differently (0.3 for 0.30000000000000004) delivers the same event too: of the two
      -- spellings the greater payload is kept (with its document), so the served payload does not depend on which
      -- arrived first.
      ON CONFLICT (instance_id, task_position, event_time, event_kind, content_hash) DO UPDATE
        SET input = EXCLUDED.input, output = EXCLUDED.output, document = EXCLUDED.document
        WHERE (coalesce(EXCLUDED.input, 'null'::JSONB), coalesce(EXCLUDED.output, 'null'::JSONB))
            > (coalesce(task_events.input, 'null'::JSONB), coalesce(task_events.output, 'null'::JSONB))
      RETURNING task_events.instance_id, task_events.task_position
    )
    SELECT count(*) INTO c FROM stored;
END
$$;
