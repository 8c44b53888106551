-- Workflow Index, PostgreSQL schema: a run's event history (WorkflowInstance.events, CONTRACT §9).
--
-- The reader serves every event the index holds for a run: the accepted ones from the event store
-- (workflow_index.events for workflow events, workflow_index.task_events for task events, both keyed by the run
-- first) and the rejected ones from workflow_index.ingest_errors, with the raw row each refers to while retention
-- keeps it (looked up by the raw table's primary key). Rejections are found by their run: an index on instance_id,
-- which ingest_errors had not (its indexes serve retention: created_at, and (raw_table, raw_id)).
CREATE INDEX ingest_errors_instance_idx ON workflow_index.ingest_errors (instance_id);

-- The reader login reads what it serves, and nothing it could change: SELECT on the stores and the rejections, and on
-- the raw tables for the text of a rejected event (SELECT … FOR UPDATE/SHARE still needs UPDATE, which it has not).
GRANT SELECT ON workflow_index.events, workflow_index.task_events, workflow_index.ingest_errors TO workflow_index_reader;
GRANT USAGE ON SCHEMA workflow_raw TO workflow_index_reader;
GRANT SELECT ON workflow_raw.workflow_events_raw, workflow_raw.task_events_raw TO workflow_index_reader;
