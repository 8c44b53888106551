-- Workflow Index, PostgreSQL schema: each task event is stored once (issue 11, ingest cost).
--
-- Until now every accepted task event was written twice in the flush that brought it: into the event store
-- (workflow_index.events, the document, for rebuilds) and into the normalizer's workflow_index.task_events (the
-- parsed fields the per-position recomputation reads), under the same identity. task_events now keeps the document
-- and the raw table of the first delivery too, and is the task events' store: workflow_index.events holds the
-- workflow events. rebuild_normalized() replays both stores (normalizer/110-rebuild.sql).
--
-- Data: each stored task event's document moves to its task_events row (matched by the identity hash the event
-- store used for it) and leaves workflow_index.events. A task_events row without a stored event cannot exist (both
-- were written by the same statement); were there one, the rebuild that follows (the definitions change too) would
-- drop it anyway, as it always did, so it is deleted here.
ALTER TABLE workflow_index.task_events ADD COLUMN raw_table TEXT COLLATE "C", ADD COLUMN document JSONB;

WITH moved AS (
  UPDATE workflow_index.task_events t
  SET raw_table = e.raw_table, raw_id = e.raw_id, document = e.document
  FROM workflow_index.events e
  WHERE e.instance_id = t.instance_id AND e.kind = 'task'
    AND e.identity_hash = hashtextextended(jsonb_build_array('task', t.task_position,
          trunc(extract(epoch FROM t.event_time AT TIME ZONE 'UTC') * 1000000), t.event_kind, t.content_hash)::TEXT, 0)
  RETURNING e.instance_id, e.identity_hash
)
DELETE FROM workflow_index.events e USING moved m
WHERE e.instance_id = m.instance_id AND e.identity_hash = m.identity_hash;

DELETE FROM workflow_index.task_events WHERE document IS NULL;
ALTER TABLE workflow_index.task_events ALTER COLUMN raw_table SET NOT NULL, ALTER COLUMN document SET NOT NULL;
