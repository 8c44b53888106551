-- Workflow Index, PostgreSQL schema: the failure queries of the console read from small indexes (issues 9 and 11).
-- "Runs where validateOrder faulted" (instance filter taskExecutions), "faulted tasks of payment-capture this week"
-- (task filters workflowName + status + time range) and "how many chargeCard tasks faulted"
-- (countTaskExecutions) all name status FAULTED. Without these indexes they read the (status, id) index of every
-- faulted task and join, or walk the start-time index checking every run's tasks (bench:query at 100,000 runs:
-- 28-37 ms per page of runs where a task faulted, a parallel plan).
--
-- Partial on status = 'FAULTED': only faulted task executions have entries, so they cost ingest nothing for the
-- tasks that complete (a task row's status change is not a HOT update anyway: status is indexed by 0004) and stay a
-- small fraction of the table. The reader binds the status as a parameter; node-postgres sends unnamed statements,
-- which PostgreSQL plans for their values, so a partial index matches. Another status is served by the indexes of
-- 0003/0004 as before.
--
-- - Faulted tasks newest first, or in a time range (with a run's name checked on its primary key).
CREATE INDEX task_executions_faulted_start_idx ON workflow_index.task_executions (start_time DESC NULLS LAST, id)
  INCLUDE (instance_id, task_name) WHERE status = 'FAULTED';
-- - Faulted tasks of one name: their count (index-only, instance_id for the placeholder check) and their list.
CREATE INDEX task_executions_faulted_name_idx ON workflow_index.task_executions (task_name, start_time DESC NULLS LAST, id)
  INCLUDE (instance_id) WHERE status = 'FAULTED';
-- - Runs where a task faulted: the runs are read newest first and each one's faulted tasks looked up here
--   (index-only, usually no entry) instead of among all its tasks.
CREATE INDEX task_executions_faulted_instance_idx ON workflow_index.task_executions (instance_id)
  INCLUDE (task_name) WHERE status = 'FAULTED';
