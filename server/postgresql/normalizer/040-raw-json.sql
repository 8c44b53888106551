-- ------------------------------------------------------------------------------------------------
-- Raw events reach the database as JSON text that PostgreSQL must never reject as a whole.
--
-- Fluent Bit's pgsql output sends one statement per flush:
--   INSERT INTO <table> SELECT '<tag>', to_timestamp(CAST(value->>'<Timestamp_Key>' as FLOAT)), *
--   FROM json_array_elements('<json array of records>');
-- Three things in one producer line used to fail that whole statement (and Fluent Bit, never giving up, retried
-- it forever with every good event in it):
--   * a `\u0000` escape or a lone surrogate escape anywhere in a record: `->>` de-escapes every string it scans;
--   * JSON nested deeper than PostgreSQL's parser recursion allows;
--   * an app field with the same name as the Timestamp_Key: the value `->>` reads there fails the FLOAT cast (or
--     to_timestamp). Fluent Bit's JSON printer prints a repeated key once, with its last value (src/flb_pack.c
--     msgpack2json), so the statement holds only the app's value; writers that print both (init-job ingest puts
--     its key first) leave `->>` the last one, the app's.
-- workflow_raw.json_array_elements(text) below is what that statement calls whenever workflow_raw is on the
-- session's search_path (as it is for the forwarder login): PostgreSQL prefers a text parameter over json for
-- an unknown-typed literal, whatever the schema order. It repairs the escapes (the same spelling as every other
-- writer: `\ufffd`), moves the forwarder's time key last when an app field repeats it, appends a usable
-- `wi_record_time` (our Timestamp_Key) to a record whose value there the statement would fail on, and hands over
-- an element it cannot parse as a marker holding its text (element_json below), which the normalizer then records
-- in ingest_errors with the fault of that text. The raw `data` column is `json` (verbatim text), so nothing it
-- stores has to be convertible to jsonb.
-- ------------------------------------------------------------------------------------------------

-- Escapes PostgreSQL cannot turn into text become U+FFFD: `\u0000`, and a surrogate escape that is not part of
-- a high-low pair. Tokens are whole escapes, so an escaped backslash followed by `u0000` is left alone.
CREATE OR REPLACE FUNCTION workflow_raw.repair_json_escapes(t TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(string_agg(CASE
      WHEN s.tok ~* '^\\u0000$' THEN '\ufffd'
      WHEN s.tok ~* '^\\ud[89ab]' AND coalesce(s.nxt, '') !~* '^\\ud[c-f]' THEN '\ufffd'
      WHEN s.tok ~* '^\\ud[c-f]' AND coalesce(s.prv, '') !~* '^\\ud[89ab]' THEN '\ufffd'
      ELSE s.tok END, '' ORDER BY s.n), '')
  FROM (SELECT r.m[1] AS tok, r.n, lag(r.m[1]) OVER (ORDER BY r.n) AS prv, lead(r.m[1]) OVER (ORDER BY r.n) AS nxt
        FROM regexp_matches(t, '(\\u[0-9a-fA-F]{4}|\\.|[^\\]+|\\$)', 'g') WITH ORDINALITY AS r(m, n)) s
$$;

-- Whether a JSON text may hold an escape repair_json_escapes changes (cheap; false positives are harmless).
CREATE OR REPLACE FUNCTION workflow_raw.may_need_escape_repair(t TEXT) RETURNS BOOLEAN
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT strpos(t, '\u') > 0
     AND t ~ '\\u0000|\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F]'
$$;

-- A record whose first key (the forwarder's Timestamp_Key) appears again later at the top level: the first
-- pair moves to the end, so `->>` and the jsonb conversion (both take the last duplicate) read the forwarder's
-- time, and the app's field stays in the stored text. Anything else is returned as it is.
CREATE OR REPLACE FUNCTION workflow_raw.forwarder_key_last(e JSON) RETURNS JSON
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN m IS NULL THEN e
    WHEN (SELECT count(*) FROM json_object_keys(e) o WHERE o = m[3]) < 2 THEN e
    ELSE ('{' || regexp_replace(substr(e::TEXT, length(m[1]) + 1), '\}\s*$', '') || ',' || m[2] || '}')::JSON
  END
  FROM regexp_match(e::TEXT, '^(\s*\{\s*("([A-Za-z0-9_@.-]+)"\s*:\s*-?[0-9][0-9.eE+-]*)\s*,)') AS m
$$;

-- Whether a Timestamp_Key value as `->>` reads it is a record time the statement's CAST(… AS FLOAT) and
-- to_timestamp() accept: a JSON number below 1e11 in magnitude (year 5138; Fluent Bit prints the record time with
-- %.16g, init-job ingest as JavaScript does: no exponent below 1e16). A missing key (NULL) fails nothing.
CREATE OR REPLACE FUNCTION workflow_raw.record_time_usable(v TEXT) RETURNS BOOLEAN
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT v IS NULL OR (v ~ '^-?[0-9]{1,11}(\.[0-9]+)?([eE][+-]?[0-9]{1,2})?$' AND abs(v::NUMERIC) < 1e11)
$$;

-- A record whose `wi_record_time` the statement would fail on (an app's own member of that name, printed by Fluent
-- Bit instead of its own record time, or spelled so by any writer) gets a usable one appended as its last member,
-- which `->>` and jsonb read; the app's member stays in the stored text before it (and the event store drops the
-- name: it is a forwarder field). Its value: the container runtime's `time` (the CRI timestamp the record keeps,
-- from which Fluent Bit took the record time) when that is an RFC 3339 timestamp, else null (the raw row then has
-- no record time; retention keeps such rows). Anything else is returned as it is.
CREATE OR REPLACE FUNCTION workflow_raw.with_usable_record_time(e JSON) RETURNS JSON
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  runtime_time TEXT;
  seconds TEXT := 'null';
