-- Workflow Index, PostgreSQL schema: the write time of normalized rows, indexed.
--
-- A server reading from a streaming standby cannot LISTEN (NOTIFY is not replicated), so its live-update feed polls
-- for the runs written since its last look: workflow_instances.updated_at and task_executions.updated_at newer than a
-- stamp (server/postgresql/src/standby-change-poll.ts). Without an index each poll read both tables whole, once a
-- second while WAL was being replayed and someone was subscribed; with these it reads the rows written since.
--
-- Write cost: every update of these rows already changes an indexed column (none is HOT), so each row version adds
-- one entry here. Measured with bench:trigger-cpu (backend CPU per flush of 1,000 events, this file's migrations as
-- B against the release without it, 6 ABBA pairs, load 0.7): workflow flushes B/A 0.996 (0.965–1.032), task flushes
-- 1.01 (1.003–1.04).
CREATE INDEX workflow_instances_updated_idx ON workflow_index.workflow_instances (updated_at);
CREATE INDEX task_executions_updated_idx ON workflow_index.task_executions (updated_at);
