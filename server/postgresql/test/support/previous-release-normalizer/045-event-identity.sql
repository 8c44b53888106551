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
-- error, as jsonb's canonical text (key order, whitespace and escaping do not matter; null and absent are the
-- same) with numbers as every writer holds them: a double (Fluent Bit re-prints doubles with %.16g, so a
-- 17-digit double loses its last digit, and integral doubles as `x.0`). Numbers therefore count at 14 significant
-- digits without trailing fractional zeros (canonical_json_text). Two byte-identical event lines are one event: a millisecond-precision producer that prints two equal
-- started events of two loop iterations in one millisecond, without payloads, cannot be told apart by anyone;
-- keeping the record time to tell them apart is what made every re-delivery a duplicate.
-- ------------------------------------------------------------------------------------------------
-- A number at 14 significant digits, without trailing fractional zeros: the same for `1.7954415230510702E9` and
-- Fluent Bit's `1795441523.05107`, for `1.0E7` and `10000000.0`. (Only when rounding at the 16th digit carries
-- past the 15th, about 1 in 200 numbers of 17 digits, does a re-printed number still differ.)
CREATE OR REPLACE FUNCTION workflow_index.canonical_number(x NUMERIC) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN x = 0 THEN '0' ELSE trim_scale(round(x, 13 - floor(log(abs(x)))::INTEGER))::TEXT END
$$;

-- jsonb text with its numbers canonical (above). Strings are whole tokens, so digits inside them are never
-- touched. Called only for texts that hold a long or zero-padded number (canonical_json_text).
CREATE OR REPLACE FUNCTION workflow_index.canonical_numbers(t TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT string_agg(CASE WHEN r.m[1] ~ '^-?[0-9]' THEN workflow_index.canonical_number(r.m[1]::NUMERIC) ELSE r.m[1] END, '' ORDER BY r.n)
  FROM regexp_matches(t, '("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|[^"0-9-]+|-)', 'g') WITH ORDINALITY AS r(m, n)
$$;

-- A payload's identity text: NULL when absent or JSON null; numbers canonical. A single expression, so it is
-- inlined; nearly every payload skips canonical_numbers after one regex test.
CREATE OR REPLACE FUNCTION workflow_index.canonical_json_text(t TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN t IS NULL OR t = 'null' THEN NULL
              WHEN t ~ '[0-9.]{16}|\.[0-9]*0(?![0-9])' THEN workflow_index.canonical_numbers(t)
              ELSE t END
$$;

-- The hash of what identifies a task event besides (instance, position, time, kind). Payloads come in as their
-- canonical_json_text.
CREATE OR REPLACE FUNCTION workflow_index.task_event_content_hash(task_name TEXT, status TEXT, input TEXT, output TEXT, error JSONB)
RETURNS BIGINT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  -- Only immutable operators (|| and casts, not concat()), so the planner inlines it into parse_events.
  SELECT hashtextextended(coalesce(task_name, '') || chr(31) || coalesce(status, chr(30)) || chr(31)
                          || coalesce(input, chr(30)) || chr(31) || coalesce(output, chr(30)) || chr(31)
                          || coalesce(nullif(error, 'null'::JSONB)::TEXT, chr(30)), 0)
$$;
