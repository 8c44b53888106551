-- ------------------------------------------------------------------------------------------------
-- The event store: every event the normalizer accepted, once per identity, for ever (only instance retention
-- deletes from it). The raw tables are an inbox with retention; rebuild_normalized() replays this store, so
-- deleting raw events never changes a served row. apply_events (080) writes it in the same statement that applies
-- the events. Two tables, each event in one of them:
--  * task events: workflow_index.task_events, the normalizer's own store of their parsed fields (the input of the
--    per-position recomputation), which also keeps the document and the raw table of the first delivery. Its key
--    is the contract's identity (045-event-identity.sql): position, timestamp, kind and the content hash. Of two
--    spellings of one event (numbers printed differently) the first delivery is kept, payloads as delivered. (Until
--    migration 0013 they were also written to workflow_index.events: every task event stored twice per flush.)
--  * workflow events: workflow_index.events, keyed by (instance id, a hash of every field the instance merge (080)
--    reads, payload numbers canonical). It reads fields the contract's identity leaves out (workflowName,
--    startTime, …); keeping every distinct reading makes the replay give the very same rows. The merge reads only
--    the events a flush newly stores, so of two spellings of one event the first delivery's is served.
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

-- (Task events' payloads are compared on task_events' own columns since migration 0013.)
DROP FUNCTION IF EXISTS workflow_index.stored_task_payload(JSONB);
