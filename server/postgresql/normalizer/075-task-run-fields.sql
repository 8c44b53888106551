-- ------------------------------------------------------------------------------------------------
-- The run's fields on its task executions (migrations/0011_task_run_fields.sql): every task row's
-- workflow_namespace, workflow_name and workflow_version equal its run's namespace, name and version — NULL while
-- the run is a placeholder (they are set by workflow.started only) — whatever order the events arrive in.
-- Two writes keep it, both under the run's row lock (080-apply-events.sql), so no concurrent flush can interleave:
--  - a task row is written (step 3 of apply_events) with the fields of its run's row as it is then;
--  - a flush that merges a workflow.started into a run (the only event that sets or changes a run's identity: the
--    earliest one wins, so a late one can replace it) then calls task_run_fields_follow_runs for those runs, which
--    updates the task rows whose fields differ (none, usually: a run's tasks mostly arrive after its start).
-- rebuild_normalized() replays through apply_events, so it gives the same rows.
--
-- Called as a statement of its own after the upsert: its snapshot is taken once this flush holds the runs' locks,
-- so it sees every task row a concurrent flush wrote for them before. It takes no run lock; the task rows it locks
-- are written only by a transaction holding their run's lock (apply_events, retention), which this one holds: no new
-- lock order. Per-key lookups and a TID scan, as in apply_events, so the plan does not depend on statistics.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.task_run_fields_follow_runs(p_iids TEXT[]) RETURNS VOID
LANGUAGE sql VOLATILE
AS $$
  UPDATE workflow_index.task_executions t
  SET (workflow_namespace, workflow_name, workflow_version) =
        (SELECT w.namespace, w.name, w.version FROM workflow_index.workflow_instances w WHERE w.id = t.instance_id)
  WHERE t.ctid = ANY (ARRAY(
    SELECT x.ctid
    FROM unnest(p_iids) AS a(i)
    CROSS JOIN LATERAL (SELECT w.namespace, w.name, w.version FROM workflow_index.workflow_instances w
                        WHERE w.id = a.i OFFSET 0) r
    CROSS JOIN LATERAL (SELECT s.ctid FROM workflow_index.task_executions s
                        WHERE s.instance_id = a.i
                          AND (s.workflow_namespace, s.workflow_name, s.workflow_version)
                              IS DISTINCT FROM (r.namespace, r.name, r.version)
                        OFFSET 0) x))  -- OFFSET 0: not flattened, evaluated per key
$$;
