-- ------------------------------------------------------------------------------------------------
-- Day partitions of the raw tables (migration 0019): created ahead of the rows, dropped whole by retention.
--
-- Each raw table is partitioned by range of its record time (`time`, what Fluent Bit's Timestamp_Key holds), one
-- partition per UTC day named `<table>_pYYYYMMDD`, beside a DEFAULT partition that takes every row no day covers (no
-- record time, a clock far off, a day whose partition is not there), so no row is ever refused for its time.
-- create_raw_partitions() makes today's and the next days' partitions; `init-job migrate` and `init-job prune` (daily)
-- run it. A day whose rows already sit in the DEFAULT partition (its partition was missing when they came) gets them
-- moved into its new partition, in the transaction that attaches it.
--
-- Retention drops a day partition once its whole day is older than the horizon: every row in it was normalized,
-- and its event kept in the event store, in the transaction that inserted it, exactly as for the row-by-row delete
-- (105-retention.sql), and its ingest errors go with it. So the rows of a day partition are kept until the end of
-- the horizon's UTC day (at most a day longer than the retention) and never deleted one by one; only the DEFAULT
-- partition (and the table an existing install had before 0019) is pruned row by row, at the horizon itself. A partition is first detached, in a short transaction that holds the table's lock for
-- a catalog change only (Fluent Bit's flushes wait milliseconds), then counted, its ingest errors deleted and
-- dropped, with no lock on the raw table; a row of that day arriving meanwhile lands in the DEFAULT partition and
-- goes with a later run. A prune interrupted between the two finds the detached table again and finishes it.
--
-- All three run as the owner (SECURITY DEFINER): the prune login may run them and nothing else; the forwarder owns
-- no partition and has no right on any, so it can neither create, attach, detach nor drop one, nor insert into one
-- past the normalizing trigger of the partitioned table.
-- ------------------------------------------------------------------------------------------------

-- Whether `p_table` (a raw table name) is partitioned.
CREATE OR REPLACE FUNCTION workflow_index.raw_table_partitioned(p_table TEXT) RETURNS BOOLEAN
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT coalesce((SELECT c.relkind = 'p' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname = 'workflow_raw' AND c.relname = p_table), false)
$$;

-- The start of the UTC day of `p_horizon`: retention drops the day partitions that end at or before it.
CREATE OR REPLACE FUNCTION workflow_index.raw_partition_horizon(p_horizon TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT date_trunc('day', p_horizon AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
$$;

-- The relations of `p_table` retention deletes from row by row: the table itself when it is not partitioned, else
-- its DEFAULT partition and the table an existing install had before partitions (while it is attached).
CREATE OR REPLACE FUNCTION workflow_index.raw_row_pruned(p_table TEXT) RETURNS SETOF REGCLASS
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT c.oid::REGCLASS
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'workflow_raw'
    AND CASE WHEN workflow_index.raw_table_partitioned(p_table)
             THEN c.relispartition AND c.relname IN (p_table || '_default', p_table || '_unpartitioned')
             ELSE c.relname = p_table END
$$;

-- The range partitions of `p_table` with their bounds (NULL: MINVALUE / MAXVALUE); the DEFAULT partition is not one.
CREATE OR REPLACE FUNCTION workflow_index.raw_partitions(p_table TEXT)
RETURNS TABLE (name TEXT, lower_bound TIMESTAMPTZ, upper_bound TIMESTAMPTZ)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
SET TimeZone = 'UTC'
AS $$
  SELECT b.relname::TEXT,
         substring(b.bound FROM 'FROM \(''([^'']*)''\)')::TIMESTAMPTZ,
         substring(b.bound FROM 'TO \(''([^'']*)''\)')::TIMESTAMPTZ
  FROM (SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid
        JOIN pg_class p ON p.oid = i.inhparent
        JOIN pg_namespace n ON n.oid = p.relnamespace
        WHERE n.nspname = 'workflow_raw' AND p.relname = p_table) b
  WHERE b.bound <> 'DEFAULT'
$$;

-- Tables retention detached from `p_table` and has not dropped yet: named as its partitions, owned by the owner of
-- these functions, no longer a partition. Another role's table of such a name is never one.
CREATE OR REPLACE FUNCTION workflow_index.detached_raw_partitions(p_table TEXT) RETURNS SETOF TEXT
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT c.relname::TEXT
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'workflow_raw' AND c.relkind = 'r' AND NOT c.relispartition
    AND c.relowner = (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user)
    AND (c.relname ~ ('^' || p_table || '_p[0-9]{8}$') OR c.relname = p_table || '_unpartitioned')
  ORDER BY 1
$$;

-- Creates the day partitions of both raw tables from today (UTC) through `p_days_ahead` days ahead that no partition
-- covers yet; returns one row per partition created, with the rows moved into it from the DEFAULT partition.
CREATE OR REPLACE FUNCTION workflow_index.create_raw_partitions(p_days_ahead INTEGER DEFAULT 7)
RETURNS TABLE (raw_table TEXT, partition_name TEXT, moved_rows BIGINT)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
SET TimeZone = 'UTC'
SET lock_timeout = '5s'
AS $$
DECLARE
  t TEXT;
  d_start TIMESTAMPTZ;
  today TIMESTAMPTZ := date_trunc('day', now());
  part TEXT;
  moved BIGINT;
  locked BOOLEAN;
BEGIN
  IF p_days_ahead IS NULL OR p_days_ahead < 0 OR p_days_ahead > 366 THEN
    RAISE EXCEPTION 'days ahead must be from 0 to 366, got %', p_days_ahead USING ERRCODE = 'invalid_parameter_value';
  END IF;
  FOREACH t IN ARRAY ARRAY['workflow_events_raw', 'task_events_raw'] LOOP
    CONTINUE WHEN NOT raw_table_partitioned(t);
    locked := false;
    FOR d_start IN SELECT g FROM generate_series(today, today + make_interval(days => p_days_ahead), INTERVAL '1 day') AS g LOOP
      CONTINUE WHEN EXISTS (SELECT 1 FROM raw_partitions(t) p
                            WHERE (p.lower_bound IS NULL OR p.lower_bound < d_start + INTERVAL '1 day')
                              AND (p.upper_bound IS NULL OR p.upper_bound > d_start));
      IF NOT locked THEN
        -- Rows of a day without its partition go to the DEFAULT partition: none may arrive between moving that
        -- day's rows out of it and attaching the day (only inserts routed there wait).
        EXECUTE format('LOCK TABLE workflow_raw.%I IN ACCESS EXCLUSIVE MODE', t || '_default');
        locked := true;
      END IF;
      part := t || '_p' || to_char(d_start, 'YYYYMMDD');
      IF to_regclass(format('workflow_raw.%I', part)) IS NOT NULL THEN
        -- Not ours (the forwarder may create tables in its schema): that day's rows stay in the DEFAULT partition.
        RAISE WARNING 'raw partition % not created: a table of that name exists and is not a partition of %', part, t;
        CONTINUE;
      END IF;
      EXECUTE format('CREATE TABLE workflow_raw.%I (LIKE workflow_raw.%I)', part, t);
      EXECUTE format(
        'WITH moved AS (DELETE FROM workflow_raw.%1$I r WHERE r.time >= $1 AND r.time < $2 RETURNING r.tag, r.time, r.data, r.id),
              kept AS (INSERT INTO workflow_raw.%2$I (tag, time, data, id) SELECT * FROM moved RETURNING 1)
         SELECT count(*) FROM kept', t || '_default', part) INTO moved USING d_start, d_start + INTERVAL '1 day';
      EXECUTE format('ALTER TABLE workflow_raw.%I ATTACH PARTITION workflow_raw.%I FOR VALUES FROM (%L) TO (%L)',
                     t, part, d_start, d_start + INTERVAL '1 day');
      raw_table := t;
      partition_name := part;
      moved_rows := moved;
      RETURN NEXT;
    END LOOP;
  END LOOP;
END
$$;

-- Detaches the partitions of `p_table` whose whole range is older than the retention horizon (a short transaction:
-- the table's lock is held for the catalog change only) and returns every detached partition not dropped yet,
-- these and any an interrupted prune left. Nothing on a table that is not partitioned.
CREATE OR REPLACE FUNCTION workflow_index.detach_raw_partitions(p_table TEXT, p_horizon TIMESTAMPTZ) RETURNS SETOF TEXT
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $$
DECLARE
  horizon TIMESTAMPTZ := raw_partition_horizon(p_horizon);
  victim TEXT;
BEGIN
  IF p_table NOT IN ('workflow_events_raw', 'task_events_raw') THEN
    RAISE EXCEPTION 'unknown raw table %', p_table USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF raw_table_partitioned(p_table) THEN
    FOR victim IN SELECT p.name FROM raw_partitions(p_table) p WHERE p.upper_bound <= horizon ORDER BY p.upper_bound LOOP
      EXECUTE format('ALTER TABLE workflow_raw.%I DETACH PARTITION workflow_raw.%I', p_table, victim);
    END LOOP;
  END IF;
  RETURN QUERY SELECT d FROM detached_raw_partitions(p_table) AS d;
END
$$;

-- Drops one partition detach_raw_partitions() detached from `p_table`, with the ingest errors recorded for its rows
-- (as the row-by-row delete does); returns how many of each went.
CREATE OR REPLACE FUNCTION workflow_index.drop_raw_partition(p_table TEXT, p_partition TEXT)
RETURNS TABLE (deleted BIGINT, ingest_errors BIGINT)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = workflow_index, pg_catalog, pg_temp
SET lock_timeout = '5s'
AS $$
DECLARE
  n_rows BIGINT;
  n_errors BIGINT;
BEGIN
  IF p_table NOT IN ('workflow_events_raw', 'task_events_raw') THEN
    RAISE EXCEPTION 'unknown raw table %', p_table USING ERRCODE = 'invalid_parameter_value';
  END IF;
  IF p_partition IS NULL OR NOT EXISTS (SELECT 1 FROM detached_raw_partitions(p_table) d WHERE d = p_partition) THEN
    RAISE EXCEPTION '% is not a detached partition of %', p_partition, p_table USING ERRCODE = 'invalid_parameter_value';
  END IF;
  EXECUTE format('LOCK TABLE workflow_raw.%I IN ACCESS EXCLUSIVE MODE', p_partition);
  EXECUTE format('SELECT count(*) FROM workflow_raw.%I', p_partition) INTO n_rows;
  EXECUTE format(
    'WITH gone AS (DELETE FROM workflow_index.ingest_errors e
                   WHERE e.raw_table = %1$L AND EXISTS (SELECT 1 FROM workflow_raw.%2$I r WHERE r.id = e.raw_id) RETURNING 1)
     SELECT count(*) FROM gone', p_table, p_partition) INTO n_errors;
  EXECUTE format('DROP TABLE workflow_raw.%I', p_partition);
  deleted := n_rows;
  ingest_errors := n_errors;
  RETURN NEXT;
END
$$;
