-- ------------------------------------------------------------------------------------------------
-- A record no parser could read is recorded with the fault of its text, the same words on every backend and path:
-- json_text_problem(t) is `event is not valid JSON: <the first fault>`, or `event is not a JSON object (got <type>)`
-- for a valid JSON value that is not an object, or NULL for a JSON object. PostgreSQL's own messages cannot be that
-- reason: they follow the server's lc_messages and change between releases, and OpenSearch's normalizer (with the
-- same definition in server/core/src/json-text-fault.ts) never sees them.
--
-- The fault is defined on the text alone, read left to right as a strict JSON parser (RFC 8259) reads it, token by
-- token. The first token with a fault names it; within a token, its own spelling is read first (a string's raw
-- control character or bad escape, a bare word that is no JSON value), then whether it may stand where it stands,
-- then, for a bracket, whether it opens a container deeper than 1000 levels (the line-repair rule's R5, the top-level
-- container being level 1). Tokens: whitespace, the six punctuators, a string (to the next quote not taken by a
-- backslash, or to the end of the text), a control character outside a string, and any other run of characters.
-- Positions count characters from 1. It is set-based (no loop per token: a few µs a token, a 2 MB text of a million
-- numbers about 6 s), and only ever runs for a record that is rejected anyway: normal events never reach it.
-- ------------------------------------------------------------------------------------------------

-- The fault of a string's body (its text between the quotes), whose first character is at position `at`; `open`:
-- the text ended before the closing quote. NULL when the body is well formed and closed.
CREATE OR REPLACE FUNCTION workflow_index.json_string_fault(body TEXT, at BIGINT, open BOOLEAN) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN length(s.ok) = length(body) THEN CASE WHEN open THEN 'ends before the JSON text is complete' END
    -- an escape cut by the end of the text
    WHEN open AND s.rest ~ '^\\(u[0-9a-fA-F]{0,3})?$' THEN 'ends before the JSON text is complete'
    WHEN ascii(s.rest) < 32
      THEN format('control character U+%s in a string at character %s', upper(lpad(to_hex(ascii(s.rest)), 4, '0')), at + length(s.ok))
    WHEN length(s.rest) > 1 AND ascii(substr(s.rest, 2, 1)) < 32
      THEN format('control character U+%s in a string at character %s', upper(lpad(to_hex(ascii(substr(s.rest, 2, 1))), 4, '0')), at + length(s.ok) + 1)
    WHEN s.rest ~ '^\\u' THEN format('invalid escape %s in a string at character %s', substring(s.rest FROM '^\\u[0-9a-fA-F]{0,3}'), at + length(s.ok))
    ELSE format('invalid escape %s in a string at character %s', left(s.rest, 2), at + length(s.ok))
  END
  FROM (SELECT p.ok, substr(body, length(p.ok) + 1) AS rest
        FROM (SELECT substring(body FROM '^(?:[^\\\x01-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*') AS ok) p) s
$$;

