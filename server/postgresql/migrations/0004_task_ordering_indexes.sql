-- Workflow Index, PostgreSQL schema v4: the task-execution orderings by taskName and status, which 0003 left
-- unindexed, are read from an index too, in both directions, with `id` ascending as the tie-breaker (CONTRACT §2
-- "Ordering"; issue 11: no ordering the API offers sorts the table).
--
-- Low-cardinality text: the id order inside one value is what a page needs, and a btree read backwards reverses
-- it, so each direction has its own index (as 0003 does for the instances' name and status).
--
-- Ingest cost (task_executions is written about ten times as often as the instances): the two
-- (column, start_time DESC) indexes of 0001 are replaced by the (column, id) ones, so the table carries two more
-- indexes, not four. A name or status filter ordered by start time is served by the start index instead (the
-- filter is checked on the rows it reads: a page of 20 reads about 20 / selectivity of them), and a name filter
-- with a time range by the start index's range.
--
-- taskPosition stays unindexed for ordering on purpose: an index led by task_position competes with
-- (instance_id, task_position) for the normalizer's per-position lookup, and on a table whose statistics are
-- older than its rows (a fresh install filling up, before autovacuum analyzes it) the planner took it, scanning a
-- whole position per event: bench:ingest went from 0.22 to 0.05-0.08 of its floor. The tasks of one run (the
-- usual position order) are few and sorted in memory.
DROP INDEX workflow_index.task_executions_name_start_idx;
DROP INDEX workflow_index.task_executions_status_idx;
CREATE INDEX task_executions_name_idx ON workflow_index.task_executions (task_name, id);
CREATE INDEX task_executions_name_desc_idx ON workflow_index.task_executions (task_name DESC NULLS LAST, id);
CREATE INDEX task_executions_status_id_idx ON workflow_index.task_executions (status, id);
CREATE INDEX task_executions_status_desc_idx ON workflow_index.task_executions (status DESC NULLS LAST, id);
