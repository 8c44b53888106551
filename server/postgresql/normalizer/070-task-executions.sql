-- ------------------------------------------------------------------------------------------------
-- The executions at the given (instance, position) pairs as a pure function of their stored events: a
-- chronological sweep where started/retried open an execution, completed/faulted/cancelled close the most
-- recently opened one still open (or form a completion-only execution when none is open), and
-- suspended/resumed set the status of that one. Computed set-based as bracket matching: with the running
-- balance of opens minus closes clamped at zero (b = S - min(0, min S so far)), a close that finds b > 0
-- closes the latest open at level b; suspend/resume attach the same way.
--
-- Events with the same timestamp are ordered by their content, never by arrival (producers print at
-- millisecond precision, and then one loop iteration's task.completed and the next one's task.started, or a fast
-- task's own started and completed, often share the instant). At an instant with E closing and S opening events
-- and b executions already open before it: min(b, E) closings come first and close executions that were already
-- open; then the openings; then the remaining closings, which close those (latest first). So a completion closes
-- the iteration that ran before it rather than one that starts at the same instant, and a task that starts and
-- ends within one instant is one execution. Among events of the same role at one instant: by kind, then by
-- content hash (a fixed order).
--
-- Most positions hold one event, or starts and closing events that alternate in time: start, its closing event at
-- or after it, the next start at or after that, … (a task that ran once, a loop's iterations), with no three of them
-- at one instant. Their executions are the k-th start with the k-th closing event (the last start may still be
-- open), which the sweep would find too: at an instant holding a closing event and the next start, the one open
-- execution is closed first; at an instant holding a start and its own closing event, nothing was open before it.
-- Those are computed by one aggregation; only the others go through the sweep's windows.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.task_position_executions(p_iids TEXT[], p_pos TEXT[])
RETURNS TABLE (instance_id TEXT, task_position TEXT, first_seq BIGINT, task_name TEXT, status TEXT,
               start_time TIMESTAMPTZ, end_time TIMESTAMPTZ, input JSONB, output JSONB,
               error_type TEXT, error_title TEXT, error_detail TEXT, error_status INTEGER, error_instance TEXT)
LANGUAGE sql STABLE
AS $$
  WITH ev0 AS (
    SELECT e.*,
           CASE WHEN e.event_kind IN ('started', 'retried') THEN 1
                WHEN e.event_kind IN ('completed', 'faulted', 'cancelled') THEN -1 ELSE 0 END AS delta
    FROM unnest(p_iids, p_pos) AS a(i, p)
    -- the columns the executions read (not the stored document: every sort below would carry it)
    CROSS JOIN LATERAL (SELECT t.instance_id, t.task_position, t.event_time, t.event_kind, t.task_name, t.status, t.at_time,
                               t.input, t.has_output, t.output, t.has_error, t.error_type, t.error_title, t.error_detail,
                               t.error_status, t.error_instance, t.content_hash
                        FROM workflow_index.task_events t
                        WHERE t.instance_id = a.i AND t.task_position = a.p
                        OFFSET 0) e  -- per-key index lookups (OFFSET 0: not flattened into a join)
  ), ordered AS (
    -- In time order; at one instant closing events come first (their kinds sort before started and retried). The
    -- balance (starts minus closing events) after each instant, the event's rank among those of its role, and
    -- whether the event before it has the same role and instant.
    SELECT ev0.*,
           sum(ev0.delta) OVER (PARTITION BY ev0.instance_id, ev0.task_position ORDER BY ev0.event_time) AS balance,
           CASE WHEN ev0.delta = 1 THEN count(*) FILTER (WHERE ev0.delta = 1) OVER o
                ELSE count(*) FILTER (WHERE ev0.delta = -1) OVER o END AS k,
           lag(ev0.event_time) OVER o = ev0.event_time AND lag(ev0.delta) OVER o = ev0.delta AS same_role_tie
    FROM ev0
    WINDOW o AS (PARTITION BY ev0.instance_id, ev0.task_position ORDER BY ev0.event_time, ev0.event_kind, ev0.content_hash
                 ROWS UNBOUNDED PRECEDING)
  ), shaped AS (
    -- simple: the position holds a single start or closing event, or alternating starts and closing events (above):
    -- no pause, at most one start and one closing event per instant, and the balance after every instant 0 or 1 (a
    -- start finds nothing open, a closing event one open execution; an instant holding both leaves it as it was)
    SELECT od.*,
           (count(*) OVER w = 1 AND od.delta <> 0)
           OR bool_and(od.delta <> 0 AND od.balance IN (0, 1) AND NOT coalesce(od.same_role_tie, false)) OVER w AS simple
    FROM ordered od WINDOW w AS (PARTITION BY od.instance_id, od.task_position)
  ), ev AS (
    SELECT * FROM shaped WHERE NOT shaped.simple
  ), instants AS (
    -- One sort serves every window here: per instant its net delta, the running balance after it (RANGE: peers
    -- share it), each event's rank within its role at the instant, and whether it is the instant's last row.
    SELECT ev.*,
           sum(ev.delta) OVER (PARTITION BY ev.instance_id, ev.task_position, ev.event_time) AS instant_delta,
           sum(ev.delta) OVER (PARTITION BY ev.instance_id, ev.task_position ORDER BY ev.event_time) AS p_after,
           row_number() OVER (PARTITION BY ev.instance_id, ev.task_position, ev.event_time, ev.delta
                              ORDER BY ev.event_kind, ev.content_hash) AS role_rank,
           row_number() OVER (PARTITION BY ev.instance_id, ev.task_position, ev.event_time
                              ORDER BY ev.delta, ev.event_kind, ev.content_hash)
             = count(*) OVER (PARTITION BY ev.instance_id, ev.task_position, ev.event_time) AS last_of_instant
    FROM ev
  ), open_before AS (
    -- Executions still open just before the instant: the clamped running balance after the previous instant,
    -- P(g-1) - min(0, min of P over the instants before g); the minimum runs over the last rows of earlier instants.
    SELECT i.*,
           (i.p_after - i.instant_delta)
             - least(0, coalesce(min(CASE WHEN i.last_of_instant THEN i.p_after END)
                                   OVER (PARTITION BY i.instance_id, i.task_position
                                         ORDER BY i.event_time, i.delta, i.event_kind, i.content_hash
                                         ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)) AS open_at_instant
    FROM instants i
  ), ev_seq AS (
    SELECT o.*,
           row_number() OVER (PARTITION BY o.instance_id, o.task_position
                              ORDER BY o.event_time,
                                       CASE WHEN o.delta = -1 AND o.role_rank <= o.open_at_instant THEN 0
                                            WHEN o.delta = 1 THEN 1 WHEN o.delta = 0 THEN 2 ELSE 3 END,
                                       o.event_kind, o.content_hash) AS seq
    FROM open_before o
  ), sums AS (
    SELECT ev_seq.*, sum(ev_seq.delta) OVER w AS s_after
    FROM ev_seq WINDOW w AS (PARTITION BY ev_seq.instance_id, ev_seq.task_position ORDER BY ev_seq.seq)
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
  UNION ALL
  -- The simple positions: one execution per start (the k-th start with the k-th closing event), with the values the
  -- sweep's aggregation above gives it (the start is the first event in the sweep's order; a closing event alone is
  -- a completion-only execution), in the sweep's order. Each (position, k) holds at most one start and one closing
  -- event (k is the event's rank within its role), so min() of a role's value is that value: no array per group and
  -- column, as array_agg(...)[1] built (jsonb has no min, so its three columns keep array_agg).
  SELECT f.instance_id, f.task_position, f.k,
         CASE WHEN f.has_open THEN f.s_task_name ELSE f.c_task_name END,
         CASE WHEN f.has_close THEN workflow_index.task_end_status(f.c_status, f.c_kind) ELSE 'RUNNING' END,
         f.start_time, f.end_time,
         coalesce(f.s_input, f.c_input),
         CASE WHEN f.c_has_output THEN f.c_output END,
         CASE WHEN f.c_has_error THEN f.c_error_type END, CASE WHEN f.c_has_error THEN f.c_error_title END,
         CASE WHEN f.c_has_error THEN f.c_error_detail END, CASE WHEN f.c_has_error THEN f.c_error_status END,
         CASE WHEN f.c_has_error THEN f.c_error_instance END
  FROM (
    SELECT s.instance_id, s.task_position, s.k,
           bool_or(s.delta = 1) AS has_open,
           bool_or(s.delta = -1) AS has_close,
           min(s.task_name) FILTER (WHERE s.delta = 1) AS s_task_name,
           min(s.task_name) FILTER (WHERE s.delta = -1) AS c_task_name,
           min(s.at_time) FILTER (WHERE s.delta = 1) AS start_time,
           min(s.at_time) FILTER (WHERE s.delta = -1) AS end_time,
           min(s.status) FILTER (WHERE s.delta = -1) AS c_status,
           min(s.event_kind) FILTER (WHERE s.delta = -1) AS c_kind,
           (array_agg(s.input) FILTER (WHERE s.delta = 1))[1] AS s_input,
           (array_agg(s.input) FILTER (WHERE s.delta = -1))[1] AS c_input,
           coalesce(bool_or(s.has_output) FILTER (WHERE s.delta = -1), false) AS c_has_output,
           (array_agg(s.output) FILTER (WHERE s.delta = -1))[1] AS c_output,
           coalesce(bool_or(s.has_error) FILTER (WHERE s.delta = -1), false) AS c_has_error,
           min(s.error_type) FILTER (WHERE s.delta = -1) AS c_error_type,
           min(s.error_title) FILTER (WHERE s.delta = -1) AS c_error_title,
           min(s.error_detail) FILTER (WHERE s.delta = -1) AS c_error_detail,
           min(s.error_status) FILTER (WHERE s.delta = -1) AS c_error_status,
           min(s.error_instance) FILTER (WHERE s.delta = -1) AS c_error_instance
    FROM shaped s
    WHERE s.simple
    GROUP BY s.instance_id, s.task_position, s.k
  ) f
$$;