-- Why `t` is not one JSON value (NULL when it is one), and the type of the value it starts with: windows over the
-- tokens in text order and one over each nesting level.
CREATE OR REPLACE FUNCTION workflow_index.json_text_fault(t TEXT, OUT fault TEXT, OUT value_type TEXT)
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT coalesce(
           (array_agg(g.fault ORDER BY g.n) FILTER (WHERE g.fault IS NOT NULL))[1],
           -- no token has a fault: the text must end right after a complete top-level value
           CASE WHEN NOT coalesce(bool_or(g.last AND g.d_after = 0 AND g.kind IN ('string', 'word', '}', ']') AND NOT g.is_name), false)
                THEN 'ends before the JSON text is complete' END),
         max(CASE WHEN NOT g.first THEN NULL WHEN g.kind = '{' THEN 'object' WHEN g.kind = '[' THEN 'array' WHEN g.kind = 'string' THEN 'string'
                  WHEN g.tok IN ('true', 'false') THEN 'boolean' WHEN g.tok = 'null' THEN 'null' ELSE 'number' END)
  FROM (
    SELECT e.n, e.tok, e.kind, e.d_after, e.first, e.last, e.is_name, coalesce(
      e.lex_fault,
      CASE WHEN NOT CASE e.expect
          WHEN 'value' THEN e.kind IN ('string', 'word', '{', '[')
          WHEN 'value or ]' THEN e.kind IN ('string', 'word', '{', '[', ']')
          WHEN 'name or }' THEN e.kind IN ('string', '}')
          WHEN 'name' THEN e.kind = 'string'
          WHEN 'colon' THEN e.kind = ':'
          WHEN 'comma or }' THEN e.kind IN (',', '}')
          WHEN 'comma or ]' THEN e.kind IN (',', ']')
          ELSE false END
        THEN format('expected %s but found %s at character %s',
          CASE e.expect WHEN 'value' THEN 'a value' WHEN 'value or ]' THEN 'a value or "]"' WHEN 'name or }' THEN 'a member name or "}"'
                        WHEN 'name' THEN 'a member name' WHEN 'colon' THEN '":"' WHEN 'comma or }' THEN '"," or "}"'
                        WHEN 'comma or ]' THEN '"," or "]"' ELSE 'the end of the text' END,
          CASE WHEN e.kind = 'string' THEN 'a string' ELSE '"' || CASE WHEN length(e.tok) > 40 THEN left(e.tok, 40) || '…' ELSE e.tok END || '"' END,
          e.pos) END,
      CASE WHEN e.kind IN ('{', '[') AND e.d_after > 1000 THEN format('nested deeper than 1000 levels at character %s', e.pos) END) AS fault
    FROM (
      SELECT c.*,
        coalesce(c.kind = 'string' AND (c.prev = '{' OR (c.prev = ',' AND c.container = 'object')), false) AS is_name,
        CASE
          WHEN c.prev IS NULL THEN 'value'
          WHEN c.prev = '{' THEN 'name or }'
          WHEN c.prev = '[' THEN 'value or ]'
          WHEN c.prev = ':' THEN 'value'
          WHEN c.prev = ',' THEN CASE WHEN c.container = 'array' THEN 'value' ELSE 'name' END
          -- after a member name (a string and the token after it stand at the same level, in the same container)
          WHEN c.prev = 'string' AND (c.prev2 = '{' OR (c.prev2 = ',' AND c.container = 'object')) THEN 'colon'
          WHEN c.d_before = 0 THEN 'end'
          WHEN c.container = 'array' THEN 'comma or ]'
          ELSE 'comma or }'
        END AS expect
      FROM (
        SELECT b.*, row_number() OVER w = 1 AS first, lead(b.n) OVER w IS NULL AS last
        FROM (
          -- The container a token stands in is the one whose first token last came at its level: the token after an
          -- opening bracket marks its level (2n, +1 for an array), every token looks its own level up.
          SELECT a.*, CASE WHEN max(CASE a.prev WHEN '{' THEN 2 * a.n WHEN '[' THEN 2 * a.n + 1 END)
                                  OVER (PARTITION BY a.d_before ORDER BY a.n) % 2 = 1
                           THEN 'array' WHEN a.d_before > 0 THEN 'object' END AS container
          FROM (
            SELECT s.*, sum(s.delta) OVER w AS d_after, sum(s.delta) OVER w - s.delta AS d_before,
                   lag(s.kind) OVER w AS prev, lag(s.kind, 2) OVER w AS prev2
            FROM (
              SELECT p.n, p.tok, p.pos, p.kind,
                CASE p.kind WHEN '{' THEN 1 WHEN '[' THEN 1 WHEN '}' THEN -1 WHEN ']' THEN -1 ELSE 0 END AS delta,
                CASE
                  -- open: it has no closing quote, or its last quote is taken by a backslash (an odd number of them)
                  WHEN p.kind = 'string' AND (length(p.tok) = 1 OR right(p.tok, 1) <> '"' OR (right(p.tok, 2) = '\"' AND p.tok !~ '(^|[^\\])(\\\\)*"$'))
                    THEN workflow_index.json_string_fault(substr(p.tok, 2), p.pos + 1, true)
                  WHEN p.kind = 'string' AND p.tok ~ '[\\\x01-\x1f]'
                    THEN workflow_index.json_string_fault(substr(p.tok, 2, length(p.tok) - 2), p.pos + 1, false)
                  WHEN p.kind = 'word' AND p.tok !~ '^(true|false|null|-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)$'
                    THEN format('invalid token "%s" at character %s', CASE WHEN length(p.tok) > 40 THEN left(p.tok, 40) || '…' ELSE p.tok END, p.pos)
                  WHEN p.kind = 'control'
                    THEN format('control character U+%s outside a string at character %s', upper(lpad(to_hex(ascii(p.tok)), 4, '0')), p.pos)
                END AS lex_fault
              FROM (
                SELECT r.n, r.tok, sum(length(r.tok)) OVER (ORDER BY r.n) - length(r.tok) + 1 AS pos,
                  CASE WHEN left(r.tok, 1) = '"' THEN 'string' WHEN r.tok IN ('{', '}', '[', ']', ':', ',') THEN r.tok
                       WHEN r.tok ~ '^[ \t\n\r]' THEN 'space' WHEN ascii(r.tok) < 32 THEN 'control' ELSE 'word' END AS kind
                FROM (
                  -- Every character is in exactly one token; a string ends at its closing quote, or else at the end
                  -- of the text.
                  SELECT m.n, m.m[1] AS tok
                  FROM regexp_matches(t, '"(?:[^"\\]|\\.)*(?:"|\\?$)|[][{}:,]|[ \t\n\r]+|[^][{}:," \t\n\r\x01-\x1f]+|[\x01-\x08\x0b\x0c\x0e-\x1f]', 'g')
                       WITH ORDINALITY AS m(m, n)
                ) r
              ) p
              WHERE p.kind <> 'space'
            ) s
            WINDOW w AS (ORDER BY s.n)
          ) a
        ) b
        WINDOW w AS (ORDER BY b.n)
      ) c
    ) e
  ) g
