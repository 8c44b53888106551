-- Workflow status as served: the five enum values; other "not finished" statuses (WAITING, PENDING, …) are RUNNING.
CREATE OR REPLACE FUNCTION workflow_index.normalize_workflow_status(s TEXT) RETURNS TEXT
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
CREATE OR REPLACE FUNCTION workflow_index.status_rank(s TEXT) RETURNS SMALLINT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE s WHEN 'FAULTED' THEN 5 WHEN 'CANCELLED' THEN 4 WHEN 'COMPLETED' THEN 3 WHEN 'SUSPENDED' THEN 2 ELSE 1 END::SMALLINT
$$;

-- Status of a closing task event: FAILED is served as FAULTED; without a status, the event type decides.
CREATE OR REPLACE FUNCTION workflow_index.task_end_status(status TEXT, kind TEXT) RETURNS TEXT
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE
    WHEN upper(status) IN ('FAILED', 'FAULTED') THEN 'FAULTED'
    WHEN upper(status) IN ('CANCELLED', 'CANCELED') THEN 'CANCELLED'
    WHEN upper(status) = 'COMPLETED' THEN 'COMPLETED'
    ELSE CASE kind WHEN 'faulted' THEN 'FAULTED' WHEN 'cancelled' THEN 'CANCELLED' ELSE 'COMPLETED' END
  END
$$;
