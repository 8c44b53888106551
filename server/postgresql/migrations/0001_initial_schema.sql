-- Workflow Index, PostgreSQL schema v1.
--
-- Two schemas:
--   workflow_raw    the raw tables Fluent Bit's pgsql output writes into. The forwarder role has USAGE and
--                   CREATE here (Fluent Bit runs CREATE TABLE IF NOT EXISTS at start-up, and PostgreSQL checks
--                   CREATE on the schema before it notices the table exists) and this schema is its search_path.
--   workflow_index  the normalized tables the server reads, plus the normalizer's own bookkeeping.
--
-- Normalization runs in statement-level AFTER INSERT triggers on the raw tables: each INSERT (one Fluent Bit
-- flush) is normalized set-based over its transition table, a handful of statements per flush instead of a
-- plpgsql body per row (measured: per-row plpgsql cost ~60 µs of CPU per event, a no-op row trigger 7 µs).
-- Every rule is a pure function of the set of events of an instance (or of a task position), so any arrival
-- order, any split into flushes and any replay give the same rows:
--   * workflow_instances: each field is taken from the event that is greatest under a fixed total order
--     (a commutative, idempotent merge: folded within the flush, then one upsert per instance);
--   * task_executions: recomputed for every touched (instance, position) from the deduplicated task_events
--     store by a chronological sweep, under per-position advisory locks.
-- A bad event never raises: it stays in the raw table and is recorded in ingest_errors with the reason; an
-- unexpected failure is isolated to its event by bisecting the flush.
--
-- Only the trigger function is SECURITY DEFINER and it pins search_path; the internal functions it calls run
-- inside that setting (no per-call SET, so the SQL helpers are inlined). EXECUTE on all of them is revoked
-- from PUBLIC.

CREATE SCHEMA IF NOT EXISTS workflow_raw;
CREATE SCHEMA IF NOT EXISTS workflow_index;

-- Group roles (NOLOGIN). Login roles become members of them (see sql/create-login-roles.sql or the init job).
DO $$
BEGIN
  BEGIN
    CREATE ROLE workflow_index_reader NOLOGIN;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
  END;
  BEGIN
    CREATE ROLE workflow_index_forwarder NOLOGIN;
  EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
  END;
END
$$;

-- ------------------------------------------------------------------------------------------------
-- Raw tables: (tag, time, data) is exactly what Fluent Bit's pgsql output inserts, positionally.
-- The trailing identity column only gives each row a stable reference for ingest_errors.
-- ------------------------------------------------------------------------------------------------
CREATE TABLE workflow_raw.workflow_events_raw (
  tag  TEXT,
  time TIMESTAMPTZ,
  data JSONB,
  id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY
);
CREATE TABLE workflow_raw.task_events_raw (
  tag  TEXT,
  time TIMESTAMPTZ,
  data JSONB,
  id   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY
);
-- BRIN: nearly free on insert, and enough for retention deletes by time.
CREATE INDEX workflow_events_raw_time_brin ON workflow_raw.workflow_events_raw USING brin (time);
CREATE INDEX task_events_raw_time_brin ON workflow_raw.task_events_raw USING brin (time);