$$;

-- The ingest-error reason for a record that is the text `t` (see above); NULL for a JSON object. A text longer than
-- 262,144 characters (the longest line our Fluent Bit configuration reads, Buffer_Max_Size 256k) is not examined:
-- finding the fault costs a few µs per token in the flush that carries it (a 2 MB line held its flush for 6-8 s).
-- core/json-text-fault.ts MAX_EXAMINED_CHARACTERS is the same bound.
CREATE OR REPLACE FUNCTION workflow_index.json_text_problem(t TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN length(t) > 262144 THEN 'event is not a readable JSON object: longer than 262144 characters, not examined further'
              WHEN f.fault IS NOT NULL THEN 'event is not valid JSON: ' || f.fault
              WHEN f.value_type <> 'object' THEN format('event is not a JSON object (got %s)', f.value_type) END
  FROM workflow_index.json_text_fault(CASE WHEN length(t) > 262144 THEN '' ELSE t END) f
$$;

-- The reason for a record without an eventType: one that holds a text no parser could read is recorded with that
-- text's fault, anything else as `missing eventType`. Two such records exist: the marker json_array_elements
-- hands over for an element PostgreSQL could not parse (040-raw-json.sql: an object whose only member is
-- `wi_unparsable`, which no writer's record is), and Fluent Bit's record of a line its parser refused, which keeps
-- the line under `log` (fluent-bit/*/fluent-bit.conf routes it as workflow-index.unparsed). A `log` holding a JSON
-- object keeps `missing eventType`; one holding another JSON value is `not a JSON object`, as that value would be.
-- Our Fluent Bit configuration marks two more such records (fluent-bit/postgresql/join-partial-lines.lua): a line
-- longer than the join limit, whose text up to the limit it keeps (`wi_join_truncated`: the line's size), and the
-- end of a line whose first parts it held when it stopped (`wi_join_orphan`: the part's size); each is recorded as
-- what it is, not by the fault of its cut text.
-- Only records every rule rejects reach this, so no event is accepted or refused differently because of it.
CREATE OR REPLACE FUNCTION workflow_index.unparsed_record_problem(d JSONB) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN jsonb_typeof(d -> 'wi_unparsable' -> 'text') = 'string' AND NOT EXISTS (SELECT FROM jsonb_object_keys(d) k WHERE k <> 'wi_unparsable')
      THEN coalesce(workflow_index.json_text_problem(d -> 'wi_unparsable' ->> 'text'),
                    -- PostgreSQL refused a text that is one JSON value: a limit of its own
                    format('event is not valid JSON for PostgreSQL: %s', concat_ws(': ', d -> 'wi_unparsable' ->> 'error', d -> 'wi_unparsable' ->> 'detail')))
    WHEN jsonb_typeof(d -> 'wi_join_truncated') = 'string'
      THEN format('line of %s bytes is longer than the forwarder''s 8388608-byte limit: its text up to the limit is kept, the event is not read', d ->> 'wi_join_truncated')
    WHEN jsonb_typeof(d -> 'wi_join_orphan') = 'string'
      THEN format('the last %s bytes of a line whose beginning was lost (held by the forwarder when it stopped)', d ->> 'wi_join_orphan')
    WHEN jsonb_typeof(d -> 'log') = 'string' THEN coalesce(workflow_index.json_text_problem(d ->> 'log'), 'missing eventType')
    ELSE 'missing eventType'
  END
$$;

-- The instance a record without an eventType names, when its `log` text (a line Fluent Bit's parser refused, one cut
-- at the join limit) holds a plain `"instanceId":"…"` member: the ingest error then points at the run. NULL otherwise.
CREATE OR REPLACE FUNCTION workflow_index.unparsed_instance_id(d JSONB) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN jsonb_typeof(d -> 'log') = 'string' THEN substring(d ->> 'log' FROM '"instanceId"[ \t\n\r]*:[ \t\n\r]*"([^"\\]{1,255})"') END
$$;
