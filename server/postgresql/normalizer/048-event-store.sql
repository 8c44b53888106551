-- ------------------------------------------------------------------------------------------------
-- The event store (workflow_index.events): every event the normalizer accepted, once per identity, for ever (only
-- instance retention deletes from it). The raw tables are an inbox with retention; rebuild_normalized() replays
-- this store, so deleting raw events never changes a served row. apply_events (080) writes it in the same
-- statement that applies the events.
--
-- Identity (the hash is the primary key with the instance id):
--  * task events: the contract's identity (045-event-identity.sql), exactly task_events' key: position, timestamp,
--    kind and the content hash. Of two spellings of one event the one with the greater payload is kept (the rule
--    task_events applies), with the first delivery's raw id.
--  * workflow events: every field the instance merge (080) reads, exactly. The merge needs no identity (a second
--    delivery is simply not greater), but it does read fields the contract's identity leaves out (workflowName,
--    startTime, …); keeping every distinct reading makes the replay give the very same rows.
-- Timestamps enter as epoch microseconds (never as text: that would depend on the session's TimeZone).
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.epoch_us(t TIMESTAMPTZ) RETURNS NUMERIC
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT trunc(extract(epoch FROM t) * 1000000) $$;

-- What the store keeps of a raw record: the producer's event, without the fields a forwarder adds (the same list
-- the identity rule ignores, plus our Fluent Bit time key). Nothing the normalizer reads is removed.
CREATE OR REPLACE FUNCTION workflow_index.stored_event_document(d JSONB) RETURNS JSONB
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT d - ARRAY['wi_record_time', 'kubernetes', 'stream', '_p', 'logtag', 'time', '@timestamp'] $$;

-- The payload a task event contributes to task_events, in the order task_events keeps the greater one by: the
-- input of a start or fault, the output of a completion (as parse_events reads them).
CREATE OR REPLACE FUNCTION workflow_index.stored_task_payload(d JSONB) RETURNS JSONB
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT jsonb_build_array(
    coalesce(CASE WHEN a.action IN ('started', 'faulted') THEN nullif(d -> 'input', 'null'::JSONB) END, 'null'::JSONB),
    coalesce(CASE WHEN a.action = 'completed' THEN nullif(d -> 'output', 'null'::JSONB) END, 'null'::JSONB))
  FROM (SELECT substring(d ->> 'eventType' FROM '(?:^|\.)task\.([a-z-]+)\.v[0-9]+$') AS action) a
$$;
