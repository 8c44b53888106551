-- Workflow Index, PostgreSQL schema v1.
--
-- Two schemas:
--   workflow_raw    the raw tables Fluent Bit's pgsql output writes into. The forwarder role has USAGE and
--                   CREATE here (Fluent Bit runs CREATE TABLE IF NOT EXISTS at start-up, and PostgreSQL checks
--                   CREATE on the schema before it notices the table exists) and this schema is its search_path.
--   workflow_index  the normalized tables the server reads, plus the normalizer's own bookkeeping.
--
-- Normalization runs in BEFORE INSERT triggers on the raw tables. Every rule is a pure function of the set of
-- events of an instance (or of a task position), so any arrival order and any replay give the same rows:
--   * workflow_instances: each field is taken from the event that is greatest under a fixed total order
--     (a commutative, idempotent merge done by one upsert; no reads of other events needed);
--   * task_executions: recomputed for the (instance, position) from the deduplicated task_events store by a
--     chronological sweep, under a per-position advisory lock.
-- A bad event never raises: it stays in the raw table and is recorded in ingest_errors with the reason.

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
  PRIMARY KEY (instance_id, task_position, event_time, event_kind)
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
-- Parsing helpers. They return NULL instead of raising, so validation never aborts a batch.
-- ------------------------------------------------------------------------------------------------

-- A time value: a number below 1e11 is epoch seconds, below 1e14 milliseconds, below 1e17 microseconds,
-- else nanoseconds; a numeric string follows the same rule; any other string must be ISO-8601 with an
-- offset. Rounded to microseconds half-to-even.
CREATE FUNCTION workflow_index.parse_event_time(v JSONB) RETURNS TIMESTAMPTZ
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  n NUMERIC;
  s TEXT;
  us NUMERIC;
  r NUMERIC;
  secs NUMERIC;
