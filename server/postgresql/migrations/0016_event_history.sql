-- Workflow Index, PostgreSQL schema: a run's event history (WorkflowInstance.events, CONTRACT §9).
--
-- The reader serves every event the index holds for a run: the accepted ones from the event store
-- (workflow_index.events for workflow events, workflow_index.task_events for task events, both keyed by the run
-- first) and the rejected ones from workflow_index.ingest_errors, with the text of the raw row each refers to while
-- retention keeps it (looked up by the raw table's primary key). Rejections are found by their run: an index on
-- instance_id, which ingest_errors had not (its indexes serve retention: created_at, and (raw_table, raw_id)).
CREATE INDEX ingest_errors_instance_idx ON workflow_index.ingest_errors (instance_id);

-- The reader role keeps SELECT on the normalized tables only (roles.test.ts): it reads the history through this
-- function, as it reads ingestion health through ingest_stats(), and can read no other row of these tables.
-- Stored texts are returned as text: an accepted event's document as jsonb prints it — the text the server serves —
-- only when asked for (with_documents: the request selects `data`), and always the fields the server orders by
-- (eventType, the timestamp's JSON text, taskPosition, taskName) and the digest of that text, so the server neither
-- receives nor parses documents it does not serve; a rejected event's raw `json` as written (which jsonb could not
-- always hold; the server reads it whole). The server derives the served fields and the order
-- (server/core/src/event-record.ts), as it does on OpenSearch.
CREATE OR REPLACE FUNCTION workflow_index.events_of_instances(ids TEXT[], with_documents BOOLEAN)
RETURNS TABLE (instance_id TEXT, accepted BOOLEAN, document TEXT, digest TEXT, event_type TEXT, event_timestamp TEXT,
               task_position TEXT, task_name TEXT, reason TEXT)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT s.instance_id, true, CASE WHEN with_documents THEN s.document::text END,
         left(encode(sha256(convert_to(s.document::text, 'UTF8')), 'hex'), 32),
         CASE WHEN jsonb_typeof(s.document -> 'eventType') = 'string' THEN s.document ->> 'eventType' END,
         (s.document -> 'timestamp')::text,
         CASE WHEN jsonb_typeof(s.document -> 'taskPosition') = 'string' THEN s.document ->> 'taskPosition' END,
         CASE WHEN jsonb_typeof(s.document -> 'taskName') = 'string' THEN s.document ->> 'taskName' END,
         NULL::text
    FROM (SELECT e.instance_id, e.document FROM workflow_index.events e WHERE e.instance_id = ANY(ids) AND e.kind = 'workflow'
          UNION ALL
          SELECT t.instance_id, t.document FROM workflow_index.task_events t WHERE t.instance_id = ANY(ids)) s
  UNION ALL
  SELECT x.instance_id, false, coalesce(w.data::text, k.data::text), NULL, x.event_type, NULL, NULL, NULL, x.reason
    FROM workflow_index.ingest_errors x
    LEFT JOIN workflow_raw.workflow_events_raw w ON x.raw_table = 'workflow_events_raw' AND w.id = x.raw_id
    LEFT JOIN workflow_raw.task_events_raw k ON x.raw_table = 'task_events_raw' AND k.id = x.raw_id
    WHERE x.instance_id = ANY(ids)
$$;
REVOKE ALL ON FUNCTION workflow_index.events_of_instances(TEXT[], BOOLEAN) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION workflow_index.events_of_instances(TEXT[], BOOLEAN) TO workflow_index_reader;
