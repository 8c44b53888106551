-- Workflow Index, PostgreSQL schema v3: every ordering the API offers is read from an index, in both directions,
-- with `id` ascending as the tie-breaker and nulls last (CONTRACT §2 "Ordering").
--
-- Tables and indexes only. Fewer, better indexes (every one is paid on each normalized write):
--  - Timestamps: one index each, (t DESC NULLS LAST, id). It serves newest-first directly; oldest-first reads it
--    backwards (t ASC NULLS FIRST, id DESC) for the rows that have a time, where the reader orders by
--    `t ASC NULLS FIRST, id` so an incremental sort puts the (rare) equal times in id order, and the rows without a
--    time come from the same index's null range (id ascending) after them. Equal timestamps are rare, so the
--    incremental sort never holds more than a handful of rows.
--  - Low-cardinality text (name, status): the id order inside one value is what a page needs, and a btree read
--    backwards reverses it, so each direction has its own index.
--  - The instance indexes but last_update's hold served rows only (WHERE started_event_time IS NOT NULL, the
--    reader's condition on every query): placeholders cost no index work, and a deep offset is counted by an index-only scan (the reader
--    skips on the index and reads only the page's rows).
--  - Not indexed for ordering: namespace and version of instances, and taskName, taskPosition and status of task
--    executions (the table written ten times as often: four more indexes on it cost 15-25 % of ingest throughput in
--    bench:ingest); those orderings sort the matching rows.

-- Instances -------------------------------------------------------------------------------------------------
DROP INDEX workflow_index.workflow_instances_start_idx;
DROP INDEX workflow_index.workflow_instances_status_start_idx;
DROP INDEX workflow_index.workflow_instances_end_idx;
DROP INDEX workflow_index.workflow_instances_last_update_idx;
-- (name, start_time DESC) served name filters ordered by start; (name, id) serves the same filters (the start
-- index with a name filter, or the few matches sorted) and the name ordering.
DROP INDEX workflow_index.workflow_instances_name_idx;
CREATE INDEX workflow_instances_start_idx ON workflow_index.workflow_instances (start_time DESC NULLS LAST, id)
  WHERE started_event_time IS NOT NULL;
CREATE INDEX workflow_instances_end_idx ON workflow_index.workflow_instances (end_time DESC NULLS LAST, id)
  WHERE started_event_time IS NOT NULL;
-- Not partial: workflow_index.ingest_stats() reads max(last_update) over all rows (placeholders included) from it.
CREATE INDEX workflow_instances_last_update_idx ON workflow_index.workflow_instances (last_update DESC NULLS LAST, id);
-- The status filter of a newest-first page.
CREATE INDEX workflow_instances_status_start_idx ON workflow_index.workflow_instances (status, start_time DESC NULLS LAST, id)
  WHERE started_event_time IS NOT NULL;
CREATE INDEX workflow_instances_name_idx ON workflow_index.workflow_instances (name, id)
  WHERE started_event_time IS NOT NULL;
CREATE INDEX workflow_instances_name_desc_idx ON workflow_index.workflow_instances (name DESC NULLS LAST, id)
  WHERE started_event_time IS NOT NULL;
CREATE INDEX workflow_instances_status_id_idx ON workflow_index.workflow_instances (status, id)
  WHERE started_event_time IS NOT NULL;
CREATE INDEX workflow_instances_status_desc_idx ON workflow_index.workflow_instances (status DESC NULLS LAST, id)
  WHERE started_event_time IS NOT NULL;

-- Task executions -------------------------------------------------------------------------------------------
CREATE INDEX task_executions_end_idx ON workflow_index.task_executions (end_time DESC NULLS LAST, id);