BEGIN
  IF v IS NULL THEN
    RETURN NULL;
  END IF;
  CASE jsonb_typeof(v)
    WHEN 'number' THEN
      n := (v #>> '{}')::NUMERIC;
    WHEN 'string' THEN
      s := btrim(v #>> '{}');
      IF s ~ '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$' THEN
        n := s::NUMERIC;
      ELSIF s ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)$' THEN
        BEGIN
          RETURN replace(s, ',', '.')::TIMESTAMPTZ;
        EXCEPTION WHEN OTHERS THEN
          RETURN NULL;
        END;
      ELSE
        RETURN NULL;
      END IF;
    ELSE
      RETURN NULL;
  END CASE;
  IF abs(n) < 1e11 THEN
    us := n * 1000000;
  ELSIF abs(n) < 1e14 THEN
    us := n * 1000;
  ELSIF abs(n) < 1e17 THEN
    us := n;
  ELSE
    us := n / 1000;
  END IF;
  -- round half to even
  r := round(us);
  IF abs(us - trunc(us)) = 0.5 THEN
    r := 2 * round(us / 2);
  END IF;
  IF abs(r) > 9e15 THEN  -- beyond year ~2255 or before ~1685: not a plausible event time
    RETURN NULL;
  END IF;
  secs := floor(r / 1000000);
  RETURN to_timestamp(0) + (secs::BIGINT * INTERVAL '1 second') + ((r - secs * 1000000)::BIGINT * INTERVAL '1 microsecond');
END
$$;

-- Workflow status as served: the five enum values; other "not finished" statuses (WAITING, PENDING, …) are RUNNING.
CREATE FUNCTION workflow_index.normalize_workflow_status(s TEXT) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
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
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT CASE s WHEN 'FAULTED' THEN 5 WHEN 'CANCELLED' THEN 4 WHEN 'COMPLETED' THEN 3 WHEN 'SUSPENDED' THEN 2 ELSE 1 END::SMALLINT
$$;

-- ------------------------------------------------------------------------------------------------
-- Validation: returns NULL when the event is acceptable, else the reason it is rejected.
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.json_string_field_problem(d JSONB, key TEXT, max_len INTEGER, required BOOLEAN) RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t TEXT := jsonb_typeof(d -> key);
BEGIN
  IF t IS NULL OR t = 'null' THEN
    RETURN CASE WHEN required THEN format('missing %s', key) END;
  END IF;
  IF t <> 'string' THEN
    RETURN format('%s must be a string, got %s', key, t);
  END IF;
  IF required AND (d ->> key) = '' THEN
    RETURN format('%s must not be empty', key);
  END IF;
  IF length(d ->> key) > max_len THEN
    RETURN format('%s is longer than %s characters', key, max_len);
  END IF;
  RETURN NULL;
END
$$;

CREATE FUNCTION workflow_index.error_object_problem(e JSONB) RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = workflow_index, pg_catalog, pg_temp
AS $$
DECLARE
  st JSONB;
  k TEXT;
  p TEXT;
BEGIN
  IF e IS NULL OR jsonb_typeof(e) = 'null' THEN
    RETURN NULL;
  END IF;
  IF jsonb_typeof(e) <> 'object' THEN
    RETURN format('error must be an object, got %s', jsonb_typeof(e));
  END IF;
  FOREACH k IN ARRAY ARRAY['type', 'title', 'instance'] LOOP
    p := json_string_field_problem(e, k, 8192, false);
    IF p IS NOT NULL THEN
      RETURN 'error.' || p;
    END IF;
  END LOOP;
  IF jsonb_typeof(e -> 'detail') NOT IN ('string', 'null') THEN
    RETURN format('error.detail must be a string, got %s', jsonb_typeof(e -> 'detail'));
  END IF;
  st := e -> 'status';
  IF st IS NOT NULL AND jsonb_typeof(st) <> 'null' THEN
    IF NOT ((jsonb_typeof(st) = 'number' AND (st #>> '{}') ~ '^-?[0-9]{1,9}$')
            OR (jsonb_typeof(st) = 'string' AND (st #>> '{}') ~ '^-?[0-9]{1,9}$')) THEN
      RETURN format('error.status must be an integer, got %s', left(st::TEXT, 64));
    END IF;
  END IF;
  RETURN NULL;
END
$$;

-- ------------------------------------------------------------------------------------------------
-- Workflow events: one commutative upsert.
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.apply_workflow_event(d JSONB, action TEXT, ts TIMESTAMPTZ) RETURNS TEXT
LANGUAGE plpgsql VOLATILE
SET search_path = workflow_index, pg_catalog, pg_temp
AS $$
DECLARE
  p TEXT;
  st TEXT;
  terminal BOOLEAN;
  start_t TIMESTAMPTZ;
  end_t TIMESTAMPTZ;
  is_started BOOLEAN := action = 'started';
  in_rank SMALLINT := 0;
  e JSONB := d -> 'error';
  has_error BOOLEAN;
BEGIN
  IF is_started THEN
    p := coalesce(json_string_field_problem(d, 'workflowName', 1024, true),
                  json_string_field_problem(d, 'workflowNamespace', 1024, false),
                  json_string_field_problem(d, 'workflowVersion', 1024, false));
    IF p IS NOT NULL THEN
      RETURN p;
    END IF;
    IF d ? 'startTime' AND jsonb_typeof(d -> 'startTime') <> 'null' THEN
      start_t := parse_event_time(d -> 'startTime');
      IF start_t IS NULL THEN
        RETURN format('startTime %s is not a valid time', left((d -> 'startTime')::TEXT, 64));
      END IF;
    ELSE
      start_t := ts;
    END IF;
  END IF;
  IF d ? 'endTime' AND jsonb_typeof(d -> 'endTime') <> 'null' THEN
    end_t := parse_event_time(d -> 'endTime');
    IF end_t IS NULL THEN
      RETURN format('endTime %s is not a valid time', left((d -> 'endTime')::TEXT, 64));
    END IF;
  END IF;
  IF d ? 'lastUpdateTime' AND jsonb_typeof(d -> 'lastUpdateTime') <> 'null' AND parse_event_time(d -> 'lastUpdateTime') IS NULL THEN
    RETURN format('lastUpdateTime %s is not a valid time', left((d -> 'lastUpdateTime')::TEXT, 64));
  END IF;
  p := json_string_field_problem(d, 'status', 64, action = 'status-changed');
  IF p IS NOT NULL THEN
    RETURN p;
  END IF;
  st := normalize_workflow_status(coalesce(d ->> 'status', CASE action
    WHEN 'completed' THEN 'COMPLETED' WHEN 'faulted' THEN 'FAULTED' WHEN 'cancelled' THEN 'CANCELLED'
    WHEN 'suspended' THEN 'SUSPENDED' ELSE 'RUNNING' END));
  terminal := st IN ('COMPLETED', 'FAULTED', 'CANCELLED');
  has_error := action = 'faulted' AND e IS NOT NULL AND jsonb_typeof(e) = 'object';
  IF action = 'faulted' THEN
    p := error_object_problem(e);
    IF p IS NOT NULL THEN
      RETURN p;
    END IF;
  END IF;
  IF d ? 'input' AND action IN ('started', 'faulted') THEN
    in_rank := CASE WHEN is_started THEN 2 ELSE 1 END;
  END IF;

  INSERT INTO workflow_instances AS w (
    id, namespace, name, version, status, start_time, end_time, last_update, input, output,
    error_type, error_title, error_detail, error_status, error_instance,
    started_event_time, status_terminal, status_event_time, status_rank,
    input_rank, input_event_time, output_event_time, error_event_time)
  VALUES (
    d ->> 'instanceId',
    CASE WHEN is_started THEN d ->> 'workflowNamespace' END,
    CASE WHEN is_started THEN d ->> 'workflowName' END,
    CASE WHEN is_started THEN d ->> 'workflowVersion' END,
    st,
    start_t,
    CASE WHEN terminal THEN coalesce(end_t, ts) END,
    ts,
    CASE WHEN in_rank > 0 THEN nullif(d -> 'input', 'null'::JSONB) END,
    CASE WHEN action = 'completed' AND d ? 'output' THEN nullif(d -> 'output', 'null'::JSONB) END,
    CASE WHEN has_error THEN e ->> 'type' END,
    CASE WHEN has_error THEN e ->> 'title' END,
    CASE WHEN has_error THEN e ->> 'detail' END,
    CASE WHEN has_error THEN (e ->> 'status')::INTEGER END,
    CASE WHEN has_error THEN e ->> 'instance' END,
    CASE WHEN is_started THEN ts END,
    terminal, ts, status_rank(st),
    in_rank, CASE WHEN in_rank > 0 THEN ts END,
    CASE WHEN action = 'completed' AND d ? 'output' THEN ts END,
    CASE WHEN has_error THEN ts END)
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
    updated_at = now();
  RETURN NULL;
END
$$;

-- ------------------------------------------------------------------------------------------------
-- Task events: store (deduplicated), then recompute the executions at that position.
-- ------------------------------------------------------------------------------------------------

-- The executions at one (instance, position) as a pure function of its events: a chronological sweep where
-- started/retried open an execution, completed/faulted/cancelled close the most recent open one (or form a
-- completion-only execution when none is open), suspended/resumed change the status of the most recent open one.
CREATE FUNCTION workflow_index.recompute_task_position(p_instance TEXT, p_position TEXT) RETURNS VOID
LANGUAGE plpgsql VOLATILE
SET search_path = workflow_index, pg_catalog, pg_temp
AS $$
DECLARE
  ev RECORD;
  n INTEGER := 0;
  top INTEGER;
  open_stack INTEGER[] := '{}';
  a_name TEXT[] := '{}';
  a_status TEXT[] := '{}';
  a_start TIMESTAMPTZ[] := '{}';
  a_end TIMESTAMPTZ[] := '{}';
  a_has_input BOOLEAN[] := '{}';
  a_input JSONB[] := '{}';
  a_output JSONB[] := '{}';
  a_etype TEXT[] := '{}';
  a_etitle TEXT[] := '{}';
  a_edetail TEXT[] := '{}';
  a_estatus INTEGER[] := '{}';
  a_einstance TEXT[] := '{}';
  a_id TEXT[] := '{}';
  base TEXT := p_instance || ':' || p_position;
  candidate TEXT;
  k INTEGER;
BEGIN
  FOR ev IN
    SELECT * FROM task_events
    WHERE instance_id = p_instance AND task_position = p_position
    ORDER BY event_time,
             CASE event_kind WHEN 'started' THEN 0 WHEN 'retried' THEN 1 WHEN 'suspended' THEN 2
                             WHEN 'resumed' THEN 3 ELSE 4 END,
             event_kind
  LOOP
    IF ev.event_kind IN ('started', 'retried') THEN
      n := n + 1;
      a_name[n] := ev.task_name;
      a_status[n] := 'RUNNING';
      a_start[n] := ev.at_time;
      a_end[n] := NULL;
      a_has_input[n] := ev.has_input;
      a_input[n] := ev.input;
      a_output[n] := NULL;
      a_etype[n] := NULL; a_etitle[n] := NULL; a_edetail[n] := NULL; a_estatus[n] := NULL; a_einstance[n] := NULL;
      open_stack := open_stack || n;
    ELSIF ev.event_kind IN ('suspended', 'resumed') THEN
      top := open_stack[cardinality(open_stack)];
      IF top IS NOT NULL THEN
        a_status[top] := CASE ev.event_kind WHEN 'suspended' THEN 'SUSPENDED' ELSE 'RUNNING' END;
      END IF;
    ELSE
      top := open_stack[cardinality(open_stack)];
      IF top IS NULL THEN
        n := n + 1;
        top := n;
        a_name[n] := ev.task_name;
        a_start[n] := NULL;
        a_has_input[n] := false;
        a_input[n] := NULL;
      ELSE
        open_stack := open_stack[1:cardinality(open_stack) - 1];
      END IF;
      a_end[top] := ev.at_time;
      a_status[top] := CASE
        WHEN upper(ev.status) IN ('FAILED', 'FAULTED') THEN 'FAULTED'
        WHEN upper(ev.status) IN ('CANCELLED', 'CANCELED') THEN 'CANCELLED'
        WHEN upper(ev.status) = 'COMPLETED' THEN 'COMPLETED'
        ELSE CASE ev.event_kind WHEN 'faulted' THEN 'FAULTED' WHEN 'cancelled' THEN 'CANCELLED' ELSE 'COMPLETED' END
      END;
      IF NOT a_has_input[top] AND ev.has_input THEN
        a_has_input[top] := true;
        a_input[top] := ev.input;
      END IF;
      a_output[top] := CASE WHEN ev.has_output THEN ev.output END;
      IF ev.has_error THEN
        a_etype[top] := ev.error_type; a_etitle[top] := ev.error_title; a_edetail[top] := ev.error_detail;
        a_estatus[top] := ev.error_status; a_einstance[top] := ev.error_instance;
      ELSE
        a_etype[top] := NULL; a_etitle[top] := NULL; a_edetail[top] := NULL; a_estatus[top] := NULL; a_einstance[top] := NULL;
      END IF;
    END IF;
  END LOOP;

  -- Ids: the chronologically first execution is <instance>:<position>, every other one
  -- <instance>:<position>@<its start in epoch microseconds> (its end when it has no start).
  FOR k IN 1 .. n LOOP
    IF k = 1 THEN
      candidate := base;
    ELSE
      candidate := base || '@' || (extract(epoch FROM coalesce(a_start[k], a_end[k])) * 1000000)::NUMERIC(20, 0)::TEXT;
      IF candidate = ANY (a_id) THEN  -- two executions starting in the same microsecond: keep both
        candidate := candidate || '#' || k;
      END IF;
    END IF;
    a_id[k] := candidate;
  END LOOP;

  DELETE FROM task_executions WHERE instance_id = p_instance AND task_position = p_position;
  IF n > 0 THEN
    INSERT INTO task_executions (id, instance_id, task_position, task_name, status, start_time, end_time, input, output,
                                 error_type, error_title, error_detail, error_status, error_instance, execution_index)
    SELECT a_id[g.i], p_instance, p_position, a_name[g.i], a_status[g.i], a_start[g.i], a_end[g.i],
           nullif(a_input[g.i], 'null'::JSONB), nullif(a_output[g.i], 'null'::JSONB),
           a_etype[g.i], a_etitle[g.i], a_edetail[g.i], a_estatus[g.i], a_einstance[g.i], g.i
    FROM generate_series(1, n) AS g(i);
  END IF;
END
$$;

CREATE FUNCTION workflow_index.apply_task_event(d JSONB, action TEXT, ts TIMESTAMPTZ, p_raw_id BIGINT) RETURNS TEXT
LANGUAGE plpgsql VOLATILE
SET search_path = workflow_index, pg_catalog, pg_temp
AS $$
DECLARE
  p TEXT;
  pos TEXT;
  at_t TIMESTAMPTZ := ts;
  time_key TEXT;
  e JSONB := d -> 'error';
  has_err BOOLEAN;
  inserted INTEGER;
BEGIN
  p := coalesce(json_string_field_problem(d, 'taskPosition', 1024, true),
                json_string_field_problem(d, 'taskName', 1024, false),
                json_string_field_problem(d, 'status', 64, false));
  IF p IS NOT NULL THEN
    RETURN p;
  END IF;
  IF action NOT IN ('started', 'retried', 'suspended', 'resumed', 'completed', 'faulted', 'cancelled') THEN
    RETURN format('unknown task event action %s', action);
  END IF;
  time_key := CASE WHEN action = 'started' THEN 'startTime' WHEN action IN ('completed', 'faulted', 'cancelled') THEN 'endTime' END;
  IF time_key IS NOT NULL AND d ? time_key AND jsonb_typeof(d -> time_key) <> 'null' THEN
    at_t := parse_event_time(d -> time_key);
    IF at_t IS NULL THEN
      RETURN format('%s %s is not a valid time', time_key, left((d -> time_key)::TEXT, 64));
    END IF;
  END IF;
  IF action = 'faulted' THEN
    p := error_object_problem(e);
    IF p IS NOT NULL THEN
      RETURN p;
    END IF;
  END IF;
  has_err := e IS NOT NULL AND jsonb_typeof(e) = 'object' AND action IN ('faulted', 'completed', 'cancelled');
  pos := d ->> 'taskPosition';

  -- Serialize recomputation per position: a concurrent writer's events become visible once it commits.
  PERFORM pg_advisory_xact_lock(hashtextextended((d ->> 'instanceId') || chr(31) || pos, 1597));

  INSERT INTO task_events (instance_id, task_position, event_time, event_kind, task_name, status, at_time,
                           has_input, input, has_output, output, has_error,
                           error_type, error_title, error_detail, error_status, error_instance, raw_id)
  VALUES (d ->> 'instanceId', pos, ts, action,
          coalesce(d ->> 'taskName', regexp_replace(pos, '^.*/', '')),
          d ->> 'status', at_t,
          d ? 'input' AND action IN ('started', 'faulted'), CASE WHEN action IN ('started', 'faulted') THEN d -> 'input' END,
          d ? 'output' AND action = 'completed', CASE WHEN action = 'completed' THEN d -> 'output' END,
          has_err,
          CASE WHEN has_err THEN e ->> 'type' END, CASE WHEN has_err THEN e ->> 'title' END,
          CASE WHEN has_err THEN e ->> 'detail' END, CASE WHEN has_err THEN (e ->> 'status')::INTEGER END,
          CASE WHEN has_err THEN e ->> 'instance' END, p_raw_id)
  ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS inserted = ROW_COUNT;
  IF inserted > 0 THEN  -- a replayed event changes nothing
    PERFORM recompute_task_position(d ->> 'instanceId', pos);
  END IF;
  RETURN NULL;
END
$$;

-- ------------------------------------------------------------------------------------------------
-- Dispatch: both raw tables accept any lifecycle event (a mis-routed event is still normalized).
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.apply_event(d JSONB, p_raw_id BIGINT) RETURNS TEXT
LANGUAGE plpgsql VOLATILE
SET search_path = workflow_index, pg_catalog, pg_temp
AS $$
DECLARE
  p TEXT;
  m TEXT[];
  ts TIMESTAMPTZ;
BEGIN
  IF d IS NULL OR jsonb_typeof(d) <> 'object' THEN
    RETURN format('event is not a JSON object (got %s)', coalesce(jsonb_typeof(d), 'nothing'));
  END IF;
  p := json_string_field_problem(d, 'eventType', 512, true);
  IF p IS NOT NULL THEN
    RETURN p;
  END IF;
  -- Match on the suffix: the producer's prefix (io.serverlessworkflow.) may change in future SDKs.
  m := regexp_match(d ->> 'eventType', '(?:^|\.)(workflow|task)\.([a-z-]+)\.v[0-9]+$');
  IF m IS NULL THEN
    RETURN format('unknown eventType %s', left(d ->> 'eventType', 200));
  END IF;
  p := json_string_field_problem(d, 'instanceId', 255, true);
  IF p IS NOT NULL THEN
    RETURN p;
  END IF;
  IF NOT d ? 'timestamp' OR jsonb_typeof(d -> 'timestamp') = 'null' THEN
    RETURN 'missing timestamp';
  END IF;
  ts := parse_event_time(d -> 'timestamp');
  IF ts IS NULL THEN
    RETURN format('timestamp %s is not a valid time', left((d -> 'timestamp')::TEXT, 64));
  END IF;
  IF m[1] = 'workflow' THEN
    IF m[2] NOT IN ('started', 'completed', 'faulted', 'cancelled', 'suspended', 'resumed', 'status-changed') THEN
      RETURN format('unknown eventType %s', left(d ->> 'eventType', 200));
    END IF;
    RETURN apply_workflow_event(d, m[2], ts);
  END IF;
  IF m[2] NOT IN ('started', 'retried', 'suspended', 'resumed', 'completed', 'faulted', 'cancelled') THEN
    RETURN format('unknown eventType %s', left(d ->> 'eventType', 200));
  END IF;
  RETURN apply_task_event(d, m[2], ts, p_raw_id);
END
$$;

-- The trigger runs as the owner of the normalized tables (SECURITY DEFINER, fixed search_path): the forwarder
-- role can only insert raw rows. It never raises on event content; only conditions a retry can cure
-- (deadlock, serialization failure, cancellation, shutdown) propagate, so the writer retries the batch.
CREATE FUNCTION workflow_index.normalize_raw_event() RETURNS TRIGGER
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
AS $$
DECLARE
  reason TEXT;
BEGIN
  BEGIN
    reason := apply_event(NEW.data, NEW.id);
  EXCEPTION
    WHEN deadlock_detected OR serialization_failure OR query_canceled OR lock_not_available
         OR admin_shutdown OR crash_shutdown OR cannot_connect_now OR insufficient_resources OR disk_full
         OR out_of_memory THEN
      RAISE;
    WHEN OTHERS THEN
      reason := format('normalizer error %s: %s', SQLSTATE, SQLERRM);
  END;
  IF reason IS NOT NULL THEN
    INSERT INTO ingest_errors (raw_table, raw_id, instance_id, event_type, reason)
    VALUES (TG_TABLE_NAME, NEW.id,
            CASE WHEN jsonb_typeof(NEW.data) = 'object' THEN left(NEW.data ->> 'instanceId', 255) END,
            CASE WHEN jsonb_typeof(NEW.data) = 'object' THEN left(NEW.data ->> 'eventType', 255) END,
            reason);
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER normalize_workflow_events BEFORE INSERT ON workflow_raw.workflow_events_raw
  FOR EACH ROW EXECUTE FUNCTION workflow_index.normalize_raw_event();
CREATE TRIGGER normalize_task_events BEFORE INSERT ON workflow_raw.task_events_raw
  FOR EACH ROW EXECUTE FUNCTION workflow_index.normalize_raw_event();

-- ------------------------------------------------------------------------------------------------
-- Ingestion health for the read-only server role (which cannot read raw tables directly).
-- Raw counts come from the identity high-water marks: O(1), and exact unless rows were deleted.
-- ------------------------------------------------------------------------------------------------
CREATE FUNCTION workflow_index.ingest_stats() RETURNS TABLE (
  workflow_raw_events BIGINT, task_raw_events BIGINT, ingest_errors BIGINT, newest_event_time TIMESTAMPTZ,
  placeholder_instances BIGINT, instances BIGINT, task_executions BIGINT)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = workflow_index, workflow_raw, pg_catalog, pg_temp
AS $$
  SELECT (SELECT coalesce(max(id), 0) FROM workflow_raw.workflow_events_raw),
         (SELECT coalesce(max(id), 0) FROM workflow_raw.task_events_raw),
         (SELECT coalesce(max(id), 0) FROM workflow_index.ingest_errors),
         (SELECT max(last_update) FROM workflow_index.workflow_instances),
         (SELECT count(*) FROM workflow_index.workflow_instances WHERE started_event_time IS NULL)
           + (SELECT count(DISTINCT t.instance_id) FROM workflow_index.task_executions t
              WHERE NOT EXISTS (SELECT 1 FROM workflow_index.workflow_instances w WHERE w.id = t.instance_id)),
         (SELECT count(*) FROM workflow_index.workflow_instances WHERE started_event_time IS NOT NULL),
         (SELECT count(*) FROM workflow_index.task_executions)
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
