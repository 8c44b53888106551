-- Workflow Index, PostgreSQL schema: `orderBy: {duration: ASC}` read from an index too (issue 9).
--
-- 0006 gave each table one (duration_us DESC NULLS LAST, id) index and the reader read it backwards for the
-- ascending order, as for the timestamps. That only works for nearly unique keys: a backward scan delivers equal
-- durations in id DESC order and an incremental sort must reorder each group, and durations repeat a lot (every run
-- of a fast workflow takes about as long). So each direction gets its own index, as name and status have (0003).
CREATE INDEX workflow_instances_duration_asc_idx ON workflow_index.workflow_instances (duration_us ASC NULLS LAST, id)
  WHERE started_event_time IS NOT NULL;
CREATE INDEX task_executions_duration_asc_idx ON workflow_index.task_executions (duration_us ASC NULLS LAST, id);
