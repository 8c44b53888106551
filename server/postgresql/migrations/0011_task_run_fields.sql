-- Workflow Index, PostgreSQL schema: the run's workflow namespace, name and version on its task executions (issue 9,
-- "faulted chargeCard tasks of payment-capture this week" is one query). Task filters on workflowName /
-- workflowNamespace / workflowVersion read the task row's own columns and an index, instead of looking up the run of
-- every task (bench:query at 100,000 runs: 0.3-0.8 s per count or page by workflowName + taskName; at 1,000,000 the
-- exact count ran into its timeout). The OpenSearch task documents carry the same fields.
--
-- The normalizer keeps them equal to the run's namespace, name and version (normalizer/080-apply-events.sql): NULL
-- while the run is a placeholder (no workflow.started: its namespace, name and version are NULL too), so a filter on
-- a run field never matches a task the reader does not serve.
--
-- Backfill: none here, on purpose. This release changes the normalizer definitions, and the same `migrate` re-applies
-- them and rebuilds every normalized row from the event store in the same transaction (migrator.ts,
-- normalizer/110-rebuild.sql): its TRUNCATE discards whatever an UPDATE here had written, and the replay fills the
-- columns with the new rule. Nothing reads the table between the two (one transaction). The columns are nullable
-- without a default: adding them changes the catalog only, and the indexes below are built on the table before the
-- rebuild empties it (bounded by the rows there are; their entries are then written by the replay).
ALTER TABLE workflow_index.task_executions
  ADD COLUMN workflow_namespace TEXT COLLATE "C",
  ADD COLUMN workflow_name TEXT COLLATE "C",
  ADD COLUMN workflow_version TEXT COLLATE "C";

-- - Tasks of one workflow and task name: their count (index-only) and their pages newest first or in a time range.
CREATE INDEX task_executions_run_name_task_idx ON workflow_index.task_executions
  (workflow_name, task_name, start_time DESC NULLS LAST, id);
-- - Faulted tasks of one workflow (and task name), newest first or in a time range: partial like 0010, so it costs
--   ingest nothing for the tasks that complete. A workflow name alone reads all of that workflow's faulted entries
--   (the time range checked in the index) and sorts the matches.
CREATE INDEX task_executions_run_name_faulted_idx ON workflow_index.task_executions
  (workflow_name, task_name, start_time DESC NULLS LAST, id) WHERE status = 'FAULTED';
