-- ------------------------------------------------------------------------------------------------
-- Event identity (CONTRACT, rules both backends share): an event is identified by its own fields, the ones the
-- producer defines and the normalization reads. The record time and whatever a forwarder adds (its time key,
-- `kubernetes`, `stream`, `_p`, `logtag`, `@timestamp`) never count, so delivering an event again, by any path
-- and with any record time, changes nothing.
--
-- Workflow events need no stored identity: each instance field is the greatest event under a fixed order of
-- their content (080-apply-events.sql), so a second delivery of an event is simply not greater.
-- Task events are stored once in workflow_index.task_events under (instance, position, event time, kind,
-- content hash); the hash covers the rest of what the normalization reads: task name, status, input, output,
-- error (JSON values in jsonb's canonical text: key order and escaping do not matter; null and absent are the
-- same). Two byte-identical event lines are one event: a millisecond-precision producer that prints two equal
-- started events of two loop iterations in one millisecond, without payloads, cannot be told apart by anyone;
-- keeping the record time to tell them apart is what made every re-delivery a duplicate.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.task_event_content_hash(task_name TEXT, status TEXT, input JSONB, output JSONB, error JSONB)
RETURNS BIGINT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT hashtextextended(concat(task_name, chr(31), coalesce(status, chr(30)), chr(31), coalesce(input::TEXT, chr(30)), chr(31),
                                 coalesce(output::TEXT, chr(30)), chr(31), coalesce(nullif(error, 'null'::JSONB)::TEXT, chr(30))), 0)
$$;

-- Whether two JSON values are the same data as some writer may have re-printed it: numbers compare at double
-- precision (Fluent Bit prints doubles with 16 significant digits, so a 17-digit double loses its last digit, and
-- integral doubles as `x.0`), everything else exactly. Only used between events that share instance, position,
-- time and kind but not their hash, which is rare.
CREATE OR REPLACE FUNCTION workflow_index.json_equivalent(a JSONB, b JSONB) RETURNS BOOLEAN
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
  kind TEXT := jsonb_typeof(a);
  x NUMERIC;
  y NUMERIC;
BEGIN
  IF a IS NULL OR b IS NULL THEN
    RETURN a IS NULL AND b IS NULL;
  ELSIF a = b THEN
    RETURN true;
  ELSIF kind <> jsonb_typeof(b) THEN
    RETURN false;
  ELSIF kind = 'number' THEN
    x := (a #>> '{}')::NUMERIC;
    y := (b #>> '{}')::NUMERIC;
    RETURN abs(x - y) <= 1e-15 * greatest(abs(x), abs(y));
  ELSIF kind = 'array' THEN
    RETURN jsonb_array_length(a) = jsonb_array_length(b)
       AND NOT EXISTS (SELECT 1 FROM generate_series(0, jsonb_array_length(a) - 1) AS i
                       WHERE NOT workflow_index.json_equivalent(a -> i, b -> i));
  ELSIF kind = 'object' THEN
    RETURN coalesce((SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(a) AS k)
                    = (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(b) AS k), false)
       AND NOT EXISTS (SELECT 1 FROM jsonb_object_keys(a) AS k WHERE NOT workflow_index.json_equivalent(a -> k, b -> k));
  END IF;
  RETURN false;
END
$$;
