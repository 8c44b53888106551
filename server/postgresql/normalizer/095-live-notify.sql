-- ------------------------------------------------------------------------------------------------
-- notify_instances_changed: tells the servers' live updates (docs/live-updates.md) which runs a flush touched, on
-- channel workflow_index_changes: ONE notification per flush, its payload the JSON array of the distinct instance ids
-- of the flush's events, delivered when the flush commits (never for one that rolls back), so a server reading the
-- runs on receipt reads what queries serve. PostgreSQL refuses payloads of 8,000 bytes or more: a longer list is
-- split into as many arrays of at most 7,900 bytes as it takes (about 200 UUID-sized ids each). An id is named
-- whether or not its events changed the run (a duplicate delivery, a rejected event): the servers read the run again
-- and push its state, which is then the same. Ids longer than the normalizer accepts (255) are left out.
-- Only the triggers call it (090-triggers.sql): rebuild_normalized() replays through apply_events and notifies nothing.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.notify_instances_changed(p_ids TEXT[]) RETURNS VOID
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  chunk TEXT := '';
  item TEXT;
BEGIN
  FOR item IN
    SELECT to_json(d.id)::TEXT FROM (SELECT DISTINCT u.id FROM unnest(p_ids) AS u(id) WHERE u.id IS NOT NULL AND length(u.id) <= 255) d ORDER BY 1
  LOOP
    IF chunk <> '' AND octet_length(chunk) + octet_length(item) + 3 > 7900 THEN
      PERFORM pg_notify('workflow_index_changes', '[' || chunk || ']');
      chunk := '';
    END IF;
    chunk := CASE WHEN chunk = '' THEN item ELSE chunk || ',' || item END;
  END LOOP;
  IF chunk <> '' THEN
    PERFORM pg_notify('workflow_index_changes', '[' || chunk || ']');
  END IF;
END
$$;
