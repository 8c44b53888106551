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
-- Through `AT TIME ZONE 'UTC'` (the same value): extract() of a timestamptz is only STABLE, and a function declared
-- IMMUTABLE whose body is not is never inlined, so it ran as its own SQL-function call for every event.
CREATE OR REPLACE FUNCTION workflow_index.epoch_us(t TIMESTAMPTZ) RETURNS NUMERIC
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT trunc(extract(epoch FROM t AT TIME ZONE 'UTC') * 1000000) $$;

-- What the store keeps of a raw record: the producer's event, without the fields a forwarder adds (the same list
-- the identity rule ignores, plus our Fluent Bit time key). Nothing the normalizer reads is removed.
CREATE OR REPLACE FUNCTION workflow_index.stored_event_document(d JSONB) RETURNS JSONB
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT d - ARRAY['wi_record_time', 'kubernetes', 'stream', '_p', 'logtag', 'time', '@timestamp'] $$;

-- The payload a task event contributes to task_events, in the order task_events keeps the greater one by: the
-- input of a start or fault, the output of a completion (as parse_events reads them). A single expression (no FROM),
-- so it is inlined into the event store's conflict check.
CREATE OR REPLACE FUNCTION workflow_index.stored_task_payload(d JSONB) RETURNS JSONB
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT jsonb_build_array(
    coalesce(CASE WHEN workflow_index.event_type_suffix(d ->> 'eventType') IN ('{task,started}', '{task,faulted}')
                  THEN nullif(d -> 'input', 'null'::JSONB) END, 'null'::JSONB),
    coalesce(CASE WHEN workflow_index.event_type_suffix(d ->> 'eventType') = '{task,completed}'
                  THEN nullif(d -> 'output', 'null'::JSONB) END, 'null'::JSONB))
$$;