BEGIN
  IF json_typeof(e) IS DISTINCT FROM 'object' OR workflow_raw.record_time_usable(e ->> 'wi_record_time') THEN
    RETURN e;
  END IF;
  runtime_time := e ->> 'time';
  IF runtime_time ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:?[0-9]{2})$' THEN
    BEGIN
      seconds := extract(epoch FROM runtime_time::TIMESTAMPTZ)::TEXT;
    EXCEPTION WHEN OTHERS THEN
      seconds := 'null';
    END;
  END IF;
  RETURN (regexp_replace(e::TEXT, '\}\s*$', '') || ',"wi_record_time":' || seconds || '}')::JSON;
END
$$;

-- One element's text as json: itself when PostgreSQL parses it (after the escape repair), else the marker
--   {"wi_unparsable": {"text": <the element's text>, "error": <PostgreSQL's message>, "detail": <its detail>}}
-- which nothing else writes: every writer puts its record time key first in a record, so no record a writer hands
-- over is an object whose only member is `wi_unparsable`. The normalizer records it with the fault of the text
-- (042-json-text-fault.sql); a JSON string holding the text could not be told from a record that is a JSON string.
-- Nothing is lost: the text stays in the raw row, exactly; PostgreSQL's words (in the server's lc_messages) are kept
-- beside it for whoever reads the row.
CREATE OR REPLACE FUNCTION workflow_raw.element_json(t TEXT) RETURNS JSON
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
  message TEXT;
  detail TEXT;
BEGIN
  RETURN t::JSON;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
  RETURN json_build_object('wi_unparsable', json_build_object('text', t, 'error', message, 'detail', nullif(detail, '')));
END
$$;

-- The top-level elements of a JSON array text, split without a recursive parser: tokens are strings, brackets,
-- commas and runs of anything else; an element ends at a comma (or the closing bracket) at depth 1.
CREATE OR REPLACE FUNCTION workflow_raw.split_json_array(t TEXT) RETURNS SETOF TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  WITH tokens AS (
    SELECT r.m[1] AS tok, r.n FROM regexp_matches(t, '("(?:[^"\\]|\\.)*"|[][{}]|,|[^][{}",]+)', 'g') WITH ORDINALITY AS r(m, n)
  ), depth AS (
    SELECT tokens.*, sum(CASE WHEN tok IN ('[', '{') THEN 1 WHEN tok IN (']', '}') THEN -1 ELSE 0 END) OVER (ORDER BY n) AS d_after
    FROM tokens
  ), marked AS (
    SELECT depth.*, d_after + CASE WHEN tok IN (']', '}') THEN 1 WHEN tok IN ('[', '{') THEN -1 ELSE 0 END AS d_before
    FROM depth
  ), inside AS (
    -- tokens of the outer array's content; element number = commas at depth 1 before the token
    SELECT marked.*, sum(CASE WHEN tok = ',' AND d_before = 1 THEN 1 ELSE 0 END) OVER (ORDER BY n) AS element
    FROM marked
    WHERE NOT (d_before = 0 AND tok = '[') AND NOT (d_after = 0 AND tok = ']')
  )
  SELECT btrim(string_agg(tok, '' ORDER BY n), E' \t\r\n')
  FROM inside
  WHERE NOT (tok = ',' AND d_before = 1)
  GROUP BY element
  HAVING btrim(string_agg(tok, '' ORDER BY n), E' \t\r\n') <> ''
  ORDER BY element
