-- ------------------------------------------------------------------------------------------------
-- Event identity (CONTRACT, rules both backends share): an event is identified by its own fields, the ones the
-- producer defines and the normalization reads. The record time and whatever a forwarder adds (its time key,
-- `kubernetes`, `stream`, `_p`, `logtag`, `@timestamp`) never count, so delivering an event again, by any path
-- and with any record time, changes nothing.
--
-- Workflow events are stored once in workflow_index.events under (instance, a hash of every field the instance
-- merge reads, payloads with their numbers canonical; 080-apply-events.sql).
-- Task events are stored once in workflow_index.task_events under (instance, position, event time, kind,
-- content hash); the hash covers the rest of what the normalization reads: task name, status, input, output,
-- error, as jsonb's canonical text (key order, whitespace and escaping do not matter; null and absent are the
-- same) with numbers canonical (below), so an event Fluent Bit re-printed is the same event. Two byte-identical event lines are one event: a millisecond-precision producer that prints two equal
-- started events of two loop iterations in one millisecond, without payloads, cannot be told apart by anyone;
-- keeping the record time to tell them apart is what made every re-delivery a duplicate.
-- ------------------------------------------------------------------------------------------------
-- Canonical numbers: one spelling for a number whichever writer printed it. Fluent Bit holds an integer token of the
-- int64/uint64 range exactly and prints it back as it was; every other number it holds as a double and prints with
-- "%.1f" when integral within the int64 range, else with "%.16g" (99.99 → 99.98999999999999, -3.0E-7 → -0.0000003,
-- a 17-digit double loses a digit, 1.0E7 → 10000000.0); `init-job ingest` and the OpenSearch bulk writer keep the
-- text, and jsonb keeps the value but not whether it was spelled as an integer (1E+2 is 100). So a number is
-- canonical as the double Fluent Bit's printing of it as a double leaves (read the value as a double, print it as
-- Fluent Bit prints a double, read that again), written as the shortest decimal that reads back as that double, in
-- plain notation without trailing zeros: 99.99 and 99.98999999999999 are 99.99, 1.0E7 and 10000000.0 are 10000000,
-- 2.0 is 2, 0.30000000000000004 is 0.3. Printing a double as Fluent Bit does is idempotent on what it printed, so
-- the text Fluent Bit sends is canonical to the same number as the text it read, whichever way that was spelled.
-- What it means for numbers beyond a double's precision: a decimal with more significant digits than a double holds
-- (16-17), or an integer beyond 2^53 (12345678901234567890 → 12345678901234570000), is identified as
-- that double; a number whose magnitude is below 1e-307 or above 1e308 (not a normal double, or beyond what the line
-- repair leaves) is kept as written. Only the identity uses it (the task content hash below, the workflow events'
-- identity hash in 080-apply-events.sql): served payloads are never rewritten. Of two spellings of one event the
-- first delivery is stored and served, a later one is a duplicate (048-event-store.sql), so the served text is the
-- producer's as the first path delivered it and never switches. server/events/src/canonical-number.ts is its twin
-- for the OpenSearch normalizer.
-- to_char(float8) with an EEEE pattern is C's printf("%.Ne"): the exact binary value rounded, ties to even. STABLE,
-- as to_char is declared.
-- ------------------------------------------------------------------------------------------------
DROP FUNCTION IF EXISTS workflow_index.canonical_number(NUMERIC);

-- The double Fluent Bit's printing of the double v leaves: v itself when "%.1f" printed it exactly, else "%.16g".
CREATE OR REPLACE FUNCTION workflow_index.fluent_bit_double(v FLOAT8) RETURNS FLOAT8
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN v = trunc(v) AND v >= -9.223372036854775808e18::FLOAT8 AND v < 9.223372036854775808e18::FLOAT8 THEN v
              ELSE to_char(v, '9.999999999999999EEEE')::FLOAT8 END
$$;

-- The shortest decimal that reads back as the (normal) double v, in plain notation. For a normal double at most one
-- 15-digit decimal reads back as it, and the shortest is the nearest of the fewest digits: so "%.15e" when it reads
-- back, else "%.16e" when it does, else "%.17e" (JavaScript's Number#toString picks the same).
CREATE OR REPLACE FUNCTION workflow_index.double_text(v FLOAT8) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT trim_scale(CASE WHEN to_char(v, '9.99999999999999EEEE')::FLOAT8 = v THEN to_char(v, '9.99999999999999EEEE')
                               WHEN to_char(v, '9.999999999999999EEEE')::FLOAT8 = v THEN to_char(v, '9.999999999999999EEEE')
                               ELSE to_char(v, '9.9999999999999999EEEE') END::NUMERIC)::TEXT
$$;

-- One number token's canonical text (above).
CREATE OR REPLACE FUNCTION workflow_index.canonical_number(t TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN t::NUMERIC = 0 THEN '0'
              WHEN NOT abs(t::NUMERIC) BETWEEN 1e-307 AND 1e308 THEN t
              ELSE workflow_index.double_text(workflow_index.fluent_bit_double(t::FLOAT8)) END
$$;

-- jsonb text with its numbers canonical (above). Strings are whole tokens, so digits inside them are never
-- touched.
CREATE OR REPLACE FUNCTION workflow_index.canonical_numbers(t TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT string_agg(CASE WHEN r.m[1] ~ '^-?[0-9]' THEN workflow_index.canonical_number(r.m[1]) ELSE r.m[1] END, '' ORDER BY r.n)
  FROM regexp_matches(t, '("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*|[^"0-9-]+|-)', 'g') WITH ORDINALITY AS r(m, n)
$$;

-- A payload with its numbers canonical. jsonb prints numbers in plain notation, so only a number with a fraction
-- or an integer of 16 digits or more can change: a payload whose text holds neither is returned as it is after
-- one regex test.
CREATE OR REPLACE FUNCTION workflow_index.canonical_json(j JSONB) RETURNS JSONB
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN j IS NULL THEN NULL
              WHEN j::TEXT ~ '[0-9]\.[0-9]|[0-9]{16}' THEN workflow_index.canonical_numbers(j::TEXT)::JSONB
              ELSE j END
$$;

-- A payload's identity text: NULL when absent or JSON null. Given the text of the payload's canonical_json
-- (050-parse-events.sql reads every payload through canonical_json for the identity; the served payload stays as
-- delivered).
CREATE OR REPLACE FUNCTION workflow_index.canonical_json_text(t TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN t IS NULL OR t = 'null' THEN NULL ELSE t END
$$;

-- The hash of what identifies a task event besides (instance, position, time, kind). Payloads come in as their
-- canonical_json_text (numbers canonical).
CREATE OR REPLACE FUNCTION workflow_index.task_event_content_hash(task_name TEXT, status TEXT, input TEXT, output TEXT, error JSONB)
RETURNS BIGINT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  -- Only immutable operators (|| and casts, not concat()), so the planner inlines it into parse_events.
  SELECT hashtextextended(coalesce(task_name, '') || chr(31) || coalesce(status, chr(30)) || chr(31)
                          || coalesce(input, chr(30)) || chr(31) || coalesce(output, chr(30)) || chr(31)
                          || coalesce(nullif(error, 'null'::JSONB)::TEXT, chr(30)), 0)
$$;
