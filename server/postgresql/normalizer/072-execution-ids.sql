-- ------------------------------------------------------------------------------------------------
-- Task execution ids (CONTRACT.md §2 "Task execution ids"): the first execution at a position is
-- `<instanceId>:<taskPosition>`, a later one `<instanceId>:<taskPosition>@<start µs>` (`#<n>` after it when
-- executions of the position share that instant). Taken literally the format gives two executions one id when a
-- position holds `@`: position `p`'s execution starting at T and position `p@T`'s first execution are both
-- `<instanceId>:p@T` (PostgreSQL refused the second one's flush, its event went to ingest_errors; OpenSearch
-- overwrote one document with the other). So the position is escaped in ids: `%` → `%25`, `@` → `%40`. The instance
-- id needs nothing: one holding `:` is refused for task events (050-parse-events.sql), so the first `:` of an id
-- ends the instance id, and the first `@` after it starts the repeat suffix: no two executions share an id. Ids
-- whose position has neither character (every id Quarkus Flow prints: JSON Pointer positions) are exactly the
-- contract's. The OpenSearch normalizer builds the same ids (server/opensearch/src/execution-ids.ts).
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.execution_id_base(p_instance_id TEXT, p_task_position TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
  SELECT p_instance_id || ':' || replace(replace(p_task_position, '%', '%25'), '@', '%40')
$$;