$$;

CREATE OR REPLACE FUNCTION workflow_raw.json_array_elements(records TEXT) RETURNS TABLE (value JSON)
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  repaired TEXT := records;
  parsed JSON;
  time_key TEXT;
  fix_record_time BOOLEAN;
BEGIN
  IF workflow_raw.may_need_escape_repair(records) THEN
    repaired := workflow_raw.repair_json_escapes(records);
  END IF;
  -- Whether any `"wi_record_time":` is followed by something other than a plain number of at most 11 integer digits
  -- (what every forwarder prints): only then is each record's value looked at (cheap; false positives are harmless).
  fix_record_time := strpos(repaired, '"wi_record_time"') > 0
    AND repaired ~ '"wi_record_time"\s*:\s*(?!-?[0-9]{1,11}(\.[0-9]+)?\s*[,}])';
  BEGIN
    parsed := repaired::JSON;  -- validates the whole array; what parses here, json_array_elements parses too
  EXCEPTION WHEN OTHERS THEN
    -- Not parseable as a whole (e.g. one record nested too deep for the parser, or a value printed as `inf`):
    -- each element on its own.
    RETURN QUERY SELECT CASE WHEN fix_record_time THEN workflow_raw.with_usable_record_time(f.e) ELSE f.e END
      FROM (SELECT workflow_raw.forwarder_key_last(workflow_raw.element_json(s.t)) AS e FROM workflow_raw.split_json_array(repaired) AS s(t)) f;
    RETURN;
  END;
  -- Every record starts with the forwarder's time key (unless an app field of that name displaced it); only when the
  -- statement holds that key more often than it holds records can an app field repeat it, and only then is each
  -- record looked at.
  time_key := '"' || substring(repaired FROM '^\s*\[\s*\{\s*"([A-Za-z0-9_@.-]+)"\s*:') || '"';
  IF time_key IS NOT NULL
     AND (octet_length(repaired) - octet_length(replace(repaired, time_key, ''))) / octet_length(time_key)
         > json_array_length(parsed) THEN
    RETURN QUERY SELECT CASE WHEN fix_record_time THEN workflow_raw.with_usable_record_time(f.e) ELSE f.e END
      FROM (SELECT workflow_raw.forwarder_key_last(e) AS e FROM pg_catalog.json_array_elements(parsed) AS e) f;
  ELSIF fix_record_time THEN
    RETURN QUERY SELECT workflow_raw.with_usable_record_time(e) FROM pg_catalog.json_array_elements(parsed) AS e;
  ELSE
    RETURN QUERY SELECT e FROM pg_catalog.json_array_elements(parsed) AS e;
  END IF;
END
$$;

-- A raw row's data as jsonb for the normalizer; NULL with the reason when PostgreSQL cannot hold it: the fault of
-- its text (a json value nested deeper than jsonb's recursion allows is deeper than 1000 levels), else
-- PostgreSQL's message (a number beyond numeric's range, …), which names a limit of PostgreSQL only.
CREATE OR REPLACE FUNCTION workflow_index.event_jsonb(d JSON, OUT doc JSONB, OUT problem TEXT)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
  BEGIN
    doc := d::JSONB;
    RETURN;
  EXCEPTION WHEN OTHERS THEN
    problem := SQLERRM;
  END;
  BEGIN
    doc := workflow_raw.repair_json_escapes(d::TEXT)::JSONB;
    problem := NULL;
  EXCEPTION WHEN OTHERS THEN
    -- (the fault is looked for in texts up to the bound of 042-json-text-fault.sql)
    problem := coalesce(CASE WHEN length(d::TEXT) <= 262144 THEN 'event is not valid JSON: ' || (workflow_index.json_text_fault(d::TEXT)).fault END,
                        format('event is not valid JSON for PostgreSQL: %s', SQLERRM));
  END;
END
$$;
