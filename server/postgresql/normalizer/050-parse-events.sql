-- ------------------------------------------------------------------------------------------------
-- parse_events: one row per raw event with everything the normalizer needs, and `reason` (NULL when the
-- event is accepted, else why it is rejected). Pure: no side effects, never raises on content (see above).
-- ------------------------------------------------------------------------------------------------
-- (Dropped first: its result columns grow now and then, which CREATE OR REPLACE cannot do.)
DROP FUNCTION IF EXISTS workflow_index.parse_events(BIGINT[], JSONB[]);
CREATE FUNCTION workflow_index.parse_events(p_ids BIGINT[], p_data JSONB[])
RETURNS TABLE (
  raw_id BIGINT, instance_id TEXT, event_type TEXT, kind TEXT, action TEXT, ts TIMESTAMPTZ, reason TEXT,
  -- workflow events
  namespace TEXT, name TEXT, version TEXT, status TEXT, terminal BOOLEAN, rank SMALLINT,
  start_time TIMESTAMPTZ, end_time TIMESTAMPTZ, input_rank SMALLINT, input JSONB, has_output BOOLEAN, output JSONB,
  has_error BOOLEAN, error_type TEXT, error_title TEXT, error_detail TEXT, error_status INTEGER, error_instance TEXT,
  -- task events
  task_position TEXT, task_name TEXT, task_status TEXT, at_time TIMESTAMPTZ,
  -- the event's identity within its (instance, position, time, kind): see 045-event-identity.sql
  content_hash BIGINT,
  -- the event as given, for the event store (048-event-store.sql)
  document JSONB,
  -- input and output (as above) with their numbers canonical: what the workflow events' identity reads (080)
  identity_input JSONB, identity_output JSONB)
LANGUAGE sql STABLE
AS $$
  -- Five levels, each fenced with OFFSET 0 so the planner does not flatten them and re-evaluate a derived column
  -- at every place it is referenced: each field is extracted from the event once (e), typed once (t), then the
  -- event is classified (c), validated and projected.
  SELECT c.raw_id,
    -- a record without an eventType: the instance its text names, if any (042-json-text-fault.sql)
    coalesce(c.iid, CASE WHEN coalesce(jsonb_typeof(c.j_et), 'null') = 'null' AND c.dtype = 'object' THEN workflow_index.unparsed_instance_id(c.doc) END),
    c.et, c.kind, c.action, c.ts,
    CASE
      WHEN c.dtype <> 'object' THEN format('event is not a JSON object (got %s)', c.dtype)
      ELSE coalesce(
        -- a record without an eventType may be a text no parser could read: its fault is the reason
        CASE WHEN coalesce(jsonb_typeof(c.j_et), 'null') = 'null' THEN workflow_index.unparsed_record_problem(c.doc) END,
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
          -- a completed or cancelled task's error object is served too (has_error below): the same bounds as a fault's
          CASE WHEN c.action = 'faulted' OR (c.action IN ('completed', 'cancelled') AND jsonb_typeof(c.j_error) = 'object')
               THEN workflow_index.error_object_problem(c.j_error) END)
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
                  WHEN c.action IN ('completed', 'faulted', 'cancelled') THEN c.t_end END, c.ts),
    CASE WHEN c.kind = 'task' THEN workflow_index.task_event_content_hash(
      coalesce(c.j_tname #>> '{}', regexp_replace(c.j_pos #>> '{}', '^.*/', '')), c.j_status #>> '{}',
      workflow_index.canonical_json_text(c.input_text), workflow_index.canonical_json_text(c.output_text), c.j_error) END,
    c.doc,
    CASE WHEN c.action IN ('started', 'faulted') THEN nullif(c.j_input_identity, 'null'::JSONB) END,
    CASE WHEN c.action = 'completed' THEN nullif(c.j_output_identity, 'null'::JSONB) END
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
             workflow_index.event_type_suffix(CASE WHEN jsonb_typeof(e.j_et) = 'string' THEN e.j_et #>> '{}' END) AS m,
             e.j_iid #>> '{}' AS iid,
             -- task payloads as jsonb text, once, for the event's identity (numbers canonical, 045-event-identity.sql)
             CASE WHEN e.j_pos IS NOT NULL THEN e.j_input_identity::TEXT END AS input_text,
             CASE WHEN e.j_pos IS NOT NULL THEN e.j_output_identity::TEXT END AS output_text,
             workflow_index.parse_event_time(e.j_ts, e.n_ts) AS ts,
             workflow_index.parse_event_time(e.j_start, e.n_start) AS t_start,
             workflow_index.parse_event_time(e.j_end, e.n_end) AS t_end,
             workflow_index.parse_event_time(e.j_last, e.n_last) AS t_last
      FROM (
       SELECT e.*, workflow_index.json_number_double(e.j_ts) AS n_ts, workflow_index.json_number_double(e.j_start) AS n_start,
              workflow_index.json_number_double(e.j_end) AS n_end, workflow_index.json_number_double(e.j_last) AS n_last
       FROM (
        SELECT u.raw_id, u.d AS doc, coalesce(jsonb_typeof(u.d), 'nothing') AS dtype,
               o.d -> 'eventType' AS j_et, o.d -> 'instanceId' AS j_iid, o.d -> 'timestamp' AS j_ts,
               o.d -> 'startTime' AS j_start, o.d -> 'endTime' AS j_end, o.d -> 'lastUpdateTime' AS j_last,
               o.d -> 'status' AS j_status, o.d -> 'taskPosition' AS j_pos, o.d -> 'taskName' AS j_tname,
               o.d -> 'workflowName' AS j_wname, o.d -> 'workflowNamespace' AS j_wns, o.d -> 'workflowVersion' AS j_wver,
               -- payloads as delivered (served so), and with their numbers canonical for the identity (045-event-identity.sql)
               o.d -> 'error' AS j_error, o.d -> 'input' AS j_input, coalesce(o.d ? 'input', false) AS has_input,
               o.d -> 'output' AS j_output, coalesce(o.d ? 'output', false) AS has_output,
               workflow_index.canonical_json(o.d -> 'input') AS j_input_identity, workflow_index.canonical_json(o.d -> 'output') AS j_output_identity
        FROM unnest(p_ids, p_data) AS u(raw_id, d)
        CROSS JOIN LATERAL (SELECT CASE WHEN jsonb_typeof(u.d) = 'object' THEN u.d END AS d) o
        OFFSET 0
      ) e
      OFFSET 0
      ) e
      OFFSET 0
    ) t
    OFFSET 0
  ) c
$$;

