-- bench:ingest --ceiling parse-only, bench:trigger-cpu --b-ceiling parse-only: the ceiling of any normalizing trigger (docs/benchmarks.md,
-- PostgreSQL, "Ingest", "The ceiling"). Replaces apply_events (normalizer/080-apply-events.sql) on side B with a body that parses the
-- flush as the real one does (parse_events with every column evaluated, the retention check, one materialized pass)
-- and writes nothing: no event store, no run rows, no executions. Never installed anywhere but a benchmark database.
CREATE OR REPLACE FUNCTION workflow_index.apply_events(p_table TEXT, p_ids BIGINT[], p_data JSONB[]) RETURNS VOID
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  c BIGINT;
BEGIN
  WITH parsed AS MATERIALIZED (
    SELECT p.*, EXISTS (SELECT 1 FROM pruned_instances t WHERE t.id = p.instance_id) AS pruned
    FROM parse_events(p_ids, p_data) p
  )
  -- A whole-row test, so every column of the parse is computed.
  SELECT count(*) INTO c FROM parsed WHERE parsed IS NOT NULL OR parsed.document IS NOT NULL;
END
$$;
