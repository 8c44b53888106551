-- Workflow Index, PostgreSQL schema: durations (issue 9). `durationMs` is served, filtered and sorted on both
-- normalized tables; the order `{duration: DESC}` ("the slowest runs") is read from an index like every other
-- ordering the API offers.
--
-- duration_us = end_time − start_time in whole microseconds (both are stored with microsecond precision, so it is
-- exact), NULL while either is missing (a running row). A stored generated column: the normalizer's writes stay as
-- they are (PostgreSQL computes it on every insert and update), and the ordering and the filters compare a plain
-- BIGINT. extract(epoch FROM interval) is numeric since PostgreSQL 14: no rounding.
--
-- Cost: adding a stored column rewrites both tables once, under an exclusive lock (about a second per 100 000
-- instances with their tasks on the bench machine); run the upgrade's init job when a short pause of ingestion and
-- queries is acceptable. On ingest, one more index per table (tasks: bench:ingest measures it).
ALTER TABLE workflow_index.workflow_instances
  ADD COLUMN duration_us BIGINT GENERATED ALWAYS AS ((extract(epoch FROM end_time - start_time) * 1000000)::BIGINT) STORED;
ALTER TABLE workflow_index.task_executions
  ADD COLUMN duration_us BIGINT GENERATED ALWAYS AS ((extract(epoch FROM end_time - start_time) * 1000000)::BIGINT) STORED;

-- (duration DESC NULLS LAST, id), as the timestamps (0003): newest-first reads it forwards, the ascending order
-- backwards; instances' holds served rows only, like their other ordering indexes.
CREATE INDEX workflow_instances_duration_idx ON workflow_index.workflow_instances (duration_us DESC NULLS LAST, id)
  WHERE started_event_time IS NOT NULL;
CREATE INDEX task_executions_duration_idx ON workflow_index.task_executions (duration_us DESC NULLS LAST, id);
