-- Workflow Index, PostgreSQL schema v2: delivery-proof ingestion.
--
-- Tables and grants only. The normalizer itself (functions and triggers) lives in server/postgresql/normalizer/,
-- one rule per file; the migrator applies those definitions after the versioned migrations, in the same
-- transaction, and rebuilds every normalized row from the raw tables whenever they change (here: the event
-- identity no longer contains the record time, so stored task events and executions are recomputed).

-- Raw events are kept verbatim (json is the text as written): a record jsonb cannot hold (a `\u0000` escape)
-- is stored and recorded in ingest_errors instead of failing the whole Fluent Bit statement.
ALTER TABLE workflow_raw.workflow_events_raw ALTER COLUMN data TYPE JSON USING data::JSON;
ALTER TABLE workflow_raw.task_events_raw ALTER COLUMN data TYPE JSON USING data::JSON;

-- v1 normalizer functions whose signatures change (they took the record time); their replacements and the
-- triggers come from the normalizer definitions.
DROP TRIGGER normalize_workflow_events ON workflow_raw.workflow_events_raw;
DROP TRIGGER normalize_task_events ON workflow_raw.task_events_raw;
DROP FUNCTION workflow_index.normalize_raw_batch();
DROP FUNCTION workflow_index.apply_events(TEXT, BIGINT[], JSONB[], TIMESTAMPTZ[]);
DROP FUNCTION workflow_index.parse_events(BIGINT[], JSONB[], TIMESTAMPTZ[]);
DROP FUNCTION workflow_index.task_position_executions(TEXT[], TEXT[]);
DROP FUNCTION workflow_index.parse_event_time(JSONB);  -- now (JSONB, DOUBLE PRECISION): JSON numbers are read as doubles

-- Task events are identified by their own content (045-event-identity.sql), not by the record time.
DROP TABLE workflow_index.task_events;
CREATE TABLE workflow_index.task_events (
  instance_id    TEXT COLLATE "C" NOT NULL,
  task_position  TEXT COLLATE "C" NOT NULL,
  event_time     TIMESTAMPTZ NOT NULL,
  event_kind     TEXT COLLATE "C" NOT NULL,  -- started | retried | suspended | resumed | completed | faulted | cancelled
  content_hash   BIGINT NOT NULL,            -- task name, status, input, output, error
  task_name      TEXT COLLATE "C" NOT NULL,
  status         TEXT COLLATE "C",
  at_time        TIMESTAMPTZ NOT NULL,       -- startTime / endTime, else timestamp
  has_input      BOOLEAN NOT NULL,
  input          JSONB,
  has_output     BOOLEAN NOT NULL,
  output         JSONB,
  has_error      BOOLEAN NOT NULL,
  error_type     TEXT,
  error_title    TEXT,
  error_detail   TEXT,
  error_status   INTEGER,
  error_instance TEXT,
  raw_id         BIGINT,                     -- the first raw row that carried it
  PRIMARY KEY (instance_id, task_position, event_time, event_kind, content_hash)
);

-- The forwarder writes (tag, time, data) and nothing else: the identity column is the database's, so a login
-- cannot choose raw ids (which would inflate the ingestion metrics and collide with the next real flush).
REVOKE INSERT ON workflow_raw.workflow_events_raw, workflow_raw.task_events_raw FROM workflow_index_forwarder;
GRANT INSERT (tag, time, data) ON workflow_raw.workflow_events_raw, workflow_raw.task_events_raw TO workflow_index_forwarder;
