
-- NULL when v (the value of field `key`) is acceptable as a string field, else the reason.
CREATE OR REPLACE FUNCTION workflow_index.value_problem(v JSONB, key TEXT, max_len INTEGER, required BOOLEAN) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN coalesce(jsonb_typeof(v), 'null') = 'null' THEN CASE WHEN required THEN format('missing %s', key) END
    WHEN jsonb_typeof(v) <> 'string' THEN format('%s must be a string, got %s', key, jsonb_typeof(v))
    WHEN required AND (v #>> '{}') = '' THEN format('%s must not be empty', key)
    -- bytes, not characters: the indexed columns must fit a btree entry (about 2.7 kB for the whole key)
    WHEN octet_length(v #>> '{}') > max_len THEN format('%s is longer than %s bytes', key, max_len)
  END
$$;

CREATE OR REPLACE FUNCTION workflow_index.string_field_problem(d JSONB, key TEXT, max_len INTEGER, required BOOLEAN) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT workflow_index.value_problem(d -> key, key, max_len, required)
$$;

-- NULL when v (the value of field `key`, parsed as t) is absent, JSON null, or a valid time; else the reason.
CREATE OR REPLACE FUNCTION workflow_index.time_value_problem(v JSONB, t TIMESTAMPTZ, key TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN coalesce(jsonb_typeof(v), 'null') <> 'null' AND t IS NULL
              THEN format('%s %s is not a valid time', key, left(v::TEXT, 64)) END
$$;

CREATE OR REPLACE FUNCTION workflow_index.integer_or_null(v JSONB) RETURNS INTEGER
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN jsonb_typeof(v) IN ('number', 'string') AND (v #>> '{}') ~ '^-?[0-9]{1,9}$' THEN (v #>> '{}')::INTEGER END
$$;

-- The problem-details error object of a faulted event: NULL when acceptable, else the reason.
CREATE OR REPLACE FUNCTION workflow_index.error_object_problem(e JSONB) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN coalesce(jsonb_typeof(e), 'null') = 'null' THEN NULL
    WHEN jsonb_typeof(e) <> 'object' THEN format('error must be an object, got %s', jsonb_typeof(e))
    ELSE coalesce(
      'error.' || workflow_index.string_field_problem(e, 'type', 8192, false),
      'error.' || workflow_index.string_field_problem(e, 'title', 8192, false),
      'error.' || workflow_index.string_field_problem(e, 'instance', 8192, false),
      CASE WHEN coalesce(jsonb_typeof(e -> 'detail'), 'null') NOT IN ('string', 'null')
           THEN format('error.detail must be a string, got %s', jsonb_typeof(e -> 'detail')) END,
      CASE WHEN coalesce(jsonb_typeof(e -> 'status'), 'null') <> 'null' AND workflow_index.integer_or_null(e -> 'status') IS NULL
           THEN format('error.status must be an integer, got %s', left((e -> 'status')::TEXT, 64)) END)
  END
$$;