-- ------------------------------------------------------------------------------------------------
-- Normalized tables. Text is COLLATE "C": ordering and comparison by code point, case-sensitive,
-- identical to the OpenSearch backend's keyword ordering.
-- ------------------------------------------------------------------------------------------------
CREATE TABLE workflow_index.workflow_instances (
  id              TEXT COLLATE "C" PRIMARY KEY,
  namespace       TEXT COLLATE "C",
  name            TEXT COLLATE "C",
  version         TEXT COLLATE "C",
  status          TEXT COLLATE "C" NOT NULL,
  start_time      TIMESTAMPTZ,
  end_time        TIMESTAMPTZ,
  last_update     TIMESTAMPTZ,
  input           JSONB,
  output          JSONB,
  error_type      TEXT COLLATE "C",
  error_title     TEXT COLLATE "C",
  error_detail    TEXT COLLATE "C",
  error_status    INTEGER,
  error_instance  TEXT COLLATE "C",
  -- Bookkeeping of the merge (which event each field came from). started_event_time IS NULL marks a
  -- placeholder: events seen, workflow.started not yet; placeholders are never served.
  started_event_time TIMESTAMPTZ,
  status_terminal    BOOLEAN NOT NULL,
  status_event_time  TIMESTAMPTZ NOT NULL,
  status_rank        SMALLINT NOT NULL,
  input_rank         SMALLINT NOT NULL DEFAULT 0,
  input_event_time   TIMESTAMPTZ,
  output_event_time  TIMESTAMPTZ,
  error_event_time   TIMESTAMPTZ,
  created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX workflow_instances_start_idx ON workflow_index.workflow_instances (start_time DESC NULLS LAST, id);
CREATE INDEX workflow_instances_status_start_idx ON workflow_index.workflow_instances (status, start_time DESC NULLS LAST, id);
CREATE INDEX workflow_instances_namespace_name_idx ON workflow_index.workflow_instances (namespace, name, start_time DESC NULLS LAST);
CREATE INDEX workflow_instances_name_idx ON workflow_index.workflow_instances (name, start_time DESC NULLS LAST);
CREATE INDEX workflow_instances_end_idx ON workflow_index.workflow_instances (end_time);
CREATE INDEX workflow_instances_last_update_idx ON workflow_index.workflow_instances (last_update);
CREATE INDEX workflow_instances_placeholder_idx ON workflow_index.workflow_instances (id) WHERE started_event_time IS NULL;
CREATE INDEX workflow_instances_input_gin ON workflow_index.workflow_instances USING gin (input jsonb_path_ops);
CREATE INDEX workflow_instances_output_gin ON workflow_index.workflow_instances USING gin (output jsonb_path_ops);

CREATE TABLE workflow_index.task_executions (
  id              TEXT COLLATE "C" PRIMARY KEY,
  instance_id     TEXT COLLATE "C" NOT NULL,
  task_position   TEXT COLLATE "C" NOT NULL,
  task_name       TEXT COLLATE "C" NOT NULL,
  status          TEXT COLLATE "C" NOT NULL,
  start_time      TIMESTAMPTZ,
  end_time        TIMESTAMPTZ,
  input           JSONB,
  output          JSONB,
  error_type      TEXT COLLATE "C",
  error_title     TEXT COLLATE "C",
  error_detail    TEXT COLLATE "C",
  error_status    INTEGER,
  error_instance  TEXT COLLATE "C",
  -- 1-based chronological ordinal of the execution at its position (loop iteration / attempt).
  execution_index INTEGER NOT NULL,
  updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX task_executions_instance_idx ON workflow_index.task_executions (instance_id, start_time, end_time, id);
CREATE INDEX task_executions_position_idx ON workflow_index.task_executions (instance_id, task_position);
CREATE INDEX task_executions_start_idx ON workflow_index.task_executions (start_time DESC NULLS LAST, id);
CREATE INDEX task_executions_name_start_idx ON workflow_index.task_executions (task_name, start_time DESC NULLS LAST);
CREATE INDEX task_executions_status_idx ON workflow_index.task_executions (status, start_time DESC NULLS LAST);

-- The normalizer's deduplicated store of task events: the input of the per-position recomputation.
-- The primary key is the identity of an event, so a replayed event is recognised and skipped.
CREATE TABLE workflow_index.task_events (
  instance_id    TEXT COLLATE "C" NOT NULL,
  task_position  TEXT COLLATE "C" NOT NULL,
  event_time     TIMESTAMPTZ NOT NULL,
  event_kind     TEXT COLLATE "C" NOT NULL,  -- started | retried | suspended | resumed | completed | faulted | cancelled
  task_name      TEXT COLLATE "C" NOT NULL,
  status         TEXT COLLATE "C",
  at_time        TIMESTAMPTZ NOT NULL,       -- startTime / endTime, else timestamp
  has_input      BOOLEAN NOT NULL,
  input          JSONB,
  has_output     BOOLEAN NOT NULL,
  output         JSONB,
  has_error      BOOLEAN NOT NULL,
  error_type     TEXT,
  error_title    TEXT,
  error_detail   TEXT,
  error_status   INTEGER,
  error_instance TEXT,
  raw_id         BIGINT,
  -- The record time the forwarder gave the log line (Fluent Bit: the container runtime's timestamp, ns
  -- precision). It tells apart two events of the same kind at the same position and the same (e.g. millisecond)
  -- timestamp, orders them as they were logged, and is the same when the same line is read again.
  record_time    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (instance_id, task_position, event_time, event_kind, record_time)
);

CREATE TABLE workflow_index.ingest_errors (
  id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  raw_table   TEXT NOT NULL,
  raw_id      BIGINT,
  instance_id TEXT,
  event_type  TEXT,
  reason      TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ingest_errors_created_idx ON workflow_index.ingest_errors (created_at);

-- ------------------------------------------------------------------------------------------------
-- Parsing and validation helpers: plain SQL expressions (inlined by the planner), returning NULL instead of
-- raising, so validation never aborts a batch.
-- ------------------------------------------------------------------------------------------------

-- Epoch microseconds (numeric) to a timestamp, rounded half-to-even; NULL when not a plausible event time.
-- (Every helper here is a single SQL expression with honest volatility, so the planner inlines it: a SQL
-- function that is not inlined costs a full function-executor call per row.)
CREATE FUNCTION workflow_index.micros_to_time(us NUMERIC) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN abs(us) <= 9e15
    THEN to_timestamp(0) + (CASE WHEN abs(us - trunc(us)) = 0.5 THEN 2 * round(us / 2) ELSE round(us) END)::BIGINT * INTERVAL '1 microsecond'
  END
$$;

-- An epoch number: below 1e11 seconds, below 1e14 milliseconds, below 1e17 microseconds, else nanoseconds.
CREATE FUNCTION workflow_index.epoch_to_time(n NUMERIC) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN abs(n) < 1e11 THEN workflow_index.micros_to_time(n * 1000000)
              WHEN abs(n) < 1e14 THEN workflow_index.micros_to_time(n * 1000)
              WHEN abs(n) < 1e17 THEN workflow_index.micros_to_time(n)
              WHEN abs(n) < 1e25 THEN workflow_index.micros_to_time(n / 1000) END
$$;

-- A time value: a JSON number or numeric string (epoch, see above), or an ISO-8601 string with an offset.
CREATE FUNCTION workflow_index.parse_event_time(v JSONB) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'number' THEN workflow_index.epoch_to_time((v #>> '{}')::NUMERIC)
    WHEN 'string' THEN CASE
      WHEN btrim(v #>> '{}') ~ '^[+-]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})([eE][+-]?[0-9]{1,3})?$'
        THEN workflow_index.epoch_to_time(btrim(v #>> '{}')::NUMERIC)
      -- Shape checked here; an impossible date that still matches (Feb 30) raises in the cast and is then
      -- isolated and recorded by the batch bisection in apply_events.
      WHEN (v #>> '{}') ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9]([.,][0-9]{1,12})?)?([Zz]|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)$'
        THEN replace(v #>> '{}', ',', '.')::TIMESTAMPTZ
    END
  END
$$;

-- Workflow status as served: the five enum values; other "not finished" statuses (WAITING, PENDING, …) are RUNNING.
CREATE FUNCTION workflow_index.normalize_workflow_status(s TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE upper(s)
    WHEN 'COMPLETED' THEN 'COMPLETED'
    WHEN 'FAULTED' THEN 'FAULTED'
    WHEN 'FAILED' THEN 'FAULTED'
    WHEN 'CANCELLED' THEN 'CANCELLED'
    WHEN 'CANCELED' THEN 'CANCELLED'
    WHEN 'SUSPENDED' THEN 'SUSPENDED'
    ELSE 'RUNNING'
  END
$$;

-- Tie-break between different statuses of events with the same timestamp (a fixed total order).
CREATE FUNCTION workflow_index.status_rank(s TEXT) RETURNS SMALLINT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE s WHEN 'FAULTED' THEN 5 WHEN 'CANCELLED' THEN 4 WHEN 'COMPLETED' THEN 3 WHEN 'SUSPENDED' THEN 2 ELSE 1 END::SMALLINT
$$;

-- Status of a closing task event: FAILED is served as FAULTED; without a status, the event type decides.
CREATE FUNCTION workflow_index.task_end_status(status TEXT, kind TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN upper(status) IN ('FAILED', 'FAULTED') THEN 'FAULTED'
    WHEN upper(status) IN ('CANCELLED', 'CANCELED') THEN 'CANCELLED'
    WHEN upper(status) = 'COMPLETED' THEN 'COMPLETED'
    ELSE CASE kind WHEN 'faulted' THEN 'FAULTED' WHEN 'cancelled' THEN 'CANCELLED' ELSE 'COMPLETED' END
  END
$$;

-- NULL when v (the value of field `key`) is acceptable as a string field, else the reason.
CREATE FUNCTION workflow_index.value_problem(v JSONB, key TEXT, max_len INTEGER, required BOOLEAN) RETURNS TEXT
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

CREATE FUNCTION workflow_index.string_field_problem(d JSONB, key TEXT, max_len INTEGER, required BOOLEAN) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT workflow_index.value_problem(d -> key, key, max_len, required)
$$;

-- NULL when v (the value of field `key`, parsed as t) is absent, JSON null, or a valid time; else the reason.
CREATE FUNCTION workflow_index.time_value_problem(v JSONB, t TIMESTAMPTZ, key TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN coalesce(jsonb_typeof(v), 'null') <> 'null' AND t IS NULL
              THEN format('%s %s is not a valid time', key, left(v::TEXT, 64)) END
$$;

CREATE FUNCTION workflow_index.integer_or_null(v JSONB) RETURNS INTEGER
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN jsonb_typeof(v) IN ('number', 'string') AND (v #>> '{}') ~ '^-?[0-9]{1,9}$' THEN (v #>> '{}')::INTEGER END
$$;

-- The problem-details error object of a faulted event: NULL when acceptable, else the reason.
CREATE FUNCTION workflow_index.error_object_problem(e JSONB) RETURNS TEXT
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

-- ------------------------------------------------------------------------------------------------
-- parse_events: one row per raw event with everything the normalizer needs, and `reason` (NULL when the
-- event is accepted, else why it is rejected). Pure: no side effects, never raises on content (see above).
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.parse_events(p_ids BIGINT[], p_data JSONB[], p_times TIMESTAMPTZ[])
RETURNS TABLE (
  raw_id BIGINT, record_time TIMESTAMPTZ, instance_id TEXT, event_type TEXT, kind TEXT, action TEXT, ts TIMESTAMPTZ, reason TEXT,
  -- workflow events
  namespace TEXT, name TEXT, version TEXT, status TEXT, terminal BOOLEAN, rank SMALLINT,
  start_time TIMESTAMPTZ, end_time TIMESTAMPTZ, input_rank SMALLINT, input JSONB, has_output BOOLEAN, output JSONB,
  has_error BOOLEAN, error_type TEXT, error_title TEXT, error_detail TEXT, error_status INTEGER, error_instance TEXT,
  -- task events
  task_position TEXT, task_name TEXT, task_status TEXT, at_time TIMESTAMPTZ)
LANGUAGE sql STABLE
AS $$
  -- Four levels, each fenced with OFFSET 0 so the planner does not flatten them and re-evaluate a derived column
  -- at every place it is referenced: each field is extracted from the event once (e), typed once (t), then the
  -- event is classified (c), validated and projected.
  SELECT c.raw_id, coalesce(c.record_time, c.ts), c.iid, c.et, c.kind, c.action, c.ts,
    CASE
      WHEN c.dtype <> 'object' THEN format('event is not a JSON object (got %s)', c.dtype)
      ELSE coalesce(
        workflow_index.value_problem(c.j_et, 'eventType', 512, true),
        CASE WHEN c.kind IS NULL THEN format('unknown eventType %s', left(c.et, 200)) END,
        workflow_index.value_problem(c.j_iid, 'instanceId', 255, true),
        CASE WHEN coalesce(jsonb_typeof(c.j_ts), 'null') = 'null' THEN 'missing timestamp' END,
        CASE WHEN c.ts IS NULL THEN format('timestamp %s is not a valid time', left(c.j_ts::TEXT, 64)) END,
        CASE WHEN c.kind = 'workflow' AND c.action NOT IN ('started', 'completed', 'faulted', 'cancelled', 'suspended', 'resumed', 'status-changed')
               OR c.kind = 'task' AND c.action NOT IN ('started', 'retried', 'suspended', 'resumed', 'completed', 'faulted', 'cancelled')
             THEN format('unknown eventType %s', left(c.et, 200)) END,
        CASE WHEN c.kind = 'workflow' THEN coalesce(
          CASE WHEN c.action = 'started' THEN coalesce(
            workflow_index.value_problem(c.j_wname, 'workflowName', 512, true),
            workflow_index.value_problem(c.j_wns, 'workflowNamespace', 512, false),
            workflow_index.value_problem(c.j_wver, 'workflowVersion', 256, false),
            workflow_index.time_value_problem(c.j_start, c.t_start, 'startTime')) END,
          workflow_index.time_value_problem(c.j_end, c.t_end, 'endTime'),
          workflow_index.time_value_problem(c.j_last, c.t_last, 'lastUpdateTime'),
          workflow_index.value_problem(c.j_status, 'status', 64, c.action = 'status-changed'),
          CASE WHEN c.action = 'faulted' THEN workflow_index.error_object_problem(c.j_error) END)
        ELSE coalesce(
          workflow_index.value_problem(c.j_pos, 'taskPosition', 1024, true),
          workflow_index.value_problem(c.j_tname, 'taskName', 512, false),
          -- <instanceId>:<taskPosition> ids are unambiguous only when the instance id has no ':'
          CASE WHEN strpos(c.iid, ':') > 0
               THEN 'instanceId contains '':'', which would make task execution ids (<instanceId>:<taskPosition>) ambiguous' END,
          workflow_index.value_problem(c.j_status, 'status', 64, false),
          CASE c.action WHEN 'started' THEN workflow_index.time_value_problem(c.j_start, c.t_start, 'startTime')
                        WHEN 'completed' THEN workflow_index.time_value_problem(c.j_end, c.t_end, 'endTime')
                        WHEN 'faulted' THEN workflow_index.time_value_problem(c.j_end, c.t_end, 'endTime')
                        WHEN 'cancelled' THEN workflow_index.time_value_problem(c.j_end, c.t_end, 'endTime') END,
          CASE WHEN c.action = 'faulted' THEN workflow_index.error_object_problem(c.j_error) END)
        END)
    END,
    -- workflow fields
    CASE WHEN c.action = 'started' THEN c.j_wns #>> '{}' END,
    CASE WHEN c.action = 'started' THEN c.j_wname #>> '{}' END,
    CASE WHEN c.action = 'started' THEN c.j_wver #>> '{}' END,
    c.wstatus,
    c.wstatus IN ('COMPLETED', 'FAULTED', 'CANCELLED'),
    workflow_index.status_rank(c.wstatus),
    CASE WHEN c.action = 'started' THEN coalesce(c.t_start, c.ts) END,
    coalesce(c.t_end, c.ts),
    CASE WHEN c.kind = 'workflow' AND c.has_input AND c.action IN ('started', 'faulted')
         THEN CASE WHEN c.action = 'started' THEN 2 ELSE 1 END ELSE 0 END::SMALLINT,
    CASE WHEN c.action IN ('started', 'faulted') THEN nullif(c.j_input, 'null'::JSONB) END,
    c.action = 'completed' AND c.has_output,
    CASE WHEN c.action = 'completed' THEN nullif(c.j_output, 'null'::JSONB) END,
    c.has_error,
    CASE WHEN c.has_error THEN c.j_error ->> 'type' END,
    CASE WHEN c.has_error THEN c.j_error ->> 'title' END,
    CASE WHEN c.has_error THEN c.j_error ->> 'detail' END,
    CASE WHEN c.has_error THEN workflow_index.integer_or_null(c.j_error -> 'status') END,
    CASE WHEN c.has_error THEN c.j_error ->> 'instance' END,
    -- task fields
    c.j_pos #>> '{}',
    coalesce(c.j_tname #>> '{}', regexp_replace(c.j_pos #>> '{}', '^.*/', '')),
    c.j_status #>> '{}',
    coalesce(CASE WHEN c.action = 'started' THEN c.t_start
                  WHEN c.action IN ('completed', 'faulted', 'cancelled') THEN c.t_end END, c.ts)
  FROM (
    SELECT t.*, t.m[1] AS kind, t.m[2] AS action,
           workflow_index.normalize_workflow_status(coalesce(
             CASE WHEN jsonb_typeof(t.j_status) = 'string' THEN t.j_status #>> '{}' END,
             CASE t.m[2] WHEN 'completed' THEN 'COMPLETED' WHEN 'faulted' THEN 'FAULTED' WHEN 'cancelled' THEN 'CANCELLED'
                         WHEN 'suspended' THEN 'SUSPENDED' ELSE 'RUNNING' END)) AS wstatus,
           coalesce(t.m[2] IN ('faulted', 'completed', 'cancelled') AND jsonb_typeof(t.j_error) = 'object'
                    AND (t.m[1] = 'task' OR t.m[2] = 'faulted'), false) AS has_error
    FROM (
      SELECT e.*,
             CASE WHEN jsonb_typeof(e.j_et) = 'string' THEN e.j_et #>> '{}' END AS et,
             -- Match on the suffix: the producer's prefix (io.serverlessworkflow.) may change in future SDKs.
             regexp_match(CASE WHEN jsonb_typeof(e.j_et) = 'string' THEN e.j_et #>> '{}' END,
                          '(?:^|\.)(workflow|task)\.([a-z-]+)\.v[0-9]+$') AS m,
             e.j_iid #>> '{}' AS iid,
             workflow_index.parse_event_time(e.j_ts) AS ts,
             workflow_index.parse_event_time(e.j_start) AS t_start,
             workflow_index.parse_event_time(e.j_end) AS t_end,
             workflow_index.parse_event_time(e.j_last) AS t_last
      FROM (
        SELECT u.raw_id, u.record_time, coalesce(jsonb_typeof(u.d), 'nothing') AS dtype,
               o.d -> 'eventType' AS j_et, o.d -> 'instanceId' AS j_iid, o.d -> 'timestamp' AS j_ts,
               o.d -> 'startTime' AS j_start, o.d -> 'endTime' AS j_end, o.d -> 'lastUpdateTime' AS j_last,
               o.d -> 'status' AS j_status, o.d -> 'taskPosition' AS j_pos, o.d -> 'taskName' AS j_tname,
               o.d -> 'workflowName' AS j_wname, o.d -> 'workflowNamespace' AS j_wns, o.d -> 'workflowVersion' AS j_wver,
               o.d -> 'error' AS j_error, o.d -> 'input' AS j_input, coalesce(o.d ? 'input', false) AS has_input,
               o.d -> 'output' AS j_output, coalesce(o.d ? 'output', false) AS has_output
        FROM unnest(p_ids, p_data, p_times) AS u(raw_id, d, record_time)
        CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(u.d) = 'object' THEN u.d END AS d) o
        OFFSET 0
      ) e
      OFFSET 0
    ) t
    OFFSET 0
  ) c
$$;

-- ------------------------------------------------------------------------------------------------
-- apply_events: normalizes a set of raw events (one Fluent Bit flush) with a few set-based statements.
-- If any statement raises, the set is split in halves and each half retried in its own subtransaction, down
-- to the single event, which is then recorded in ingest_errors: a bad event never blocks the good ones.
-- Conditions a retry can cure (deadlock, serialization failure, cancellation, shutdown) propagate instead,
-- so the writer retries the whole flush.
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.apply_events(p_table TEXT, p_ids BIGINT[], p_data JSONB[], p_times TIMESTAMPTZ[]) RETURNS VOID
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  n INTEGER := coalesce(cardinality(p_ids), 0);
  half INTEGER;
  t_iids TEXT[];
  t_pos TEXT[];
BEGIN
  IF n = 0 THEN
    RETURN;
  END IF;
  BEGIN
    -- 1. Parse once; record rejected events; merge workflow events; store task events (deduplicated).
    WITH parsed AS MATERIALIZED (
      SELECT * FROM parse_events(p_ids, p_data, p_times)
    ), rejected AS (
      INSERT INTO ingest_errors (raw_table, raw_id, instance_id, event_type, reason)
      SELECT p_table, raw_id, left(instance_id, 255), left(event_type, 255), reason FROM parsed WHERE reason IS NOT NULL
    ), wf AS (
      -- Within the flush, fold each instance's events into one row with the same rules as the upsert below.
      SELECT p.instance_id AS id,
        (array_agg(p.namespace ORDER BY p.ts) FILTER (WHERE p.action = 'started'))[1] AS namespace,
        (array_agg(p.name ORDER BY p.ts) FILTER (WHERE p.action = 'started'))[1] AS name,
        (array_agg(p.version ORDER BY p.ts) FILTER (WHERE p.action = 'started'))[1] AS version,
        (array_agg(p.start_time ORDER BY p.ts) FILTER (WHERE p.action = 'started'))[1] AS start_time,
        min(p.ts) FILTER (WHERE p.action = 'started') AS started_event_time,
        (array_agg(p.status ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC))[1] AS status,
        (array_agg(p.terminal ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC))[1] AS status_terminal,
        (array_agg(p.ts ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC))[1] AS status_event_time,
        (array_agg(p.rank ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC))[1] AS status_rank,
        (array_agg(CASE WHEN p.terminal THEN p.end_time END ORDER BY p.terminal DESC, p.ts DESC, p.rank DESC))[1] AS end_time,
        max(p.ts) AS last_update,
        coalesce(max(p.input_rank), 0) AS input_rank,
        (array_agg(p.input ORDER BY p.input_rank DESC, p.ts DESC) FILTER (WHERE p.input_rank > 0))[1] AS input,
        (array_agg(p.ts ORDER BY p.input_rank DESC, p.ts DESC) FILTER (WHERE p.input_rank > 0))[1] AS input_event_time,
        (array_agg(p.output ORDER BY p.ts DESC) FILTER (WHERE p.has_output))[1] AS output,
        max(p.ts) FILTER (WHERE p.has_output) AS output_event_time,
        (array_agg(p.error_type ORDER BY p.ts DESC) FILTER (WHERE p.has_error))[1] AS error_type,
        (array_agg(p.error_title ORDER BY p.ts DESC) FILTER (WHERE p.has_error))[1] AS error_title,
        (array_agg(p.error_detail ORDER BY p.ts DESC) FILTER (WHERE p.has_error))[1] AS error_detail,
        (array_agg(p.error_status ORDER BY p.ts DESC) FILTER (WHERE p.has_error))[1] AS error_status,
        (array_agg(p.error_instance ORDER BY p.ts DESC) FILTER (WHERE p.has_error))[1] AS error_instance,
        max(p.ts) FILTER (WHERE p.has_error) AS error_event_time
      FROM parsed p
      WHERE p.reason IS NULL AND p.kind = 'workflow'
      GROUP BY p.instance_id
    ), upserted AS (
      INSERT INTO workflow_instances AS w (
        id, namespace, name, version, status, start_time, end_time, last_update, input, output,
        error_type, error_title, error_detail, error_status, error_instance,
        started_event_time, status_terminal, status_event_time, status_rank,
        input_rank, input_event_time, output_event_time, error_event_time)
      SELECT id, namespace, name, version, status, start_time, end_time, last_update, input, output,
        error_type, error_title, error_detail, error_status, error_instance,
        started_event_time, status_terminal, status_event_time, status_rank,
        input_rank, input_event_time, output_event_time, error_event_time
      FROM wf
      ORDER BY id  -- a fixed lock order across concurrent writers
      ON CONFLICT (id) DO UPDATE SET
        -- identity and start: from the earliest workflow.started
        (namespace, name, version, start_time, started_event_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.namespace ELSE w.namespace END,
                  CASE WHEN pick THEN EXCLUDED.name ELSE w.name END,
                  CASE WHEN pick THEN EXCLUDED.version ELSE w.version END,
                  CASE WHEN pick THEN EXCLUDED.start_time ELSE w.start_time END,
                  CASE WHEN pick THEN EXCLUDED.started_event_time ELSE w.started_event_time END
           FROM (SELECT EXCLUDED.started_event_time IS NOT NULL
                    AND (w.started_event_time IS NULL OR EXCLUDED.started_event_time < w.started_event_time) AS pick) s),
        -- status: the newest terminal event if any, else the newest event; end only with a terminal status
        (status, status_terminal, status_event_time, status_rank, end_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.status ELSE w.status END,
                  CASE WHEN pick THEN EXCLUDED.status_terminal ELSE w.status_terminal END,
                  CASE WHEN pick THEN EXCLUDED.status_event_time ELSE w.status_event_time END,
                  CASE WHEN pick THEN EXCLUDED.status_rank ELSE w.status_rank END,
                  CASE WHEN pick THEN EXCLUDED.end_time ELSE w.end_time END
           FROM (SELECT (EXCLUDED.status_terminal, EXCLUDED.status_event_time, EXCLUDED.status_rank)
                      > (w.status_terminal, w.status_event_time, w.status_rank) AS pick) s),
        last_update = greatest(w.last_update, EXCLUDED.last_update),
        -- input: workflow.started's, else workflow.faulted's (newest)
        (input, input_rank, input_event_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.input ELSE w.input END,
                  CASE WHEN pick THEN EXCLUDED.input_rank ELSE w.input_rank END,
                  CASE WHEN pick THEN EXCLUDED.input_event_time ELSE w.input_event_time END
           FROM (SELECT EXCLUDED.input_rank > 0 AND (EXCLUDED.input_rank, EXCLUDED.input_event_time)
                      > (w.input_rank, coalesce(w.input_event_time, '-infinity')) AS pick) s),
        (output, output_event_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.output ELSE w.output END,
                  CASE WHEN pick THEN EXCLUDED.output_event_time ELSE w.output_event_time END
           FROM (SELECT EXCLUDED.output_event_time > coalesce(w.output_event_time, '-infinity') AS pick) s),
        (error_type, error_title, error_detail, error_status, error_instance, error_event_time) =
          (SELECT CASE WHEN pick THEN EXCLUDED.error_type ELSE w.error_type END,
                  CASE WHEN pick THEN EXCLUDED.error_title ELSE w.error_title END,
                  CASE WHEN pick THEN EXCLUDED.error_detail ELSE w.error_detail END,
                  CASE WHEN pick THEN EXCLUDED.error_status ELSE w.error_status END,
                  CASE WHEN pick THEN EXCLUDED.error_instance ELSE w.error_instance END,
                  CASE WHEN pick THEN EXCLUDED.error_event_time ELSE w.error_event_time END
           FROM (SELECT EXCLUDED.error_event_time > coalesce(w.error_event_time, '-infinity') AS pick) s),
        updated_at = now()
    ), placeholders AS (
      -- An instance known only from task events gets a placeholder row (not served until workflow.started),
      -- so placeholders are counted from one partial index. Its status bookkeeping loses to any workflow event.
      INSERT INTO workflow_instances (id, status, status_terminal, status_event_time, status_rank)
      SELECT DISTINCT p.instance_id, 'RUNNING', false, '-infinity'::TIMESTAMPTZ, 0::SMALLINT
      FROM parsed p
      WHERE p.reason IS NULL AND p.kind = 'task'
        AND NOT EXISTS (SELECT 1 FROM wf WHERE wf.id = p.instance_id)
      ORDER BY 1  -- the same lock order as the upsert above, across concurrent writers
      ON CONFLICT (id) DO NOTHING
    ), stored AS (
      INSERT INTO task_events (instance_id, task_position, event_time, event_kind, task_name, status, at_time,
                               has_input, input, has_output, output, has_error,
                               error_type, error_title, error_detail, error_status, error_instance, raw_id, record_time)
      SELECT p.instance_id, p.task_position, p.ts, p.action, p.task_name, p.task_status, p.at_time,
             p.input IS NOT NULL, p.input, p.has_output, p.output, p.has_error,
             p.error_type, p.error_title, p.error_detail, p.error_status, p.error_instance, p.raw_id, p.record_time
      FROM parsed p
      WHERE p.reason IS NULL AND p.kind = 'task'
      ORDER BY p.instance_id, p.task_position
      ON CONFLICT DO NOTHING  -- a replayed event is already stored and changes nothing
      RETURNING task_events.instance_id, task_events.task_position
    )
    SELECT array_agg(s.instance_id ORDER BY s.instance_id, s.task_position), array_agg(s.task_position ORDER BY s.instance_id, s.task_position)
    INTO t_iids, t_pos
    FROM (SELECT DISTINCT stored.instance_id, stored.task_position FROM stored) s;

    IF t_iids IS NOT NULL THEN
      -- 2. Serialize recomputation per position, in a fixed order (no deadlock between writers). A separate
      --    statement, so the recomputation below runs on a snapshot taken after the locks were granted and sees
      --    every event a concurrent writer committed at these positions.
      PERFORM pg_advisory_xact_lock(hashtextextended(a.i || chr(31) || a.p, 1597))
      FROM unnest(t_iids, t_pos) WITH ORDINALITY AS a(i, p, o) ORDER BY a.o;

      -- 3. Recompute the executions of every touched position from all its stored events.
      -- Per-key index lookups, then a TID scan: plan shapes that do not depend on statistics. (With statistics
      -- from an emptier table, the planner flattens a join and drives it from a full index scan instead.)
      DELETE FROM task_executions
      WHERE ctid = ANY (ARRAY(SELECT x.ctid FROM unnest(t_iids, t_pos) AS a(i, p)
                              CROSS JOIN LATERAL (SELECT t.ctid FROM task_executions t
                                                  WHERE t.instance_id = a.i AND t.task_position = a.p
                                                  OFFSET 0) x));  -- OFFSET 0: not flattened, evaluated per key

      INSERT INTO task_executions (id, instance_id, task_position, task_name, status, start_time, end_time, input, output,
                                   error_type, error_title, error_detail, error_status, error_instance, execution_index)
      SELECT x.base || CASE WHEN x.execution_index = 1 THEN ''
                            ELSE '@' || (extract(epoch FROM coalesce(x.start_time, x.end_time)) * 1000000)::NUMERIC(20, 0)::TEXT
                                 || CASE WHEN x.dup > 1 THEN '#' || x.execution_index ELSE '' END END,
             x.instance_id, x.task_position, x.task_name, x.status, x.start_time, x.end_time, x.input, x.output,
             x.error_type, x.error_title, x.error_detail, x.error_status, x.error_instance, x.execution_index
      FROM (
        SELECT y.*, row_number() OVER (PARTITION BY y.instance_id, y.task_position, coalesce(y.start_time, y.end_time)
                                       ORDER BY y.execution_index) AS dup
        FROM (
          SELECT z.*, z.instance_id || ':' || z.task_position AS base,
                 row_number() OVER (PARTITION BY z.instance_id, z.task_position ORDER BY z.first_seq)::INTEGER AS execution_index
          FROM task_position_executions(t_iids, t_pos) z
        ) y
      ) x;
    END IF;
  EXCEPTION
    WHEN deadlock_detected OR serialization_failure OR query_canceled OR lock_not_available
         OR admin_shutdown OR crash_shutdown OR cannot_connect_now OR insufficient_resources OR disk_full
         OR out_of_memory THEN
      RAISE;
    WHEN OTHERS THEN
      IF n = 1 THEN
        INSERT INTO ingest_errors (raw_table, raw_id, instance_id, event_type, reason)
        VALUES (p_table, p_ids[1],
                CASE WHEN jsonb_typeof(p_data[1]) = 'object' THEN left(p_data[1] ->> 'instanceId', 255) END,
                CASE WHEN jsonb_typeof(p_data[1]) = 'object' THEN left(p_data[1] ->> 'eventType', 255) END,
                format('normalizer error %s: %s', SQLSTATE, SQLERRM));
      ELSE
        half := n / 2;
        PERFORM apply_events(p_table, p_ids[1:half], p_data[1:half], p_times[1:half]);
        PERFORM apply_events(p_table, p_ids[half + 1:n], p_data[half + 1:n], p_times[half + 1:n]);
      END IF;
  END;
END
$$;

-- ------------------------------------------------------------------------------------------------
-- The executions at the given (instance, position) pairs as a pure function of their stored events: a
-- chronological sweep where started/retried open an execution, completed/faulted/cancelled close the most
-- recently opened one still open (or form a completion-only execution when none is open), and
-- suspended/resumed set the status of that one. Computed set-based as bracket matching: with the running
-- balance of opens minus closes clamped at zero (b = S - min(0, min S so far)), a close that finds b > 0
-- closes the latest open at level b; suspend/resume attach the same way.
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.task_position_executions(p_iids TEXT[], p_pos TEXT[])
RETURNS TABLE (instance_id TEXT, task_position TEXT, first_seq BIGINT, task_name TEXT, status TEXT,
               start_time TIMESTAMPTZ, end_time TIMESTAMPTZ, input JSONB, output JSONB,
               error_type TEXT, error_title TEXT, error_detail TEXT, error_status INTEGER, error_instance TEXT)
LANGUAGE sql STABLE
AS $$
  WITH ev AS (
    SELECT e.*,
           CASE WHEN e.event_kind IN ('started', 'retried') THEN 1
                WHEN e.event_kind IN ('completed', 'faulted', 'cancelled') THEN -1 ELSE 0 END AS delta,
           row_number() OVER (PARTITION BY e.instance_id, e.task_position
                              ORDER BY e.event_time, e.record_time,
                                       CASE e.event_kind WHEN 'started' THEN 0 WHEN 'retried' THEN 1 WHEN 'suspended' THEN 2
                                                         WHEN 'resumed' THEN 3 ELSE 4 END,
                                       e.event_kind) AS seq
    FROM unnest(p_iids, p_pos) AS a(i, p)
    CROSS JOIN LATERAL (SELECT * FROM workflow_index.task_events t
                        WHERE t.instance_id = a.i AND t.task_position = a.p
                        OFFSET 0) e  -- per-key index lookups (OFFSET 0: not flattened into a join)
  ), sums AS (
    SELECT ev.*, sum(ev.delta) OVER w AS s_after
    FROM ev WINDOW w AS (PARTITION BY ev.instance_id, ev.task_position ORDER BY ev.seq)
  ), balance AS (
    SELECT sums.*, sums.s_after - least(0, min(sums.s_after) OVER w) AS b_after
    FROM sums WINDOW w AS (PARTITION BY sums.instance_id, sums.task_position ORDER BY sums.seq)
  ), levels AS (
    SELECT balance.*,
           coalesce(lag(balance.b_after) OVER w, 0) AS b_before
    FROM balance WINDOW w AS (PARTITION BY balance.instance_id, balance.task_position ORDER BY balance.seq)
  ), matched AS (
    SELECT levels.*,
           CASE WHEN levels.delta = 1 THEN levels.seq
                WHEN levels.b_before > 0 THEN max(CASE WHEN levels.delta = 1 THEN levels.seq END) OVER w END AS open_seq
    FROM levels
    WINDOW w AS (PARTITION BY levels.instance_id, levels.task_position, CASE WHEN levels.delta = 1 THEN levels.b_after ELSE levels.b_before END
                 ORDER BY levels.seq ROWS UNBOUNDED PRECEDING)
  )
  -- One group per execution, keyed by its opening event (the start, its closing event and its pauses), or by
  -- the closing event itself when nothing was open: a single aggregation, no self-join.
  SELECT g.instance_id, g.task_position, g.first_seq, g.task_name,
         CASE WHEN g.has_close THEN workflow_index.task_end_status(g.c_status, g.c_kind)
              WHEN g.last_pause = 'suspended' THEN 'SUSPENDED' ELSE 'RUNNING' END,
         g.start_time, g.end_time,
         coalesce(g.s_input, g.c_input),  -- the start's input, else the closing event's (task.faulted carries it)
         CASE WHEN g.c_has_output THEN g.c_output END,
         CASE WHEN g.c_has_error THEN g.c_error_type END, CASE WHEN g.c_has_error THEN g.c_error_title END,
         CASE WHEN g.c_has_error THEN g.c_error_detail END, CASE WHEN g.c_has_error THEN g.c_error_status END,
         CASE WHEN g.c_has_error THEN g.c_error_instance END
  FROM (
    SELECT m.instance_id, m.task_position,
           min(m.seq) AS first_seq,
           (array_agg(m.task_name ORDER BY m.seq))[1] AS task_name,
           min(m.at_time) FILTER (WHERE m.delta = 1) AS start_time,
           min(m.at_time) FILTER (WHERE m.delta = -1) AS end_time,
           bool_or(m.delta = -1) AS has_close,
           (array_agg(m.status) FILTER (WHERE m.delta = -1))[1] AS c_status,
           (array_agg(m.event_kind) FILTER (WHERE m.delta = -1))[1] AS c_kind,
           (array_agg(m.event_kind ORDER BY m.seq DESC) FILTER (WHERE m.delta = 0))[1] AS last_pause,
           (array_agg(m.input) FILTER (WHERE m.delta = 1))[1] AS s_input,
           (array_agg(m.input) FILTER (WHERE m.delta = -1))[1] AS c_input,
           coalesce(bool_or(m.has_output) FILTER (WHERE m.delta = -1), false) AS c_has_output,
           (array_agg(m.output) FILTER (WHERE m.delta = -1))[1] AS c_output,
           coalesce(bool_or(m.has_error) FILTER (WHERE m.delta = -1), false) AS c_has_error,
           (array_agg(m.error_type) FILTER (WHERE m.delta = -1))[1] AS c_error_type,
           (array_agg(m.error_title) FILTER (WHERE m.delta = -1))[1] AS c_error_title,
           (array_agg(m.error_detail) FILTER (WHERE m.delta = -1))[1] AS c_error_detail,
           (array_agg(m.error_status) FILTER (WHERE m.delta = -1))[1] AS c_error_status,
           (array_agg(m.error_instance) FILTER (WHERE m.delta = -1))[1] AS c_error_instance
    FROM matched m
    WHERE m.open_seq IS NOT NULL OR m.delta = -1  -- a pause with nothing open changes nothing
    GROUP BY m.instance_id, m.task_position, coalesce(m.open_seq, -m.seq)
  ) g
$$;

-- ------------------------------------------------------------------------------------------------
-- The triggers: one call per INSERT statement (one Fluent Bit flush) over its transition table. They run as
-- the owner of the normalized tables (SECURITY DEFINER, fixed search_path): the forwarder role can only
-- insert raw rows.
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.normalize_raw_batch() RETURNS TRIGGER
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
-- Every lookup the normalizer makes is a small set of keys against a large table. On a freshly created or
-- truncated database the statistics say the tables are empty, and the planner would then read whole tables or
-- indexes (sequential scans, merge and hash joins) for every flush of a large backlog: quadratic. Nested-loop
-- index lookups are right at any table size.
SET enable_seqscan = off
SET enable_mergejoin = off
SET enable_hashjoin = off
AS $$
DECLARE
  ids BIGINT[];
  datas JSONB[];
  times TIMESTAMPTZ[];
BEGIN
  SELECT array_agg(b.id ORDER BY b.id), array_agg(b.data ORDER BY b.id), array_agg(b.time ORDER BY b.id)
  INTO ids, datas, times FROM batch b;
  PERFORM apply_events(TG_TABLE_NAME, ids, datas, times);
  RETURN NULL;
END
$$;

CREATE TRIGGER normalize_workflow_events AFTER INSERT ON workflow_raw.workflow_events_raw
  REFERENCING NEW TABLE AS batch FOR EACH STATEMENT EXECUTE FUNCTION workflow_index.normalize_raw_batch();
CREATE TRIGGER normalize_task_events AFTER INSERT ON workflow_raw.task_events_raw
  REFERENCING NEW TABLE AS batch FOR EACH STATEMENT EXECUTE FUNCTION workflow_index.normalize_raw_batch();
-- ------------------------------------------------------------------------------------------------
-- Ingestion health for the read-only server role (which cannot read raw tables directly), cheap enough for
-- every metrics scrape at any table size: raw counts from the identity high-water marks (exact unless rows were
-- deleted), placeholders from a partial index, totals exact below 100,000 rows and estimated above.
-- search_path has only pg_catalog: the forwarder may create objects in workflow_raw, and nothing it creates may
-- stand in for a function this SECURITY DEFINER body calls (every name here is schema-qualified).
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.ingest_stats() RETURNS TABLE (
  workflow_raw_events BIGINT, task_raw_events BIGINT, ingest_errors BIGINT, newest_event_time TIMESTAMPTZ,
  placeholder_instances BIGINT, instances BIGINT, task_executions BIGINT)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  WITH estimates AS (
    SELECT (SELECT reltuples FROM pg_class WHERE oid = 'workflow_index.workflow_instances'::regclass) AS instances,
           (SELECT reltuples FROM pg_class WHERE oid = 'workflow_index.task_executions'::regclass) AS tasks
  ), placeholders AS (
    SELECT count(*) AS n FROM workflow_index.workflow_instances WHERE started_event_time IS NULL
  )
  SELECT (SELECT coalesce(max(id), 0) FROM workflow_raw.workflow_events_raw),
         (SELECT coalesce(max(id), 0) FROM workflow_raw.task_events_raw),
         (SELECT coalesce(max(id), 0) FROM workflow_index.ingest_errors),
         (SELECT max(last_update) FROM workflow_index.workflow_instances),
         placeholders.n,
         CASE WHEN estimates.instances < 100000
              THEN (SELECT count(*) FROM workflow_index.workflow_instances) - placeholders.n
              ELSE estimates.instances::BIGINT - placeholders.n END,
         CASE WHEN estimates.tasks < 100000
              THEN (SELECT count(*) FROM workflow_index.task_executions)
              ELSE estimates.tasks::BIGINT END
  FROM estimates, placeholders
$$;

-- ------------------------------------------------------------------------------------------------
-- Privileges: least privilege for both roles.
-- ------------------------------------------------------------------------------------------------
REVOKE ALL ON SCHEMA workflow_raw FROM PUBLIC;
REVOKE ALL ON SCHEMA workflow_index FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA workflow_index FROM PUBLIC;

GRANT USAGE, CREATE ON SCHEMA workflow_raw TO workflow_index_forwarder;
GRANT INSERT ON workflow_raw.workflow_events_raw, workflow_raw.task_events_raw TO workflow_index_forwarder;

GRANT USAGE ON SCHEMA workflow_index TO workflow_index_reader;
GRANT SELECT ON workflow_index.workflow_instances, workflow_index.task_executions TO workflow_index_reader;
GRANT EXECUTE ON FUNCTION workflow_index.ingest_stats() TO workflow_index_reader;
